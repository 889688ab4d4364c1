"""`tritonscope explain`: why is this kernel slow? Cost per Python line, then findings.

One compile (or a cached kernel), the cost of each Python line read off the line map and the
machine code, nvdisasm's register life ranges where it can give them, and the findings of
analysis/findings/ (`examine` reads what they need beside the compilation; profile, check,
diff --space and the captures' summaries take the same path). A finding whose suggestion is a
different request (another --maxnreg, num_stages, argument value...) is checked by compiling
that request: at most MAX_WHAT_IFS of them, each compiled once however many findings share it.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import replace
from typing import Any

from ..analysis import cost, findings
from ..analysis.compile_time import line_growth as compile_time_lines
from ..analysis.cost import LineCost
from ..analysis.findings import Finding, Input, Kernel, WhatIf
from ..core.errors import TritonscopeError
from ..core.launch_grid import GridSpec
from ..core.model import Compilation, VariantRequest
from ..core.quantities import count, percentage, size
from ..core.source import CachedKernel
from ..core.stages import Stage
from ..results.explain import ExplainResult, ReportResult
from . import launch
from .walk.prepare import compile_prepared, compile_request, prepare
from .walk.releases import in_release

MAX_WHAT_IFS = 4


@in_release
def explain(
    request: VariantRequest,
    what_if: bool = True,
    live: bool = True,
    compile_time: bool = False,
    grid: GridSpec | None = None,
) -> ExplainResult:
    """The explanation; with `compile_time`, the kernel compiled afresh (so Triton's timers run)
    and the operations each Python line has at each IR level, the findings' what-ifs left out.
    The whole launch's time is for `grid`, else the captured launch's or the file's grid hook's."""
    if compile_time:
        with _always_compile():
            compilation = compile_request(request)
        result = explain_compilation(compilation, None, live)
        return replace(result, growth=compile_time_lines(compilation))
    module = None
    if isinstance(request.source, CachedKernel):
        compilation = compile_request(request)
    else:
        prepared = prepare(request)
        compilation, module = compile_prepared(prepared), prepared.module
    return explain_compilation(compilation, request if what_if else None, live, grid, module)


@contextlib.contextmanager
def _always_compile():
    """Triton compiles even what its cache holds: a kernel read back has no stage times."""
    previous = os.environ.get("TRITON_ALWAYS_COMPILE")
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["TRITON_ALWAYS_COMPILE"]
        else:
            os.environ["TRITON_ALWAYS_COMPILE"] = previous


@in_release
def report(request: VariantRequest, stages: tuple[Stage, ...] | None) -> ReportResult:
    """`report`: the stages asked for (all by default) and explain's result, what-ifs compiled."""
    from .dump import dump

    shown = dump(request, stages, None)
    return ReportResult(explain_compilation(shown.compilation, request), shown.stages)


def explain_compilation(
    compilation: Compilation,
    request: VariantRequest | None = None,
    live: bool = True,
    grid: GridSpec | None = None,
    module: Any = None,
) -> ExplainResult:
    """The explanation of a compilation; with its `request`, the what-ifs are compiled too; the launch's
    time where its grid is known (app/launch.py)."""
    # once: a grid hook runs once, and a refused --grid is said before any what-if compiles
    resolved = launch.grid_for(compilation.variant, grid, module, compilation.launches)
    kernel = examine(compilation, live, launch.axes(resolved))
    found, notes = findings.find(kernel)
    if request is not None and not isinstance(request.source, CachedKernel):
        found = verified(request, found, compilation)
    estimate, why = launch.estimate(compilation, resolved, kernel.time) if kernel.time else (None, None)
    found = tuple(_for_the_launch(f, estimate) for f in found)
    return ExplainResult(
        compilation, kernel.lines, found, kernel.live_registers is not None, notes, time=kernel.time,
        launch=estimate, launch_note=why,
    )  # fmt: skip


def _for_the_launch(finding: Finding, estimate) -> Finding:
    """An occupancy finding where the launch's blocks are all resident at once already (one wave: 32
    blocks on 132 SMs): more blocks per SM would gain it nothing, and it says so."""
    if finding.kind != findings.OCCUPANCY or estimate is None or estimate.programs > estimate.slots:
        return finding
    resident = (
        f"; but this launch's {count(estimate.programs, 'block')} are all resident at once already (one wave "
        f"at {count(estimate.blocks_per_sm, 'block')} per SM on the {estimate.gpu}): more blocks per SM gain "
        "it nothing"
    )
    return replace(finding, suggestion=finding.suggestion + resident)


def examine(compilation: Compilation, live: bool = True, grid: tuple[int, int, int] | None = None) -> Kernel:
    """What the findings read: the compilation, and beside it the registers live on each line
    (`live`: nvdisasm's life ranges, NVIDIA) and the moves through shared memory with Gluon's
    bank-conflict counts; what cannot be read is said in the findings' notes."""
    unread: dict[Input, str] = {}
    live_map = _live_registers(compilation, unread) if live else None
    accesses = _shared_accesses(compilation, unread)
    return Kernel.of(compilation, live_map, accesses, unread, grid)


def _shared_accesses(c: Compilation, unread: dict[Input, str]) -> tuple:
    """Each move through shared memory with Gluon's bank-conflict count (a worker runs Triton's), when
    the TTGIR has any: a Gluon kernel's or a Triton kernel's that the compiler staged."""
    ttgir = c.stages.get(Stage.TTGIR, "")
    if "ttg.local_load" not in ttgir and "ttg.local_store" not in ttgir:
        return ()
    from .layout import listing

    try:
        return listing(c, timeout=60.0).accesses
    except TritonscopeError as exc:  # a Triton without Gluon's layout readers: the other findings stand
        unread[Input.SHARED_ACCESSES] = exc.message
        return ()


def _live_registers(c: Compilation, unread: dict[Input, str]) -> dict[int, int] | None:
    """Registers live at each SASS line (NVIDIA only), or None (with why, where it could be read)."""
    if Stage.SASS not in c.stages or not c.binary:
        return None
    from ..parsers.life_ranges import by_listing_line
    from ..triton_api.tools import live_registers

    try:
        live = live_registers(c.binary, c.variant.target_info.arch, c.stages.get(Stage.PTX))
        return by_listing_line(c.stages[Stage.SASS], live)
    except (TritonscopeError, OSError) as exc:
        unread[Input.LIVE_REGISTERS] = str(getattr(exc, "message", exc))
        return None


def verified(
    request: VariantRequest, found: tuple[Finding, ...], original: Compilation | None = None
) -> tuple[Finding, ...]:
    """Each finding with its what-if compiled and said, the first MAX_WHAT_IFS distinct ones; one
    whose code comes out as the original's says that its change did not reach the code."""
    outcomes: dict[tuple[WhatIf, ...], Compilation | str] = {}
    for finding in found:
        if finding.what_if and finding.what_if not in outcomes and len(outcomes) < MAX_WHAT_IFS:
            try:
                outcomes[finding.what_if] = compile_request(changed(request, finding.what_if))
            except TritonscopeError as exc:
                outcomes[finding.what_if] = exc.message
    same = {w: _unchanged(w, outcome, original) for w, outcome in outcomes.items()} if original is not None else {}
    return tuple(
        _disproved(
            replace(f, verified=describe(f, outcomes[f.what_if]) + same.get(f.what_if, "")),
            outcomes[f.what_if],
            original,
        )
        if f.what_if in outcomes
        else f
        for f in found
    )


def _disproved(finding: Finding, outcome: Compilation | str, original: Compilation | None) -> Finding:
    """A finding its what-if did not bear out, its advice withdrawn: a narrow access left as narrow (the
    cause named is not what keeps it so: fla's gather `g + o_t * HV` stays 32 bits however T is
    specialized), a conversion for a narrow access that its hints leave in place, a register cap the code
    does not fit in (it spills)."""
    if finding.kind == findings.SPILLS and original is not None and _more_warps(finding):
        said = _no_fewer_spills(outcome, original)
        if said:
            return replace(finding, suggestion=f"make the BLOCK sizes smaller: more warps do not help ({said})")
    if finding.kind == findings.OCCUPANCY and original is not None and not isinstance(outcome, str):
        spilled = outcome.resources.spills - original.resources.spills
        if spilled > 0 and any(name == "maxnreg" for _, name, _ in finding.what_if):
            return replace(
                finding,
                suggestion=f"not a register cap: the code does not fit in it ({count(spilled, 'spill')} more, "
                "compiled below); fewer live values instead: smaller BLOCK sizes",
            )
    if finding.kind == findings.CONVERSION and finding.line is not None and not isinstance(outcome, str):
        kept_line = _line_cost(outcome, finding.line)
        if kept_line is None or not kept_line.shared_conversion_bytes:
            return finding
        kept = (
            "the hints of this line's narrow access leave the conversion (compiled below); once per tile, the "
            "round trip is usually worth it"
        )
        return replace(finding, suggestion=kept)
    if finding.kind != findings.NARROW or finding.line is None or original is None or isinstance(outcome, str):
        return finding
    after = findings.narrowest(_line_cost(outcome, finding.line))
    if after is None or after != findings.narrowest(_line_cost(original, finding.line)):
        return _occupancy_cost(finding, outcome, original)  # widened, if only part of the way: the advice stands
    return replace(
        finding,
        suggestion="none that the what-if bears out: made as advised, the accesses stay as narrow, so something "
        "else keeps them so (a thread's elements apart in memory: a gather or a stride; or the layout)"
        + _other_gain(original, outcome),
    )


def _occupancy_cost(finding: Finding, outcome: Compilation, original: Compilation) -> Finding:
    """Advice borne out at a cost the what-if shows: fewer warps that widen a small vector's load but
    take the kernel from 62.5% to 37.5% occupancy (h24a: a bias of 256 bytes, 1% of the time) said so."""
    before, after = original.resources.occupancy.percent, outcome.resources.occupancy.percent
    if after >= before:
        return finding
    cost = (
        f"; made so (compiled below), the kernel's occupancy falls from {percentage(before)} to {percentage(after)}: "
        "worth it only where this line's time is much of the kernel's"
    )
    return replace(finding, suggestion=finding.suggestion + cost)


def _more_warps(finding: Finding) -> bool:
    return any(name == "num_warps" for _, name, _ in finding.what_if)


def _no_fewer_spills(outcome: Compilation | str, original: Compilation) -> str:
    """Why twice the warps, compiled, did not bear out the spills' advice ("" where it did): the compile
    failed (ptxas: too few registers a thread for the tile: h24a, a 256x256 fp32 accumulator at 512
    threads), or the spills stayed or grew (8 to 24)."""
    if isinstance(outcome, str):
        return "compiled below, the compile fails"
    before, after = original.resources.spills, outcome.resources.spills
    if after < before:
        return ""
    grew = "as many" if after == before else f"{after}, against {before}"
    return f"compiled below, the spills are {grew}"


def _other_gain(original: Compilation, outcome: Compilation) -> str:
    """`; it did raise occupancy from 12.5% to 25% (146 to 127 registers)`, where a what-if that missed its
    aim gained resident warps all the same (fla's chunk_o with T specialized): worth it for that."""
    before, after = original.resources, outcome.resources
    if before is None or after is None or before.occupancy is None or after.occupancy is None:
        return ""
    if after.occupancy.percent <= before.occupancy.percent:
        return ""
    return (
        f"; it did raise occupancy from {before.occupancy.percent:.3g}% to {after.occupancy.percent:.3g}% "
        f"({before.registers} to {after.registers} registers), which may be worth it for that"
    )


def _unchanged(what_if: tuple[WhatIf, ...], outcome: Compilation | str, original: Compilation) -> str:
    """`; the same code as before ...` where the what-if compiled to the original's binary: its change
    did not reach the code (a loop's own `tl.range(..., num_stages=N)` outranks the kernel's)."""
    if isinstance(outcome, str) or not outcome.binary or outcome.binary != original.binary:
        return ""
    said = "; the same code as before: the change does not reach it"
    if any(name == "num_stages" for _, name, _ in what_if):
        loops = re.findall(r"tl\.range\([^)]*num_stages\s*=\s*\d+", original.kernel.source)
        if loops:
            said += f" (a loop's own `{loops[0]})` outranks the kernel's num_stages: lower that instead)"
    return said


def changed(request: VariantRequest, what_if: tuple[WhatIf, ...]) -> VariantRequest:
    """The request with a finding's changes made."""
    for what, name, value in what_if:
        if what == "option":
            request = replace(request, **{name: value})
        elif what == "decorator":
            request = replace(request, dropped_from_decorator=(*request.dropped_from_decorator, (name, value)))
        else:
            request = request.with_value(name, value, constexpr=what == "constexpr")
    return request


def describe(finding: Finding, outcome: Compilation | str) -> str:
    """What compiling a finding's what-if gave, in the finding's own terms."""
    asked = findings.what_if_flags(finding.what_if)
    if isinstance(outcome, str):
        return f"{asked}: the compile fails ({_first_error(outcome)})"
    r = outcome.resources
    occ = r.occupancy
    text = (
        f"{asked}: {count(r.registers, 'register')}, {count(r.spills, 'spill')}, {size(r.shared_bytes)} shared, "
        f"occupancy {percentage(occ.percent)} ({count(occ.blocks_per_sm, 'block')})"
    )
    if finding.kind in (findings.NARROW, findings.UNCOALESCED) and finding.line is not None:
        line = _line_cost(outcome, finding.line)
        text += f"; line {finding.line}: {_widths(line)}" + (_widened(line) if finding.kind == findings.NARROW else "")
    if finding.kind == findings.CONVERSION and finding.line is not None:
        line = _line_cost(outcome, finding.line)
        moved = line.shared_conversion_bytes if line is not None else 0
        text += f"; line {finding.line}: " + (
            f"still {size(moved)} through shared memory" if moved else "no layout conversion through shared memory"
        )
    if finding.kind == findings.WARP_SPECIALIZE:
        lowered = "ttg.warp_specialize" in outcome.stages.get(Stage.TTGIR, "")
        text += "; lowered to warp-specialized partitions" if lowered else "; left unlowered for this target"
    if finding.kind == findings.SHARED_LIMIT:
        fits = r.launch_shared_bytes <= findings.shared_limit(outcome.variant.target_info)
        text += "; fits" if fits else "; still over the limit"
    return text


def _first_error(message: str) -> str:
    """A failed compile's message in one line: the tool's first error (`ptxas fatal : (C7602) Insufficient
    registers ...`) rather than Triton's wrapper and the PTX reproducer it prints after it."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    tool = next((m[1] for line in lines if (m := re.search(r"(ptxas\S*\s+(fatal|error)\s*:.*)", line))), None)
    said = tool or next(
        (line for line in lines[1:] if re.search(r"\b(fatal|error)\s*:", line)), lines[0] if lines else ""
    )
    return " ".join(said.split())


def _widened(line: LineCost | None) -> str:
    """Whether the what-if made the line's accesses 128 bits wide, as the advice meant it to."""
    if line is None or not findings.line_widths(line):
        return ""
    narrow = findings.narrowest(line)
    return ": the accesses widen to 128 bits" if narrow is None else f": still {narrow} bits, not 128"


def _line_cost(c: Compilation, line: int) -> LineCost | None:
    return next((x for x in cost.line_costs(c) if x.line == line), None)


def _widths(line: LineCost | None) -> str:
    if line is None:
        return "no global access"
    widths = findings.line_widths(line)
    return ", ".join(f"{n} x {w}-bit" for w, n in sorted(widths.items(), reverse=True)) or "no global access"
