"""What the Python API returns: each command's frozen result (`.result`, the one every front end gets)
in a view with plain attributes, its `--json` document (`to_json()`), a one-line `repr` for the REPL
and a rich view in Jupyter (`_repr_html_`), both drawn by render/notebook.py through the registry.

    r = ts.dump(kernel, ...)
    r.stages["ptx"]          # a stage's text, as Triton wrote it
    r.resources.registers    # registers per thread (and spills, shared_bytes, occupancy ...)
    r.line(35)               # what Python line 35 became, stage by stage
"""

from __future__ import annotations

import json
import linecache
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..analysis import normalize
from ..core.errors import TritonscopeError, UsageError
from ..core.model import Compilation, KernelSpec, Resources, Variant
from ..core.source import cell_label, cells_named
from ..core.stages import Stage
from ..render.registry import render
from ..results.diff import DiffResult
from ..results.dump import DumpResult
from ..results.explain import ExplainResult
from ..results.trace import TraceResult


class Result:
    """A command's result as the API gives it. `result` is the frozen result itself."""

    keywords: tuple[str, ...] = ()  # the function's keywords its views' hints name (fit's `grid`)

    def __init__(self, result: Any):
        self.result = result
        self.in_flags = False  # the magic's result: its views say the command line's flags, as it takes them

    def to_json(self) -> dict[str, Any]:
        """The `--json` document of the same command (docs/json-schema.md), as a dict."""
        return json.loads(str(render(self.result, "json")))

    def __repr__(self) -> str:
        from ..core.source import cells_named
        from .requests import in_api_terms

        said = cells_named(str(render(self.result, "summary")))  # a notebook's cell as IPython names it
        return said if self.in_flags else in_api_terms(said, self.keywords)  # `grid="X, Y, Z"`, not --grid

    def _repr_html_(self) -> str:
        from .requests import in_api_html

        drawn = str(render(self.result, "notebook"))
        return drawn if self.in_flags else in_api_html(drawn, self.keywords)


class Compiled(Result):
    """One compilation: `dump`'s, and `explain`'s, whose result holds it too."""

    @property
    def compilation(self) -> Compilation:
        return self.result.compilation

    @property
    def kernel(self) -> KernelSpec:
        """The kernel: name, file (a notebook cell's file name for a kernel defined in one), lines, source."""
        return self.compilation.kernel

    @property
    def variant(self) -> Variant:
        """What was compiled: target, constexprs, signature, options; `command_line()` says it as flags."""
        return self.compilation.variant

    @property
    def reproduce(self) -> str:
        """The command line that compiles this variant again, as the view's `reproduce` row says it: for a
        kernel defined in a notebook cell (whose file is not on the disk; `variant.command_line()` names
        it all the same), the cells to save as kernel.py first."""
        from ..render.html_facts import reproduce

        return reproduce(self.compilation)

    @property
    def stages(self) -> Mapping[str, str]:
        """Each stage's text by its name (source, ttir, ttgir, llir, ptx, sass or amdgcn)."""
        return {stage.value: text for stage, text in self.compilation.stages.items()}

    @property
    def resources(self) -> Resources:
        """registers, spills, shared_bytes, local_bytes, occupancy (.percent, .limited_by), instructions."""
        return self.compilation.resources

    @property
    def notices(self) -> tuple[str, ...]:
        return self.compilation.notices

    def line(self, number: int, file: str | None = None) -> dict[str, list[str]]:
        """What Python line `number` of the kernel's file (or cell) became: each stage's lines from it,
        location noise taken off; the source's own line under "source". `file`: a line of a helper's
        file (or cell) instead, as the stages' locations name it, or by its base name, a relative path
        or `Cell In[4]`. A line no stage names that is outside the kernel is refused, with the lines
        that are (in one line, as the functions' errors are shown)."""
        from .requests import said

        try:
            if not isinstance(number, int) or isinstance(number, bool):
                raise UsageError(f"line({number!r}): a line number is an int, not a {type(number).__name__}")
            if file is not None and not isinstance(file, str):
                raise UsageError(f"line(..., {file!r}): the file is a str (a path, a base name or `Cell In[4]`)")
            return self._line(number, file)
        except TritonscopeError as exc:
            raise said(exc) from None

    def _line(self, number: int, file: str | None) -> dict[str, list[str]]:
        c = self.compilation
        named = self._file(file) if file is not None else c.kernel.file
        wanted = (named, number)
        found: dict[str, list[str]] = {}
        for stage, text in c.stages.items():
            if stage is Stage.SOURCE:
                found[stage.value] = self._source_line(named, number)
                continue
            from_line = {n for n, sources in c.line_map.get(stage, {}).items() if wanted in sources}
            found[stage.value] = [line for n, line in normalize.shown(stage, text, False) if n in from_line]
        inside = named == c.kernel.file and c.kernel.first_line <= number < c.kernel.first_line + len(
            c.kernel.source.splitlines()
        )
        if not inside and not any(lines for stage, lines in found.items() if stage != Stage.SOURCE.value):
            lines = sorted(n for f, n in self._named() if f == named)
            shown = f"lines {lines[0]}-{lines[-1]}" if lines else "no line"
            where = cells_named(named)
            raise UsageError(
                f"line {number} of {where} made no code, and is outside the kernel: its stages name {shown}"
            )
        return found

    def _named(self) -> set[tuple[str, int]]:
        """Every (file, line) the stages' locations name."""
        return {
            where for lines in self.compilation.line_map.values() for sources in lines.values() for where in sources
        }

    def _file(self, given: str) -> str:
        """A file as the stages' locations name it, from its name, a relative path or `Cell In[4]`."""
        files = sorted({f for f, _ in self._named()})
        if given in files:
            return given
        cells = {cell_label(f, 1).partition(",")[0]: f for f in files}
        absolute = os.path.abspath(given)
        matches = [f for f in files if f == absolute or os.path.basename(f) == given]
        matches += [cells[given]] if given in cells else []
        if len(set(matches)) == 1:
            return matches[0]
        named = ", ".join(cells_named(f) for f in files)
        raise UsageError(f"{given}: not one of the files the stages name: {named}")

    def _source_line(self, file: str, number: int) -> list[str]:
        c = self.compilation
        if file == c.kernel.file:
            offset = number - c.kernel.first_line
            source = c.kernel.source.splitlines()
            return [source[offset]] if 0 <= offset < len(source) else []
        text = linecache.getline(file, number)  # a helper's file, or its cell's lines (IPython keeps them)
        return [text.rstrip("\n")] if text else []


class Dump(Compiled):
    """`ts.dump`: one compilation's stages. `shown` are the stages asked for."""

    result: DumpResult

    @property
    def shown(self) -> tuple[str, ...]:
        return tuple(stage.value for stage in self.result.stages)


class Explain(Compiled):
    """`ts.explain`: what each Python line costs, and the findings."""

    result: ExplainResult
    keywords = ("grid",)

    @property
    def lines(self) -> tuple[Any, ...]:
        """Each Python line that made machine code: .line, .code, .instructions (.total, .global_loads ...),
        .live_registers, .conversions."""
        return self.result.lines

    @property
    def findings(self) -> tuple[Any, ...]:
        """Each finding: .kind, .line, .message, .evidence, .suggestion, .verified (what compiling it gave),
        its words in the API's terms (`args={'n': 16}`, not `-a n=16`), as the notebook view says them."""
        from dataclasses import replace

        from .requests import in_api_terms

        return tuple(
            replace(f, message=in_api_terms(f.message), suggestion=in_api_terms(f.suggestion),
                    verified=in_api_terms(f.verified))
            for f in self.result.findings
        )  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    """One variant of a diff: its label (the values varied), and its compile or why it failed."""

    label: dict[str, str]
    error: str | None
    dump: Dump | None

    @property
    def ok(self) -> bool:
        return self.error is None


class Diff(Result):
    """`ts.diff`: variants compiled side by side."""

    result: DiffResult

    @property
    def variants(self) -> tuple[Outcome, ...]:
        return tuple(
            Outcome(o.label, o.error, Dump(DumpResult(c, tuple(c.stages))) if (c := o.compilation) else None)
            for o in self.result.outcomes
        )

    @property
    def diffs(self) -> dict[str, str]:
        """Each diffed stage's unified diff against the first variant ("" where nothing changed); with
        more than two variants, keyed `stage:N` for the Nth."""
        several = len(self.result.outcomes) > 2
        return {
            f"{d.stage.value}:{d.new}" if several else d.stage.value: "\n".join(text)
            for d, text in zip(self.result.diffs, self.result.unified, strict=True)
        }


class Passes(Result):
    """`ts.passes`: the pass pipeline (`passes`: each pass's .index, .name, .changed, .added, .removed);
    with `vary`, `result` compares two pipelines."""

    @property
    def passes(self) -> tuple[Any, ...]:
        return getattr(self.result, "records", ())


class Fit(Result):
    """`ts.fit`: `kernels`, each with .rows (configs), .targets and .cells[row][target] (.verdict, .reason)."""

    keywords = ("grid",)

    @property
    def kernels(self) -> tuple[Any, ...]:
        return self.result.kernels


class Layout(Result):
    """`ts.layout`: a tensor's layout drawn (`result.ownership`), or the kernel's layouts listed."""


class Grid(Result):
    """`ts.grid`: every program (.index, .pid, .loads, .stores) of a launch of `size`."""

    keywords = ("grid_size",)

    @property
    def programs(self) -> tuple[Any, ...]:
        return self.result.programs

    @property
    def size(self) -> tuple[int, ...]:
        return self.result.size


class Trace(Result):
    """`ts.trace`: a program's kernels captured into `folder`; `kernels` are their names, and each is
    `ts.dump(f"{folder}/:NAME")`, as the command line reads `DIR/:NAME`."""

    result: TraceResult

    @property
    def folder(self) -> str:
        return str(self.result.out)

    @property
    def kernels(self) -> tuple[str, ...]:
        return self.result.kernels
