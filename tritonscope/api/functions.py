"""The Python API's commands: each builds the request the command line builds (requests.py), asks the
session's warm worker for one task of app/calls.py (the same app function its command calls), and
returns the frozen result in a view with plain attributes (results.py).

    import tritonscope as ts
    r = ts.dump(add_kernel, BLOCK_SIZE=1024, args={"x_ptr": "*fp16"}, target="sm90")
    r.stages["ptx"], r.resources.registers, r.line(35), r.to_json()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..app import calls
from ..app.calls import answer_inputs
from ..core import forms, launch_grid
from ..core import targets as target_table
from ..core.errors import UsageError
from ..core.model import VariantRequest
from ..isolate import task
from . import results
from .requests import with_inputs
from .session import answer

Values = Mapping[str, Iterable[Any]]  # vary={"BLOCK_SIZE": [256, 1024]}


@with_inputs
def dump(
    request: VariantRequest,
    stages: Sequence[str] | str | None = None,
    line: int | None = None,
    lines: str | None = None,
    timeout: float = 300.0,
) -> results.Dump:
    """Compile a kernel (no GPU needed) and show every stage, with its resource figures.

    `stages` picks some (source, ttir, ttgir, llir, ptx, sass or amdgcn); `line=35` (or `lines="30-36"`)
    keeps what those Python lines became. Example: `ts.dump(add_kernel, BLOCK_SIZE=1024, target="sm90")`."""
    chosen, picked = forms.stages(stages, "stages"), forms.line_range(line, lines)
    value = answer(task(calls.dump, request, chosen, picked), timeout, answer_inputs(request.source))
    return results.Dump(value)


@with_inputs
def explain(
    request: VariantRequest, what_if: bool = True, grid: str | None = None, timeout: float = 300.0
) -> results.Explain:
    """What each Python line costs (instructions, memory traffic, live registers) and the findings, each
    with its evidence and what to try; `what_if` compiles the suggestions (up to 4 compiles); the whole
    launch's time for `grid` ("4096" or "cdiv(n_elements, BLOCK_SIZE)"), else the file's grid(meta).
    Example: `ts.explain("sample:vector_add", args={"n_elements": 4099}, target="sm90")`."""
    spec = launch_grid.parse(grid) if grid is not None else None
    value = answer(task(calls.explain, request, what_if, True, False, spec), timeout, answer_inputs(request.source))
    return results.Explain(value)


@with_inputs
def diff(
    request: VariantRequest,
    vary: Values | None = None,
    configs: bool = False,
    stages: Sequence[str] | str | None = None,
    timeout: float = 600.0,
) -> results.Diff:
    """Variants compiled side by side, each in a worker of its own, and the diff of each stage against
    the first. Example: `ts.diff(add_kernel, vary={"BLOCK_SIZE": [256, 1024]}, target="sm90")`."""
    axes = tuple(forms.typed_axes(vary))
    chosen = forms.stages(stages, "stages")
    value = answer(task(calls.diff, request, axes, configs, chosen, timeout), timeout, answer_inputs(request.source))
    return results.Diff(value)


@with_inputs
def passes(
    request: VariantRequest, show: str | None = None, vary: Values | None = None, timeout: float = 600.0
) -> results.Passes:
    """The compiler's MLIR passes in order, which changed the IR and how much; `show` names one (its
    number, name or NAME#K) to see what it changed; `vary` with two values compares two pipelines.
    Example: `ts.passes("sample:matmul", show="tritongpu-pipeline", target="sm90")`."""
    if vary and show is not None:  # as the command line refuses --show with --vary
        raise UsageError("show shows one pipeline's pass: leave out vary, or show")
    if vary:
        compared = task(calls.passes_compare, request, tuple(forms.typed_axes(vary)), timeout)
        return results.Passes(answer(compared, timeout, answer_inputs(request.source)))
    return results.Passes(answer(task(calls.passes, request, show, timeout), timeout, answer_inputs(request.source)))


@with_inputs(resolve_target=False)  # auto: every default target, as the command line
def fit(
    request: VariantRequest,
    targets: Sequence[str] | str | None = None,
    vary: Values | None = None,
    budgets: Sequence[str] | str = (),
    rank: bool = False,
    grid: str | None = None,
    timeout: float = 300.0,
) -> results.Fit:
    """Which autotune configs (or `vary`'s grid) fit which GPU: each compiled for each target, no GPU
    needed; `rank=True`: each launch's estimated time there (for `grid`, "cdiv(M, BLOCK_M) * ...",
    else the file's grid(meta)). Example: `ts.fit(matmul_kernel, targets=["sm89", "sm90"], rank=True)`."""
    chosen = _targets(targets) if targets is not None else None
    axes = tuple(forms.typed_axes(vary))
    given = (budgets,) if isinstance(budgets, str) else tuple(budgets)  # one budget as a str: not its letters
    call = task(calls.fit, request, chosen, axes, given, timeout, rank, grid)
    found = answer(call, timeout, answer_inputs(request.source))
    refused = found.refused_grid if grid else None
    if refused:  # a grid no cell could evaluate: the caller's to fix, as the command line refuses it
        raise UsageError(refused)
    return results.Fit(found)


@with_inputs
def layout(
    request: VariantRequest,
    value: str | None = None,
    line: int | None = None,
    shape: Sequence[int] | str | None = None,
    timeout: float = 120.0,
) -> results.Layout:
    """Which thread holds each element of a tensor (`value="acc"`, or the first one `line` makes); with
    neither, every layout the kernel uses. Example: `ts.layout("sample:softmax", value="row")`."""
    text = shape if isinstance(shape, str) or shape is None else "x".join(str(size) for size in shape)
    call = task(calls.layout, request, value, line, text, timeout)
    return results.Layout(answer(call, timeout, answer_inputs(request.source)))


@with_inputs
def grid(
    request: VariantRequest, grid_size: Sequence[int] | None = None, wave: int | None = None, timeout: float = 120.0
) -> results.Grid:
    """Which program writes which part of the output, and what it reads: the kernel's own index
    arithmetic run on Triton's interpreter (scalar arguments need values). Example:
    `ts.grid("sample:matmul", args={"M": 1152, "N": 1152, "K": 1152}, wave=9)`."""
    size = forms.sizes(",".join(str(n) for n in grid_size), "grid_size", ",") if grid_size else None
    call = task(calls.grid, request, size, wave, timeout)
    return results.Grid(answer(call, timeout, answer_inputs(request.source)))


def _targets(given: Sequence[str] | str) -> tuple[str, ...]:
    names = given.split(",") if isinstance(given, str) else list(given)  # "sm80,sm90" as the command line
    found = tuple(dict.fromkeys(target_table.parse_name(str(name).strip()) for name in names))
    if not found or "auto" in found:
        raise UsageError(f"targets: name them (auto is one machine's GPU). Targets: {', '.join(target_table.TARGETS)}")
    return found
