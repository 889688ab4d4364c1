"""`tritonscope layout`: which thread holds each element of a tensor in a TTGIR layout.

The layout comes from text, or from a real compilation's TTGIR (a value's name or a
Python line). Triton's own conversion runs in an isolated worker: it aborts the process on
layouts that do not fit the shape, which must cost the user a message, not tritonscope.
"""

from __future__ import annotations

import re

from ..analysis import layouts, linemap
from ..core.errors import UsageError
from ..core.model import Compilation, VariantRequest
from ..core.stages import Stage
from ..isolate import Task, Workers
from ..results.layout import LayoutResult
from .prepare import compile_request

MAX_ELEMENTS = 1 << 20  # a drawing of more elements than this is unreadable and slow to compute


def layout(
    text: str | None,
    shape: tuple[int, ...] | None,
    request: VariantRequest | None,
    value: str | None,
    line: int | None,
    timeout: float,
) -> LayoutResult:
    if (text is None) == (request is None):
        raise UsageError("give a LAYOUT, or --from FILE with --value NAME or --line N")
    origin = None
    if text is not None:
        chosen, found_shape = layouts.parse(text), None
    else:
        chosen, found_shape, origin = _from_kernel(request, value, line)
    size = shape or found_shape
    if size is None:
        raise UsageError("--shape is needed with a LAYOUT, e.g. --shape 64x64")
    _check_fits(chosen, size)
    task = Task("tritonscope.triton_api.layouts:linear_layout", (chosen, list(size)))
    with Workers(timeout=timeout) as workers:
        outcome = workers.run([task])[0]
    if not outcome.ok and outcome.exit_code == 1:  # Triton aborted on it
        raise UsageError(f"Triton cannot lay {chosen.text[:60]}... over {'x'.join(map(str, size))}: {outcome.error}")
    return LayoutResult(chosen, layouts.ownership(outcome.unwrap(), size), origin)


def _check_fits(chosen: layouts.Layout, shape: tuple[int, ...]) -> None:
    """What Triton asserts on (and aborts the process for), checked first with a clear message."""
    elements = 1
    for size in shape:
        elements *= size
    if elements > MAX_ELEMENTS:
        raise UsageError(f"--shape {'x'.join(map(str, shape))} is {elements:,} elements; at most {MAX_ELEMENTS:,}")
    problem = layouts.field_problem(chosen)
    if problem:
        raise UsageError(f"the layout {chosen.text[:60]}...: {problem}")
    rank = layouts.rank(chosen)
    if rank is not None and rank != len(shape):
        raise UsageError(
            f"the layout is {rank}-D but --shape {'x'.join(map(str, shape))} is {len(shape)}-D",
            hint=f"give a {rank}-D shape, e.g. --shape {'x'.join(['64'] * rank)}",
        )


def _from_kernel(request: VariantRequest, value: str | None, line: int | None):
    """(layout, shape, where it came from) of a value in a real compilation's TTGIR."""
    if (value is None) == (line is None):
        raise UsageError("with --from, give --value NAME or --line N")
    compilation = compile_request(request)
    ttgir = compilation.stages[Stage.TTGIR].splitlines()
    candidates, what = _candidates(compilation, ttgir, value, line)
    for number in candidates:
        found = layouts.tensor_type(ttgir[number - 1])
        if found:
            shape, layout_text = found
            aliases = layouts.aliases_of(compilation.stages[Stage.TTGIR])
            origin = f"{what}, TTGIR line {number}: {ttgir[number - 1].strip()[:120]}"
            return layouts.parse(layout_text, aliases), shape, origin
    raise UsageError(f"no tensor with a layout for {what} in the TTGIR of {compilation.kernel.name}")


def _candidates(compilation: Compilation, ttgir: list[str], value: str | None, line: int | None):
    if value is not None:
        pattern = re.compile(rf"^\s*%{re.escape(value.lstrip('%'))}(_\d+)?(:\d+)?\s*=")
        return [n for n, text in enumerate(ttgir, start=1) if pattern.match(text)], f"value %{value.lstrip('%')}"
    wanted = linemap.requested_lines(compilation, (line, line))
    return sorted(linemap.stage_lines(compilation, Stage.TTGIR, set(wanted))), f"Python line {line}"
