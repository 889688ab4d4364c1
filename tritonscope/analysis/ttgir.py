"""A TTGIR module read as ops: what each defines and uses, so a value can be traced to the
kernel arguments it depends on, and the tensors that memory ops and conversions move.

Only what the findings need: one op per line (the form Triton prints), names with their
`#N` result index kept, and loop-carried values (`iter_args`, `scf.yield`) joined to what
flows into them. Nothing here imports Triton.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from ..parsers.mlir_locations import is_alias_definition, without_locations
from . import layouts

_NAME = re.compile(r"%[\w$.]+(?:#\d+)?")
_RESULTS = re.compile(r"^((?:%[\w$.]+(?::\d+)?)(?:\s*,\s*%[\w$.]+(?::\d+)?)*)\s*=\s*(\"?[\w.]+\"?)")
_BARE_OP = re.compile(r"^(\"?[a-z_]+\.[\w.]+\"?)")
_FUNC_ARG = re.compile(r"(%[\w$.]+)\s*:")
_ITER_ARG = re.compile(r"(%[\w$.]+)\s*=\s*(%[\w$.]+(?:#\d+)?)")
_ELEMENT = re.compile(r"tensor<(?:\d+x)+(?:!tt\.ptr<)?([a-zA-Z]\w*)")
_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)+)([a-zA-Z]\w*)")
MEMORY_OPS = ("tt.load", "tt.store", "ttg.async_copy_global_to_local", "amdg.buffer_load", "amdg.buffer_store")
DOT_OPS = ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")


@dataclass(frozen=True)
class Op:
    number: int  # its line in the TTGIR text (1-based)
    name: str  # tt.load, scf.for ...
    results: tuple[str, ...]
    operands: tuple[str, ...]  # the values it uses, in order
    text: str  # the line without its location
    loop: int | None = None  # the TTGIR line of the innermost scf.for holding it


@dataclass(frozen=True)
class Module:
    ops: tuple[Op, ...]
    arguments: tuple[str, ...]  # the kernel's arguments as TTGIR names them, without `%`
    defs: dict[str, tuple[str, ...]]  # value -> the values it is computed from (loops joined)
    aliases: dict[str, str]  # layout aliases: #blocked -> its text

    def computed_from(self, *values: str) -> set[str]:
        """Every value the VALUES are computed from, themselves included, through any chain of ops and loops."""
        seen, todo = set(), list(values)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.defs.get(name, ()))
        return seen

    def reaching(self, value: str) -> set[str]:
        """The kernel arguments a value is computed from, through any chain of ops and loops."""
        arguments = set(self.arguments)
        return {name[1:] for name in self.computed_from(value) if name[1:] in arguments}

    @functools.cached_property
    def producers(self) -> dict[str, Op]:
        """Each value an op makes -> that op."""
        return {result: op for op in self.ops for result in op.results}

    def layout(self, text: str) -> layouts.Layout | None:
        try:
            return layouts.parse(text, self.aliases)
        except Exception:  # noqa: BLE001 - a layout kind tritonscope does not read: no layout facts
            return None


def region_end(ops: tuple[Op, ...], start: int) -> int:
    """The index of the `}` that closes the region `ops[start]` opens (a loop's body), or len(ops)."""
    depth = 0
    for index in range(start + 1, len(ops)):
        op = ops[index]
        if op.name == "}":
            if depth == 0:
                return index
            depth -= 0 if op.text.endswith("{") else 1  # `} else {` closes one region and opens another
        elif op.text.endswith("{"):
            depth += 1
    return len(ops)


@functools.lru_cache(maxsize=8)
def read(text: str) -> Module:
    """The module of a TTGIR (or TTIR) text; the last few read are kept, as the per-line estimate,
    the findings and the launch estimate each read the same text (a Module is never changed)."""
    ops, arguments = [], ()
    open_ops: list[Op] = []  # the ops whose regions enclose this line
    for number, raw in enumerate(text.splitlines(), start=1):
        if is_alias_definition(raw) or raw.startswith("#"):
            continue
        line = without_locations(raw).strip()
        if line.startswith("tt.func"):
            arguments = tuple(n[1:] for n in _FUNC_ARG.findall(line.split("(", 1)[-1].split(") attributes")[0]))
            continue
        op = _op(number, line)
        if op is None:
            continue
        if op.name == "}" and open_ops and not line.endswith("{"):
            open_ops.pop()
        loops = [o.number for o in open_ops if o.name == "scf.for"]
        op = replace(op, loop=loops[-1] if loops else None)
        ops.append(op)
        if line.endswith("{") and op.name != "}":
            open_ops.append(op)
    return Module(tuple(ops), arguments, _defs(ops), layouts.aliases_of(text))


def _op(number: int, line: str) -> Op | None:
    if line.startswith("}"):  # a region closes (`}`, `})`), or an `if` turns to its `else`
        return Op(number, "}", (), (), line)
    match = _RESULTS.match(line)
    if match:
        results = []
        for name in re.split(r"\s*,\s*", match.group(1)):
            base, _, count = name.partition(":")
            results += [f"{base}#{i}" for i in range(int(count))] if count else [base]
        rest = line[match.end() :]
        return Op(number, match.group(2).strip('"'), tuple(results), tuple(_NAME.findall(rest)), line)
    match = _BARE_OP.match(line)
    if match:
        return Op(number, match.group(1).strip('"'), (), tuple(_NAME.findall(line[match.end() :])), line)
    return None


_QUOTIENTS = ("arith.divsi", "arith.divui", "arith.floordivsi", "arith.ceildivsi", "arith.ceildivui")


def _defs(ops: list[Op]) -> dict[str, tuple[str, ...]]:
    """Each value's sources: an op's operands; a loop's block arguments and results also take
    their initial values and what the body yields; an `if`'s results what its branches yield."""
    defs: dict[str, list[str]] = {}
    regions: list[list[list[str]]] = []  # per open region: the names each yield feeds, by position
    for op in ops:
        if op.name == "}":
            if regions:
                targets = regions.pop()
                if op.text.endswith("{"):
                    regions.append(targets)
            continue
        # a quotient is computed from its numerator alone, as far as what it can be known of goes: the
        # divisor's divisibility tells nothing of it (mamba's `pid_bc // batch` blamed batch=2)
        sources = op.operands[:1] if op.name in _QUOTIENTS else op.operands
        for result in op.results:
            defs.setdefault(result, []).extend(sources)
        targets = [list(op.results)]
        if op.name == "scf.for" and "iter_args(" in op.text:
            pairs = _ITER_ARG.findall(op.text.split("iter_args(", 1)[1])
            for block_arg, initial in pairs:
                defs.setdefault(block_arg, []).append(initial)
            targets.append([block_arg for block_arg, _ in pairs])
        if op.name == "scf.yield" and regions:
            for names in regions[-1]:
                for name, value in zip(names, op.operands, strict=False):
                    defs.setdefault(name, []).append(value)
        if op.text.endswith("{"):
            regions.append(targets)
    return {name: tuple(sources) for name, sources in defs.items()}


def element_bits(line: str) -> int | None:
    """Bits of the element type of the first tensor on a line: f16 16, bf16 16, f8E4M3FN 8, i1 8."""
    match = _ELEMENT.search(line)
    return _bits(match.group(1)) if match else None


def _bits(name: str) -> int | None:
    if name.startswith("f8") or name in ("i1", "i8"):
        return 8
    digits = re.search(r"(\d+)$", name)
    return int(digits.group(1)) if digits else None


def element_name(line: str) -> str:
    match = _ELEMENT.search(line)
    return match.group(1) if match else "?"


def value_type(line: str) -> tuple[str, int] | None:
    """The type and bits of what the first tensor on a line holds: its element (`f16`, 16), or for a
    tensor of pointers a 64-bit address (`ptr<i32>`, 64), which a convert_layout moves whole."""
    match = _ELEMENT.search(line)
    if not match:
        return None
    if match.group(0).endswith("!tt.ptr<" + match.group(1)):
        return f"ptr<{match.group(1)}>", 64
    bits = _bits(match.group(1))
    return (match.group(1), bits) if bits is not None else None


def memdesc_bytes(line: str) -> tuple[str, int] | None:
    """The shared-memory buffer a `ttg.local_alloc` makes: (its shape, e.g. `2x128x64xf16`; its bytes)."""
    match = _MEMDESC.search(line)
    if not match:
        return None
    dims = [int(d) for d in match.group(1).rstrip("x").split("x")]
    bits = _bits(match.group(2)) or 8
    size = bits // 8
    for dim in dims:
        size *= dim
    return f"{match.group(1)}{match.group(2)}", size


def memdesc_dims(line: str) -> list[int] | None:
    """The dimensions of the first shared-memory descriptor on a line: [3, 128, 64] for a 3-stage buffer."""
    match = _MEMDESC.search(line)
    return [int(d) for d in match.group(1).rstrip("x").split("x")] if match else None


def tensor_shape(line: str) -> str | None:
    """The shape and element type of the first tensor on a line, as `128x64xf16` (pointers' pointee)."""
    match = re.search(r"tensor<((?:\d+x)+)(?:!tt\.ptr<)?([a-zA-Z]\w*)", line)
    return f"{match.group(1)}{match.group(2)}" if match else None


_AXES = {"x": 0, "y": 1, "z": 2}


def grid_axis(op: Op) -> int:
    """The grid axis a `tt.get_program_id` or `tt.get_num_programs` op reads: `tt.get_num_programs y` is 1."""
    return _AXES.get(op.text.split(op.name)[-1].split()[0], 0)


def result_layout_name(line: str) -> str | None:
    """The layout (alias) of an op's result tensor: `#mma` in `... -> tensor<128x128xf32, #mma>`."""
    result = line.rsplit("->", 1)[-1] if "->" in line else line.rsplit(":", 1)[-1]
    match = re.search(r"tensor<[^,>]+,\s*(#[\w.]+)", result)
    return match.group(1) if match else None


def access_operands(op: Op) -> tuple[tuple[str, ...], str | None]:
    """The values a global load or store computes its addresses from, and its mask (or None).

    tt.load %ptr, %mask, %other / tt.store %ptr, %value, %mask / ttg.async_copy_global_to_local
    %ptr, %dst mask %mask ... / amdg.buffer_load %base[%offsets], %mask / amdg.buffer_store %value,
    %base[%offsets], %mask."""
    if op.name.startswith("amdg.buffer_"):
        store = op.name == "amdg.buffer_store"
        pointer = op.operands[int(store) : int(store) + 2]
        after = op.text.split("]", 1)[1] if "]" in op.text else ""
        mask = _NAME.match(after.lstrip(", ")) if after.lstrip().startswith(",") else None
        return tuple(pointer), mask.group(0) if mask else None
    index = {"tt.load": 1, "tt.store": 2, "ttg.async_copy_global_to_local": 2}[op.name]
    return op.operands[:1], op.operands[index] if len(op.operands) > index else None
