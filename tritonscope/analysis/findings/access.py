"""Global memory accesses: narrower than 128 bits per thread (and why Triton could not make them
wider: an argument it knows no divisibility of, or the layout), and uncoalesced because a stride of 1
was not specialized."""

from __future__ import annotations

import math
import re

from ...core.quantities import count
from ...core.stages import Stage
from .. import ttgir
from ..cost import LineCost
from ..layouts import tensor_type
from .arguments import DNS, DNS_ALIGN, Unknown, decorator_line, hintable, unknown, value_of
from .kernel import Kernel
from .kinds import NARROW, UNCOALESCED
from .model import Cause, Finding, WhatIf


def line_widths(cost: LineCost) -> dict[int, int]:
    """Bits per thread -> count, of a line's global loads, stores and asynchronous copies."""
    widths: dict[int, int] = {}
    for counts in (cost.instructions.global_loads, cost.instructions.global_stores, cost.async_copy_widths):
        for width, n in counts.items():
            widths[width] = widths.get(width, 0) + n
    return widths


def narrowest(cost: LineCost | None) -> int | None:
    """The narrowest of a line's global accesses under 128 bits: the width a narrow-access finding names."""
    narrow = sorted(w for w in line_widths(cost) if w < 128) if cost else []
    return narrow[0] if narrow else None


def accesses(k: Kernel) -> dict[int, list[ttgir.Op]]:
    """Tensor loads, stores and async copies by their innermost kernel-file line."""
    found: dict[int, list[ttgir.Op]] = {}
    for op in k.module.ops:
        lines = k.lines_of(op)
        if op.name in ttgir.MEMORY_OPS and "tensor<" in op.text and lines:
            found.setdefault(lines[0], []).append(op)
    return found


_WHY = {
    "pointer": "that each thread's neighbouring elements are 16-byte aligned",
    "mask": "that each thread's neighbouring elements are all inside or all outside the mask",
}


def narrow(k: Kernel) -> list[Finding]:
    found = []
    strided = _strided(k)
    for line, ops in sorted(accesses(k).items()):
        cost = k.costs.get(line)
        width = narrowest(cost)
        if width is None or all(_tile_bits(op) < 128 for op in ops):  # a scalar's tile: nothing wider to ask
            continue
        widths = line_widths(cost) if cost else {}
        if line in strided:
            found.append(_strided_finding(k, line, width, widths, ops, strided[line]))
            continue
        causes: dict[tuple[str, str], Unknown] = {}  # (role, reason) -> the argument's part, or the layout's
        for op in ops:
            for role, cause in _causes(k, op, width):
                causes.setdefault((role, cause.reason), cause)
        what_if = tuple(dict.fromkeys(change for cause in causes.values() for change in cause.what_if))
        if not what_if and any(Cause.LAYOUT in c.causes for c in causes.values()):
            what_if = _fewer_warps(k)  # the layout's cause: compiled, not only said (h19a)
        counts = ", ".join(f"{n} x {w}-bit" for w, n in sorted(widths.items(), reverse=True))
        found.append(
            Finding(
                NARROW,
                line,
                f"global memory accesses of {width} bits per thread, not 128" + _because(list(causes)),
                f"{k.machine} on line {line}: {counts}; TTGIR: " + "; ".join(_layout_note(k, op) for op in ops),
                _narrow_advice(k, list(causes.values())),
                what_if=what_if,
            )
        )
    return found


def _strided(k: Kernel) -> dict[int, int]:
    """{kernel-file line: bytes between the elements of its one-dimensional accesses} where every one's
    lie further apart than an element (fla's cumsum, `s + o_t * H`): the first program evaluated with the
    values the variant gives (program_traffic.py); none where the TTIR is not there (Gluon)."""
    from .. import linemap, program_traffic, trip_counts
    from ..dram_granule import element_stride

    ttir = k.c.stages.get(Stage.TTIR)
    if not ttir:
        return {}
    strides: dict[int, list[int]] = {}
    for access in program_traffic.evaluate(ttir, (1, 1, 1), trip_counts.known_values(k.c)).accesses:
        line = linemap.kernel_line(k.c, Stage.TTIR, access.line)
        if line is not None:
            strides.setdefault(line, []).append(element_stride(access))
    # every access of the line strided: a line that also stores side by side keeps that store's causes
    return {line: max(found) for line, found in strides.items() if all(found)}


def _strided_finding(k: Kernel, line: int, width: int, widths: dict, ops: list, stride: int) -> Finding:
    """A narrow access whose elements lie apart in memory: no hint or layout widens it (the hints' advice
    was given, then withdrawn by its own what-if: h18a)."""
    counts = ", ".join(f"{n} x {w}-bit" for w, n in sorted(widths.items(), reverse=True))
    return Finding(
        NARROW,
        line,
        f"global memory accesses of {width} bits per thread, not 128: the elements a thread accesses lie "
        f"{stride} bytes apart in memory (a stride), so no hint and no layout can make them one wider access",
        f"{k.machine} on line {line}: {counts}; TTGIR: " + "; ".join(_layout_note(k, op) for op in ops),
        "access along the contiguous dimension instead: a 2-D tile whose inner dimension is the memory's "
        "rows (`rows[:, None] * stride + cols[None, :]`), or the data laid out so that these elements are "
        "side by side (a transposed copy made once)",
    )


def _fewer_warps(k: Kernel) -> tuple[WhatIf, ...]:
    """Half the warps, so that each thread holds twice the elements (none below one warp)."""
    warps = k.c.options.get("num_warps") or 4
    return (WhatIf("option", "num_warps", warps // 2),) if warps > 1 else ()


def _tile_bits(op: ttgir.Op) -> int:
    """The bits of an access's whole tile (a 1-element tensor's: its element's); 128 where not read."""
    typed = access_type(op)
    bits = ttgir.element_bits(op.text)
    if typed is None or not bits:
        return 128
    return math.prod(typed[0]) * bits


def _because(causes: list[tuple[str, str]]) -> str:
    """`: Triton cannot prove that ... (reasons); nor that ... (reasons)`, the layout's reason as it is."""
    parts = []
    for role in ("pointer", "mask"):
        reasons = [reason for r, reason in causes if r == role]
        if reasons:
            parts.append(f"{_WHY[role]} ({'; '.join(reasons)})")
    text = ("Triton cannot prove " + "; nor ".join(parts)) if parts else ""
    layout = [reason for r, reason in causes if r == "layout"]
    return f": {'; '.join([text, *layout] if text else layout)}" if parts or layout else ""


def _layout_note(k: Kernel, op: ttgir.Op) -> str:
    info = per_thread(k, op)
    if info is None:
        typed = access_type(op)
        if typed is None:
            return f"{op.name} (TTGIR line {op.number})"
        dims = "x".join(map(str, typed[0]))
        return f"{op.name} of {dims}x{ttgir.element_name(op.text)} in {typed[1]} (TTGIR line {op.number})"
    contiguous, bits, dim, shape = info
    return (
        f"{op.name} of {'x'.join(map(str, shape))}x{ttgir.element_name(op.text)} (TTGIR line {op.number}), "
        f"{count(contiguous, 'contiguous element')} per thread along dim {dim} = {contiguous * bits} bits"
    )


def access_type(op: ttgir.Op) -> tuple[tuple[int, ...], str] | None:
    """The shape and layout of the tensor an access moves: its operands' (a tt.load's pointers, a store's
    values), else its result's (since 3.9 `amdg.buffer_load ... : !tt.ptr<f32> -> tensor<1024xf32, ...>`)."""
    return tensor_type(op.text.split("->")[0]) or tensor_type(op.text)


def per_thread(k: Kernel, op: ttgir.Op) -> tuple[int, int, int, tuple[int, ...]] | None:
    """(contiguous elements each thread holds along the fastest dim, element bits, that dim, shape)."""
    typed = access_type(op)
    bits = ttgir.element_bits(op.text)
    layout = k.module.layout(typed[1]) if typed else None
    if typed is None or bits is None or layout is None:
        return None
    order, size = _blocked_fields(layout)
    if not order or not size:
        return None
    return size[order[0]], bits, order[0], typed[0]


def _blocked_fields(layout) -> tuple[list[int] | None, list[int] | None]:
    """(order, sizePerThread) of a blocked layout, or of a blocked one sliced (a row's reduction's
    result, mamba's per-chunk loads: `#ttg.slice<{dim = 1, parent = #blocked}>`) with its dim taken out."""
    if layout.kind == "blocked":
        return layout.fields.get("order"), layout.fields.get("sizePerThread")
    parent, dim = layout.fields.get("parent"), layout.fields.get("dim")
    if layout.kind != "slice" or getattr(parent, "kind", None) != "blocked" or not isinstance(dim, int):
        return None, None
    order, size = parent.fields.get("order"), parent.fields.get("sizePerThread")
    if not order or not size or dim >= len(size):
        return None, None
    kept = [d - (d > dim) for d in order if d != dim]
    return kept, [n for d, n in enumerate(size) if d != dim]


def _causes(k: Kernel, op: ttgir.Op, narrowest: int) -> list[tuple[str, Unknown]]:
    """Why an access cannot be wider, as (role, the argument's part). A block too small for its threads
    to hold 128 contiguous bits each (128 f32 over 4 warps: 1 each) caps the width whatever the hints:
    the layout is named, and the arguments only where the access is narrower still. Else the arguments
    its pointer and its mask are computed from that Triton knows no divisibility of (the coalescing
    pass lays out 1 element per thread for them), and the layout where none is."""
    info = per_thread(k, op)
    room = _room(k, info) if info is not None else 128
    causes = []
    if narrowest < room:
        pointers, mask = ttgir.access_operands(op)
        reached = [(name, "pointer") for name in sorted(set().union(*(k.module.reaching(p) for p in pointers)))]
        reached += [(name, "mask") for name in sorted(k.module.reaching(mask))] if mask else []
        causes += [(role, _as_contiguous(k, op, unknown(k, name))) for name, role in reached if hintable(k, name)]
    if info is not None and info[0] * info[1] < 128 and (room < 128 or not causes):
        contiguous, bits, dim, shape = info
        reason = (
            f"each thread holds only {contiguous} contiguous {ttgir.element_name(op.text)} along dim {dim} "
            f"({contiguous * bits} bits; 128 needs {128 // bits})"
        )
        if room < 128:
            threads = (k.c.options.get("num_warps") or 4) * k.c.variant.target_info.warp_size
            reason += f": {'x'.join(map(str, shape))} elements over {threads} threads"
        causes.append(("layout", Unknown("", (Cause.LAYOUT,), reason, ())))
    return causes


def _as_contiguous(k: Kernel, op: ttgir.Op, part: Unknown) -> Unknown:
    """A stride given no value that multiplies the offsets along the tile's last dimension (vLLM's
    `offs_k[None, :] * stride_ak`): its what-if is 1, a row-major tensor's stride there, which the
    launcher makes the constant 1; a multiple of 16 keeps each thread's elements apart, and the what-if
    "bore out" nothing. Not known (Triton lays the tile out as if no dimension were contiguous), the
    dimension a launch makes contiguous is the last one assumed, and said."""
    if value_of(k, part.name) is not None or not _last_dim_stride(k, op, part.name):
        return part
    what_if = tuple(WhatIf("arg", part.name, 1) if w[:2] == ("arg", part.name) else w for w in part.what_if)
    said = f"{part.reason} (a stride of the tile's last dimension: 1 where the tensor is contiguous there)"
    return part._replace(reason=said, what_if=what_if)


def _last_dim_stride(k: Kernel, op: ttgir.Op, name: str) -> bool:
    """Whether the access's pointers add `name` times a range along the tile's last dimension."""
    typed = access_type(op)
    if typed is None:
        return False
    rank = len(typed[0])
    producers = k.module.producers
    # a loop's carried pointers: their start and step too
    for value in k.module.computed_from(*ttgir.access_operands(op)[0]):
        producer = producers.get(value)
        if producer is None or producer.name != "arith.muli" or len(producer.operands) != 2:
            continue
        a, b = producer.operands
        for scale, offsets in ((a, b), (b, a)):
            if k.module.reaching(scale) == {name} and _range_dim(producers, offsets, rank) == rank - 1:
                return True
    return False


def _range_dim(producers: dict[str, ttgir.Op], value: str, rank: int, expanded: tuple[int, ...] = ()) -> int | None:
    """The dimension along which a tt.make_range's offsets lie in `value` (the axes expand_dims added
    taken out), following adds, casts, broadcasts and layout conversions; None where none does."""
    producer = producers.get(value)
    if producer is None:
        return None
    if producer.name == "tt.make_range":
        kept = [d for d in range(rank) if d not in expanded]
        return kept[0] if len(kept) == 1 else None
    if producer.name == "tt.expand_dims":
        axis = re.search(r"axis = (\d+)", producer.text)
        expanded = (*expanded, int(axis.group(1))) if axis else expanded
    elif producer.name not in _FOLLOWED:
        return None
    found = (_range_dim(producers, operand, rank, expanded) for operand in producer.operands)
    return next((d for d in found if d is not None), None)


_FOLLOWED = (
    "arith.addi", "arith.extsi", "arith.extui", "arith.remsi", "arith.remui", "tt.broadcast", "ttg.convert_layout",
    "tt.expand_dims",
)  # fmt: skip


def _room(k: Kernel, info: tuple[int, int, int, tuple[int, ...]]) -> int:
    """The widest access, in bits (at most 128), that the block's size leaves each thread: its elements
    along the contiguous dim, or all its elements shared out over the threads, whichever is fewer."""
    _, bits, dim, shape = info
    threads = (k.c.options.get("num_warps") or 4) * k.c.variant.target_info.warp_size
    total = 1
    for size in shape:
        total *= size
    return min(min(shape[dim], max(total // threads, 1)) * bits, 128)


def _narrow_advice(k: Kernel, causes: list[Unknown]) -> str:
    """What to try for every cause, each naming its arguments: the what-if compiles them all at once."""
    named: dict[Cause, list[str]] = {}
    for part in causes:
        for cause in part.causes:
            named.setdefault(cause, [])
            if part.name not in named[cause]:
                named[cause].append(part.name)
    said = [_ADVICE[cause](k, named[cause]) for cause in _ADVICE if cause in named]
    if Cause.LAYOUT in named or not said:
        said.append(_WIDER_LAYOUT)
    return "; ".join(said)


_WIDER_LAYOUT = (
    "give each thread at least 128 contiguous bits: a larger BLOCK along the contiguous dimension, fewer warps"
)


def _listed(names: list[str]) -> str:
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _flags(names: list[str]) -> str:
    return " ".join(f"-a {name}=VALUE" for name in names)


def _them(names: list[str]) -> str:
    return "them" if len(names) > 1 else "it"


_ADVICE = {
    Cause.UNSPECIALIZED: lambda k, names: (
        f"let the launcher specialize {_listed(names)} (drop --no-specialize)"
        if not k.c.variant.specialize
        else f"launch {_listed(names)} with a hint: this compile had none, and the kernel's source names no "
        "do_not_specialize for it"
    ),
    Cause.DO_NOT_SPECIALIZE: lambda k, names: (
        f"drop {_listed(names)} from do_not_specialize in the kernel's decorator{decorator_line(k, DNS)}, "
        f"so the launcher specializes {_them(names)}"
    ),
    Cause.DO_NOT_SPECIALIZE_ON_ALIGNMENT: lambda k, names: (
        f"drop {_listed(names)} from do_not_specialize_on_alignment in the kernel's decorator"
        f"{decorator_line(k, DNS_ALIGN)}, so the launcher can hint {_them(names)}"
    ),
    Cause.ASSUMED: lambda k, names: f"give {_listed(names)} as a real launch passes {_them(names)} ({_flags(names)})",
    Cause.GIVEN_AS_TYPE: lambda k, names: (
        f"give {_listed(names)} a value, not a type, as a real launch passes {_them(names)} ({_flags(names)})"
    ),
    Cause.NOT_MULTIPLE_OF_16: lambda k, names: (
        f"launch with {_listed(names)} {'multiples' if len(names) > 1 else 'a multiple'} of 16 (pad the buffers "
        "and round the size up), so the "
        f"launcher gives {_them(names)} the divisibility hint"
    ),
    Cause.UNALIGNED: lambda k, names: (
        f"pass {_listed(names)} aligned to 16 bytes (torch's allocations are), so the launcher marks {_them(names)}"
    ),
}


# --- coalescing -------------------------------------------------------------------------------


def uncoalesced(k: Kernel) -> list[Finding]:
    """A stride of 1 at launch that Triton was not told (no specialization): it cannot know which
    dimension is contiguous, and lays the access out as if the last one were."""
    v = k.c.variant
    found = []
    for line, ops in sorted(accesses(k).items()):
        unit = sorted(
            name
            for op in ops
            for pointer in ttgir.access_operands(op)[0]
            for name in k.module.reaching(pointer)
            if v.signature.get(name, "").startswith("i") and value_of(k, name) == 1
        )
        if not unit:
            continue
        parts = [unknown(k, name) for name in dict.fromkeys(unit)]
        names = ", ".join(part.name for part in parts)
        found.append(
            Finding(
                UNCOALESCED,
                line,
                f"{names} is 1 at launch but not specialized: Triton does not know which dimension is contiguous"
                f" ({'; '.join(part.reason for part in parts)})",
                f"TTGIR: {ops[0].name} computes its pointers from {names} as a runtime "
                f"value; {_layout_note(k, ops[0])}",
                f"{_narrow_advice(k, parts)}, or make {'them constexprs' if len(parts) > 1 else 'it a constexpr'}",
                what_if=tuple(dict.fromkeys(change for part in parts for change in part.what_if)),
            )
        )
    return found
