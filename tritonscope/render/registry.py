"""The one place a result meets its renderer: (result type, format) -> renderer.

A new output format is one renderer module plus its rows here; a new command's result is one
row per format it is shown in. Renderers are named as "module:Class" and imported only when
asked for, so `dump --json` never imports rich or Pygments.
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
from ..results.grid import GridResult
from ..results.layout import LayoutListResult, LayoutResult, SharedLayoutResult
from ..results.passes import PassesComparison, PassesResult
from ..results.space import SpaceResult
from ..results.trace import TraceResult

Format = Literal["terminal", "json", "html", "files", "junit"]

_JSON = "tritonscope.render.json:JsonRenderer"
_HTML = "tritonscope.render.html:HtmlReport"
_VIEWS = "tritonscope.render.terminal."

RENDERERS: dict[tuple[type, Format], str] = {
    (SamplesResult, "terminal"): _VIEWS + "samples:SamplesView",
    (KernelList, "terminal"): _VIEWS + "listing:ListingView",
    (DumpResult, "terminal"): _VIEWS + "dump:DumpView",
    (DumpResult, "html"): _HTML,
    (DumpResult, "files"): "tritonscope.render.files:FilesRenderer",
    (CompareResult, "terminal"): _VIEWS + "compare:CompareView",
    (DiffResult, "terminal"): _VIEWS + "diff:DiffView",
    (DiffResult, "html"): _HTML,
    (PassesResult, "terminal"): _VIEWS + "passes:PassesView",
    (PassesResult, "html"): _HTML,
    (PassesComparison, "terminal"): _VIEWS + "passes:PassesComparisonView",
    (EnvsListing, "terminal"): _VIEWS + "envs:EnvsView",
    (GridResult, "terminal"): _VIEWS + "grid:GridView",
    (LayoutResult, "terminal"): _VIEWS + "layout:LayoutView",
    (LayoutListResult, "terminal"): _VIEWS + "layout:LayoutListView",
    (SharedLayoutResult, "terminal"): _VIEWS + "layout:SharedLayoutView",
    (BenchResult, "terminal"): _VIEWS + "bench:BenchView",
    (ReplayResult, "terminal"): _VIEWS + "replay:ReplayView",
    (CacheListing, "terminal"): _VIEWS + "cache:CacheView",
    (ExplainResult, "terminal"): _VIEWS + "explain:ExplainView",
    (ReportResult, "html"): _HTML,
    (ProfileResult, "terminal"): _VIEWS + "profile:ProfileView",
    (CheckResult, "terminal"): _VIEWS + "check:CheckView",
    (CheckResult, "junit"): "tritonscope.render.junit:JunitReport",
    (CaptureDiffResult, "terminal"): _VIEWS + "captures:CaptureDiffView",
    (ReleaseTimings, "terminal"): _VIEWS + "bench_releases:ReleaseTimingsView",
    (SpaceResult, "terminal"): _VIEWS + "space:SpaceView",
}
# Every result has a JSON document (render/json.py, docs/json-schema.md).
RENDERERS.update(
    {
        (kind, "json"): _JSON
        for kind in (
            SamplesResult,
            KernelList,
            DumpResult,
            CompareResult,
            DiffResult,
            PassesResult,
            PassesComparison,
            EnvsListing,
            TraceResult,
            GridResult,
            LayoutResult,
            LayoutListResult,
            SharedLayoutResult,
            BenchResult,
            ReplayResult,
            CacheListing,
            ExplainResult,
            ProfileResult,
            CheckResult,
            CaptureDiffResult,
            SpaceResult,
            ReleaseTimings,
        )
    }
)


def renderer_class(result_type: type, fmt: Format) -> type:
    """The class that draws `result_type` in `fmt`; a missing row is a bug, said as one."""
    try:
        module, name = RENDERERS[(result_type, fmt)].split(":")
    except KeyError:
        raise TypeError(f"no {fmt} renderer for {result_type.__name__}: add it to render/registry.py") from None
    return getattr(importlib.import_module(module), name)


def renderer(result_type: type, fmt: Format, width: int = 80, color: bool = False, **options: Any) -> Any:
    """A renderer ready to use: a terminal view at this width and colour, with its view options
    (--wrap, --side-by-side ...); other formats take only the options they know."""
    cls = renderer_class(result_type, fmt)
    if fmt == "terminal":
        from .terminal.base import Terminal

        return cls(Terminal(width, color), **options)
    return cls(**{name: value for name, value in options.items() if name in _OPTIONS.get(fmt, ())})


# The options each non-terminal format takes; a view's options mean nothing to them.
_OPTIONS: dict[str, tuple[str, ...]] = {"json": ("full",), "html": ("keep_loc",)}
