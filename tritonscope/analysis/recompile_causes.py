"""Why a kernel compiled again: what differs between two of its variants, in the kernel's own terms
(Triton's specialization rules: divisibility by 16, the value 1, a pointer's alignment, None, a
dtype, an integer's width, a constexpr, the launch options), and each compile of a kernel placed in
its history: the first, a recompile (with its causes), one of an autotuner's configs, or the same
binary compiled again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .specialization import Param, Specialization, launch_values, relation

# The kinds of cause, as `--json` names them (docs/json-schema.md).
DIVISIBILITY = "divisibility"
EQUAL_TO_1 = "equal_to_1"
ALIGNMENT = "alignment"
NONE = "none"
DTYPE = "dtype"
INTEGER_WIDTH = "integer_width"
CONSTEXPR = "constexpr"
OPTIONS = "options"
SOURCE = "source"
TORCH_GUARD = "torch_guard"  # torch.compile: a guard of every earlier entry failed
KINDS = (DIVISIBILITY, EQUAL_TO_1, ALIGNMENT, NONE, DTYPE, INTEGER_WIDTH, CONSTEXPR, OPTIONS, SOURCE, TORCH_GUARD)

# Where a compile stands in its kernel's history.
FIRST = "first"
RECOMPILE = "recompile"
CANDIDATE = "autotune candidate"  # another of the autotuner's configs, same specialization
AGAIN = "same binary again"  # a hash compiled before: a new torch.compile graph's kernel, another process

FLOATS = ("fp16", "bf16", "fp32", "fp64")  # the types the launcher gives a Python float (fp32), or a caller's
_INTEGERS = ("i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64")


@dataclass(frozen=True)
class Cause:
    """One thing that differs between a variant and the one it is compared with."""

    kind: str
    param: str | None
    before: str
    after: str
    said: str
    made_from: str | None = None  # a constexpr made from another argument: that argument (`seq_len`)


@dataclass(frozen=True)
class CompileStep:
    """One compile of a kernel, in the order the program made them."""

    index: int  # its position among all the capture's compiles
    number: int  # its number among the kernel's compiles, from 1
    hash: str
    role: str  # FIRST, RECOMPILE, CANDIDATE or AGAIN
    compared_with: int | None  # the number of the earlier compile it is set against
    causes: tuple[Cause, ...]
    specialization: Specialization


def causes(
    a: Specialization,
    b: Specialization,
    launches: tuple[list[dict], list[dict]],
    labels: tuple[str, str] = ("variant 1", "variant 2"),
    config: frozenset[str] = frozenset(),
) -> tuple[Cause, ...]:
    """What differs from A to B (each with the launches that made it), said in the kernel's terms;
    the names in CONFIG (an autotuner's) are left out."""
    found = (
        [] if a.source == b.source else [Cause(SOURCE, None, "", "", f"the kernel's source changed after {labels[0]}")]
    )
    if found and [p.name for p in a.params] != [p.name for p in b.params]:
        # another kernel under the same name (torch.compile names kernels per graph): its parameters
        # are not the earlier one's, so no difference between them is a cause
        said = f"another kernel under the same name: its source and parameters differ from {labels[0]}'s"
        return (Cause(SOURCE, None, "", "", said),)
    later = launch_values(launches[1][0]) if launches[1] else {}
    for pb in b.params:
        pa = a.param(pb.name)
        if pb.name in config or pa is None or pa == pb:
            continue
        cause = _param_cause(pa, pb, later, labels)
        if cause is None and pa.type == pb.type == "constexpr":
            cause = _constexpr_cause(pa, pb, launches)
        if cause is not None:
            found.append(cause)
    before, after = dict(a.options), dict(b.options)
    for name in sorted(set(before) | set(after)):
        if name not in config and before.get(name) != after.get(name):
            said = f"launched with {name}={after.get(name)} ({before.get(name)} in {labels[0]})"
            found.append(Cause(OPTIONS, name, str(before.get(name)), str(after.get(name)), said))
    return tuple(found)


def _param_cause(pa: Param, pb: Param, later: dict, labels: tuple[str, str]) -> Cause | None:
    n, (la, lb) = pa.name, labels
    value = later.get(n)
    shown = f" ({n}={value})" if value is not None and not isinstance(value, float) else ""
    pointer_a, pointer_b = pa.type.startswith("*"), pb.type.startswith("*")
    if pointer_a and pointer_b and pa.type != pb.type:
        return Cause(DTYPE, n, pa.type, pb.type, f"a new dtype for `{n}`: {pa.type} in {la}, {pb.type} in {lb}")
    if pointer_a and pointer_b:
        offset = later.get(f"{n}.storage_offset")
        where = f" (it starts {offset} element{'s' if offset != 1 else ''} into its storage)" if offset else ""
        if pa.hint:
            return Cause(ALIGNMENT, n, "D", "", f"`{n}` was 16-byte aligned in {la} and is not in {lb}{where}")
        return Cause(ALIGNMENT, n, "", "D", f"`{n}` was not 16-byte aligned in {la} and is in {lb}")
    if "None" in (pa.value, pb.value) and (pointer_a or pointer_b or pa.type != pb.type):
        if pb.value == "None":
            return Cause(NONE, n, pa.type, "None", f"`{n}` is None in {lb} (a None is a constant); {la} had {pa.type}")
        return Cause(NONE, n, "None", pb.type, f"`{n}` was None in {la} (a constant) and is {pb.type} in {lb}")
    # a float argument given the int 1 (`alpha=1` after 2.5): Triton makes an int 1 a constant, a float
    # never (h20b: said "equals 1", with a do_not_specialize that did not hold)
    if pa.type in FLOATS and (pb.type, pb.value) == ("constexpr", "1"):
        return Cause(DTYPE, n, pa.type, "1", f"`{n}` was {pa.type} in {la} and the int 1 in {lb} (a constant)")
    if pb.type in FLOATS and (pa.type, pa.value) == ("constexpr", "1"):
        return Cause(DTYPE, n, "1", pb.type, f"`{n}` was the int 1 in {la} (a constant) and is {pb.type} in {lb}")
    if "1" in (pa.value, pb.value) and "constexpr" in (pa.type, pb.type) and pa.type != pb.type:
        if pb.value == "1":
            return Cause(EQUAL_TO_1, n, pa.type, "1", f"`{n}` equals 1 in {lb}, so Triton made it a constant")
        return Cause(EQUAL_TO_1, n, "1", pb.type, f"`{n}` was 1 in {la} (a constant) and is not in {lb}{shown}")
    if pa.type in _INTEGERS and pb.type in _INTEGERS and pa.type != pb.type:
        small = isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31
        if pb.type.endswith("64") and small:  # the caller typed it 64-bit (an Inductor size it made dynamic)
            said = f"`{n}` is {pb.type} in {lb} ({pa.type} in {la}), though {n}={value} fits in 32 bits: "
            said += "its caller typed it"
            return Cause(INTEGER_WIDTH, n, pa.type, pb.type, said)
        grew = "no longer fits" if pb.type.endswith("64") else "fits again"
        return Cause(
            INTEGER_WIDTH, n, pa.type, pb.type, f"`{n}` {grew} in 32 bits in {lb}{shown}: {pa.type} → {pb.type}"
        )
    if pa.type in _INTEGERS and pa.type == pb.type and pa.hint != pb.hint:
        if pa.hint and isinstance(value, int) and not isinstance(value, bool) and value % 16 == 0:
            said = (  # divisible all the same: the hint was not asked for (a size Inductor made dynamic)
                f"`{n}` was specialized as divisible by 16 in {la} and is not in {lb}, though {n}={value} is: "
                "that launch does not specialize it (do_not_specialize, or a size torch.compile made dynamic)"
            )
            return Cause(DIVISIBILITY, n, "D", "", said)
        if pa.hint:
            return Cause(DIVISIBILITY, n, "D", "", f"`{n}` was divisible by 16 in {la} and is not in {lb}{shown}")
        return Cause(DIVISIBILITY, n, "", "D", f"`{n}` was not divisible by 16 in {la} and is in {lb}{shown}")
    if pa.type != pb.type and "constexpr" not in (pa.type, pb.type):
        return Cause(DTYPE, n, pa.type, pb.type, f"a new type for `{n}`: {pa.type} in {la}, {pb.type} in {lb}")
    return None


def _constexpr_cause(pa: Param, pb: Param, launches: tuple[list[dict], list[dict]]) -> Cause:
    """A constexpr that changed, with how it was made where every launch of both variants shows it
    (`BLOCK` = `triton.next_power_of_2(N)`)."""
    n = pa.name
    made = relation(n, launches[0] + launches[1]) if launches[0] and launches[1] else None
    if made is None:
        return Cause(CONSTEXPR, n, str(pa.value), str(pb.value), f"`{n}` changed {pa.value} → {pb.value}")
    argument = made.removeprefix("triton.next_power_of_2(").rstrip(")")
    before, after = launch_values(launches[0][0]).get(argument), launch_values(launches[1][0]).get(argument)
    values = f" ({argument}={before} → {after})" if before is not None and after is not None else ""
    said = f"`{n}` = `{made}` changed {pa.value} → {pb.value}{values}"
    return Cause(CONSTEXPR, n, str(pa.value), str(pb.value), said, argument)


def history(
    compiles: list[tuple[int, dict, Specialization]],
    launches: dict[str, list[dict]],
    config: frozenset[str] = frozenset(),
) -> list[CompileStep]:
    """Each compile of one kernel (its index in the capture, its record, its specialization), in
    order, placed in the kernel's history and, where it is a recompile, with its causes against the
    earlier compile it differs from least (of those alike, the earliest)."""
    steps: list[CompileStep] = []
    for number, (index, record, spec) in enumerate(compiles, start=1):
        hash_ = str(record.get("hash"))
        same = next((s for s in steps if s.hash == hash_), None)
        if same is not None:
            steps.append(CompileStep(index, number, hash_, AGAIN, same.number, (), spec))
            continue
        kin = next((s for s in steps if s.specialization.without(config) == spec.without(config)), None)
        if kin is not None and config:
            steps.append(CompileStep(index, number, hash_, CANDIDATE, kin.number, (), spec))
            continue
        earlier = [s for s in steps if s.role in (FIRST, RECOMPILE)]
        if not earlier:
            steps.append(CompileStep(index, number, hash_, FIRST, None, (), spec))
            continue
        # the earlier variant it differs from least; of those alike, the earliest, the program's usual
        # launch (its warmup's): `stride=7` set against the warmup's stride=512, not against a one-off
        # stride=1 whose constant is no cause of it (h25a)
        nearest = min(earlier, key=lambda s: _distance(s.specialization, spec, config))
        pair = (launches.get(nearest.hash, []), launches.get(hash_, []))
        labels = (f"variant {nearest.number}", f"variant {number}")
        found = causes(nearest.specialization, spec, pair, labels, config)
        steps.append(CompileStep(index, number, hash_, RECOMPILE, nearest.number, found, spec))
    return steps


def _distance(a: Specialization, b: Specialization, config: frozenset[str]) -> int:
    differing = sum(1 for p in b.params if p.name not in config and a.param(p.name) != p)
    before, after = dict(a.options), dict(b.options)  # num_warps, num_stages: differences too (h20b)
    differing += sum(1 for n in set(before) | set(after) if n not in config and before.get(n) != after.get(n))
    return differing + (a.source != b.source) * 100
