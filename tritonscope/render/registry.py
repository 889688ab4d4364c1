"""The one place a result meets its renderer: (result type, format) -> renderer.

Every way out goes through here: the command wrapper (cli/runner.py) for the terminal, `--json` and the
files a command names, and any other front end through `render(result, fmt, **options)`. A new
output format is one renderer module plus its rows here; a new command's result is one row per
format it is shown in. Renderers are named as "module:Class" and imported only when asked for, so
`dump --json` never imports rich or Pygments. A renderer that draws several result types (JSON,
HTML) is named with the part that draws this one, "module:Class.part": the row is its one dispatch.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, Literal

Format = Literal["terminal", "json", "html", "files", "junit", "plot", "script", "vllm", "notebook", "summary"]

_JSON = "tritonscope.render.json_"  # a family's JSON renderer: json_FAMILY:ClassJson.part
_HTML = "tritonscope.render.html:HtmlReport."
_VIEWS = "tritonscope.render.terminal."
_NOTEBOOK = "tritonscope.render.notebook:NotebookView."
_SUMMARY = "tritonscope.render.notebook:Summary."
_R = "tritonscope.results."  # result types are named, not imported: a command imports its own alone

# The results the Python API returns, and the part of render/notebook.py that draws each ("text": its
# terminal view as text).
_IN_NOTEBOOKS = {
    "dump:DumpResult": "dump",
    "explain:ExplainResult": "explain",
    "diff:DiffResult": "diff",
    "passes:PassesResult": "passes",
    "passes:PassesComparison": "text",
    "fit:FitResult": "text",
    "grid:GridResult": "text",
    "layout:LayoutResult": "text",
    "layout:LayoutListResult": "text",
    "layout:SharedLayoutResult": "text",
    "trace:TraceResult": "trace",
}

_ROWS: dict[tuple[str, Format], str] = {
    (_R + "catalog:SamplesResult", "terminal"): _VIEWS + "samples:SamplesView",
    (_R + "catalog:KernelList", "terminal"): _VIEWS + "listing:ListingView",
    (_R + "dump:DumpResult", "terminal"): _VIEWS + "dump:DumpView",
    (_R + "dump:DumpResult", "html"): _HTML + "dump",
    (_R + "dump:DumpResult", "files"): "tritonscope.render.files:FilesRenderer",
    (_R + "dump:CompareResult", "terminal"): _VIEWS + "compare:CompareView",
    (_R + "diff:DiffResult", "terminal"): _VIEWS + "diff:DiffView",
    (_R + "diff:DiffResult", "html"): _HTML + "diff",
    (_R + "passes:PassesResult", "terminal"): _VIEWS + "passes:PassesView",
    (_R + "passes:PassesResult", "html"): _HTML + "passes",
    (_R + "passes:PassesComparison", "terminal"): _VIEWS + "passes:PassesComparisonView",
    (_R + "catalog:EnvsListing", "terminal"): _VIEWS + "envs:EnvsView",
    (_R + "grid:GridResult", "terminal"): _VIEWS + "grid:GridView",
    (_R + "layout:LayoutResult", "terminal"): _VIEWS + "layout:LayoutView",
    (_R + "layout:LayoutListResult", "terminal"): _VIEWS + "layout:LayoutListView",
    (_R + "layout:SharedLayoutResult", "terminal"): _VIEWS + "layout:SharedLayoutView",
    (_R + "bench:BenchResult", "terminal"): _VIEWS + "bench:BenchView",
    (_R + "bench:BenchResult", "plot"): "tritonscope.render.plot:PlotRenderer",
    (_R + "bench:ReplayResult", "terminal"): _VIEWS + "replay:ReplayView",
    (_R + "cache:CacheListing", "terminal"): _VIEWS + "cache:CacheView",
    (_R + "explain:ExplainResult", "terminal"): _VIEWS + "explain:ExplainView",
    (_R + "explain:ReportResult", "html"): _HTML + "report",
    (_R + "explain:ProfileResult", "terminal"): _VIEWS + "profile:ProfileView",
    (_R + "check:CheckResult", "terminal"): _VIEWS + "check:CheckView",
    (_R + "check:CheckResult", "junit"): "tritonscope.render.junit:JunitReport",
    (_R + "recompiles:RecompilesResult", "terminal"): _VIEWS + "recompiles:RecompilesView",
    (_R + "recompiles:PredictionResult", "terminal"): _VIEWS + "recompiles:PredictionView",
    (_R + "capture_diff:CaptureDiffResult", "terminal"): _VIEWS + "captures:CaptureDiffView",
    (_R + "bench:ReleaseTimings", "terminal"): _VIEWS + "bench_releases:ReleaseTimingsView",
    (_R + "space:SpaceResult", "terminal"): _VIEWS + "space:SpaceView",
    (_R + "trace:ReproduceResult", "script"): "tritonscope.render.script:ScriptRenderer",
    (_R + "fit:FitResult", "terminal"): _VIEWS + "fit:FitView",
    (_R + "fit:FitResult", "script"): "tritonscope.render.prune:PruneRenderer",  # fit --emit-prune: the pruner module
    (_R + "fit:FitResult", "vllm"): "tritonscope.render.vllm_config:VllmConfigRenderer",  # fit --emit-config vllm
    # What the Python API's results show in a notebook: a block of HTML, and a one-line repr.
    **{(_R + name, "notebook"): _NOTEBOOK + drawn for name, drawn in _IN_NOTEBOOKS.items()},
    **{
        (_R + name, "summary"): _SUMMARY + ("other" if drawn == "text" else drawn)
        for name, drawn in _IN_NOTEBOOKS.items()
    },
    (_R + "fit:FitResult", "summary"): _SUMMARY + "fit",  # its terminal view's first line, and the fastest
    # Every result but a page and a script has a JSON document (docs/json-schema.md), drawn by the
    # part named here of its family's renderer (render/json_*.py, each a render/json.py JsonRenderer).
    (_R + "catalog:SamplesResult", "json"): _JSON + "listings:ListingsJson.samples",
    (_R + "catalog:KernelList", "json"): _JSON + "listings:ListingsJson.kernel_list",
    (_R + "dump:DumpResult", "json"): _JSON + "dump:DumpJson.dump",
    (_R + "dump:CompareResult", "json"): _JSON + "dump:DumpJson.dump",
    (_R + "diff:DiffResult", "json"): _JSON + "variants:VariantsJson.diff",
    (_R + "passes:PassesResult", "json"): _JSON + "passes:PassesJson.passes",
    (_R + "passes:PassesComparison", "json"): _JSON + "passes:PassesJson.passes_compare",
    (_R + "catalog:EnvsListing", "json"): _JSON + "listings:ListingsJson.envs",
    (_R + "trace:TraceResult", "json"): _JSON + "listings:ListingsJson.trace",
    (_R + "grid:GridResult", "json"): _JSON + "layouts:LayoutsJson.grid",
    (_R + "layout:LayoutResult", "json"): _JSON + "layouts:LayoutsJson.layout",
    (_R + "layout:LayoutListResult", "json"): _JSON + "layouts:LayoutsJson.layout_list",
    (_R + "layout:SharedLayoutResult", "json"): _JSON + "layouts:LayoutsJson.shared_layout",
    (_R + "bench:BenchResult", "json"): _JSON + "bench:BenchJson.bench",
    (_R + "bench:ReplayResult", "json"): _JSON + "bench:BenchJson.replay",
    (_R + "cache:CacheListing", "json"): _JSON + "listings:ListingsJson.cache",
    (_R + "explain:ExplainResult", "json"): _JSON + "explain:ExplainJson.explain",
    (_R + "explain:ProfileResult", "json"): _JSON + "explain:ExplainJson.profile",
    (_R + "check:CheckResult", "json"): _JSON + "explain:ExplainJson.check",
    (_R + "capture_diff:CaptureDiffResult", "json"): _JSON + "captures:CapturesJson.capture_diff",
    (_R + "recompiles:RecompilesResult", "json"): _JSON + "recompiles:RecompilesJson.recompiles",
    (_R + "recompiles:PredictionResult", "json"): _JSON + "recompiles:RecompilesJson.prediction",
    (_R + "space:SpaceResult", "json"): _JSON + "variants:VariantsJson.space",
    (_R + "bench:ReleaseTimings", "json"): _JSON + "bench:BenchJson.release_timings",
    (_R + "fit:FitResult", "json"): _JSON + "variants:VariantsJson.fit",
    (_R + "explore:ExploreResult", "json"): _JSON + "explain:ExplainJson.explore",
    (_R + "explore:CompileFailure", "json"): _JSON + "explain:ExplainJson.explore_failure",
}


def _name(result_type: type) -> str:
    return f"{result_type.__module__}:{result_type.__qualname__}"


class _Renderers(Mapping):
    """The table as (result type, format) -> renderer: a result type is imported only when the table
    is walked whole (tests, docs), never to draw one result."""

    def __getitem__(self, key: tuple[type, Format]) -> str:
        result_type, fmt = key
        return _ROWS[(_name(result_type), fmt)]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and len(key) == 2 and (_name(key[0]), key[1]) in _ROWS

    def __iter__(self) -> Iterator[tuple[type, Format]]:
        for name, fmt in _ROWS:
            module, _, cls = name.partition(":")
            yield getattr(importlib.import_module(module), cls), fmt

    def __len__(self) -> int:
        return len(_ROWS)


RENDERERS: Mapping[tuple[type, Format], str] = _Renderers()


def _row(result_type: type, fmt: Format) -> tuple[str, str, str | None]:
    """(module, class, part) of the renderer that draws `result_type` in `fmt`; a missing row is a
    bug, said as one."""
    try:
        module, name = RENDERERS[(result_type, fmt)].split(":")
    except KeyError:
        raise TypeError(f"no {fmt} renderer for {result_type.__name__}: add it to render/registry.py") from None
    name, _, part = name.partition(".")
    return module, name, part or None


def renderer_class(result_type: type, fmt: Format) -> type:
    """The class that draws `result_type` in `fmt`."""
    module, name, _ = _row(result_type, fmt)
    return getattr(importlib.import_module(module), name)


def part(result_type: type, fmt: Format) -> str:
    """The part (a method's name) of a renderer of several result types that draws this one: how
    the JSON renderers and HtmlReport find, through this table, what to draw for a result."""
    found = _row(result_type, fmt)[2]
    if found is None:
        raise TypeError(f"the {fmt} renderer of {result_type.__name__} names no part in render/registry.py")
    return found


def renderer(result_type: type, fmt: Format, width: int = 80, color: bool = False, **options: Any) -> Any:
    """A renderer ready to use: a terminal view at this width and colour, with its view options
    (--wrap, --side-by-side ...); other formats take only the options they know."""
    cls = renderer_class(result_type, fmt)
    if fmt == "terminal":
        from .terminal.base import Terminal

        return cls(Terminal(width, color), **options)
    return cls(**{name: value for name, value in options.items() if name in _OPTIONS.get(fmt, ())})


def render(
    result: Any, fmt: Format, width: int = 80, color: bool = False, **options: Any
) -> str | bytes | dict[str, bytes]:
    """A result in a format: terminal text, a JSON document, an HTML page (str); a plot (bytes); a
    dump's files (name -> bytes). For every front end: the command line, the explorer, the MCP server."""
    return renderer(type(result), fmt, width, color, **options).render(result)


# The options each non-terminal format takes; a view's options mean nothing to them.
_OPTIONS: dict[str, tuple[str, ...]] = {
    "json": ("full",),
    "html": ("keep_loc",),
    "plot": ("path",),
    "script": ("module", "keep"),
    "vllm": ("size", "fixed"),
}
