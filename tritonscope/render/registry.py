"""The one place a result meets its renderer: (result type, format) -> renderer.

Every way out goes through here: the command wrapper (cli/app.py) for the terminal, `--json` and the
files a command names, and any other front end through `render(result, fmt, **options)`. A new
output format is one renderer module plus its rows here; a new command's result is one row per
format it is shown in. Renderers are named as "module:Class" and imported only when asked for, so
`dump --json` never imports rich or Pygments. A renderer that draws several result types (JSON,
HTML) is named with the part that draws this one, "module:Class.part": the row is its one dispatch.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from ..results.bench import BenchResult, ReleaseTimings, ReplayResult
from ..results.cache import CacheListing
from ..results.captures import CaptureDiffResult
from ..results.catalog import EnvsListing, KernelList, SamplesResult
from ..results.check import CheckResult
from ..results.diff import DiffResult
from ..results.dump import CompareResult, DumpResult
from ..results.explain import ExplainResult, ProfileResult, ReportResult
from ..results.fit import FitResult
from ..results.grid import GridResult
from ..results.layout import LayoutListResult, LayoutResult, SharedLayoutResult
from ..results.passes import PassesComparison, PassesResult
from ..results.space import SpaceResult
from ..results.trace import ReproduceResult, TraceResult

Format = Literal["terminal", "json", "html", "files", "junit", "plot", "script"]

_JSON = "tritonscope.render.json:JsonRenderer."
_HTML = "tritonscope.render.html:HtmlReport."
_VIEWS = "tritonscope.render.terminal."

RENDERERS: dict[tuple[type, Format], str] = {
    (SamplesResult, "terminal"): _VIEWS + "samples:SamplesView",
    (KernelList, "terminal"): _VIEWS + "listing:ListingView",
    (DumpResult, "terminal"): _VIEWS + "dump:DumpView",
    (DumpResult, "html"): _HTML + "dump",
    (DumpResult, "files"): "tritonscope.render.files:FilesRenderer",
    (CompareResult, "terminal"): _VIEWS + "compare:CompareView",
    (DiffResult, "terminal"): _VIEWS + "diff:DiffView",
    (DiffResult, "html"): _HTML + "diff",
    (PassesResult, "terminal"): _VIEWS + "passes:PassesView",
    (PassesResult, "html"): _HTML + "passes",
    (PassesComparison, "terminal"): _VIEWS + "passes:PassesComparisonView",
    (EnvsListing, "terminal"): _VIEWS + "envs:EnvsView",
    (GridResult, "terminal"): _VIEWS + "grid:GridView",
    (LayoutResult, "terminal"): _VIEWS + "layout:LayoutView",
    (LayoutListResult, "terminal"): _VIEWS + "layout:LayoutListView",
    (SharedLayoutResult, "terminal"): _VIEWS + "layout:SharedLayoutView",
    (BenchResult, "terminal"): _VIEWS + "bench:BenchView",
    (BenchResult, "plot"): "tritonscope.render.plot:PlotRenderer",
    (ReplayResult, "terminal"): _VIEWS + "replay:ReplayView",
    (CacheListing, "terminal"): _VIEWS + "cache:CacheView",
    (ExplainResult, "terminal"): _VIEWS + "explain:ExplainView",
    (ReportResult, "html"): _HTML + "report",
    (ProfileResult, "terminal"): _VIEWS + "profile:ProfileView",
    (CheckResult, "terminal"): _VIEWS + "check:CheckView",
    (CheckResult, "junit"): "tritonscope.render.junit:JunitReport",
    (CaptureDiffResult, "terminal"): _VIEWS + "captures:CaptureDiffView",
    (ReleaseTimings, "terminal"): _VIEWS + "bench_releases:ReleaseTimingsView",
    (SpaceResult, "terminal"): _VIEWS + "space:SpaceView",
    (ReproduceResult, "script"): "tritonscope.render.script:ScriptRenderer",
    (FitResult, "terminal"): _VIEWS + "fit:FitView",
    (FitResult, "script"): "tritonscope.render.prune:PruneRenderer",  # fit --emit-prune: the pruner module
    # Every result but a page and a script has a JSON document (docs/json-schema.md), drawn by the
    # part of render/json.py named here.
    (SamplesResult, "json"): _JSON + "samples",
    (KernelList, "json"): _JSON + "kernel_list",
    (DumpResult, "json"): _JSON + "dump",
    (CompareResult, "json"): _JSON + "dump",
    (DiffResult, "json"): _JSON + "diff",
    (PassesResult, "json"): _JSON + "passes",
    (PassesComparison, "json"): _JSON + "passes_compare",
    (EnvsListing, "json"): _JSON + "envs",
    (TraceResult, "json"): _JSON + "trace",
    (GridResult, "json"): _JSON + "grid",
    (LayoutResult, "json"): _JSON + "layout",
    (LayoutListResult, "json"): _JSON + "layout_list",
    (SharedLayoutResult, "json"): _JSON + "shared_layout",
    (BenchResult, "json"): _JSON + "bench",
    (ReplayResult, "json"): _JSON + "replay",
    (CacheListing, "json"): _JSON + "cache",
    (ExplainResult, "json"): _JSON + "explain",
    (ProfileResult, "json"): _JSON + "profile",
    (CheckResult, "json"): _JSON + "check",
    (CaptureDiffResult, "json"): _JSON + "capture_diff",
    (SpaceResult, "json"): _JSON + "space",
    (ReleaseTimings, "json"): _JSON + "release_timings",
    (FitResult, "json"): _JSON + "fit",
}


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
    JsonRenderer and HtmlReport find, through this table, what to draw for a result."""
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
_OPTIONS: dict[str, tuple[str, ...]] = {"json": ("full",), "html": ("keep_loc",), "plot": ("path",)}
