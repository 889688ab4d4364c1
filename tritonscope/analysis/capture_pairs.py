"""Two captures of one program side by side: each compile paired with its counterpart, and the
figures that changed between them.

A captured compile is summarized once (`KernelFigures`: plain data, made in a worker from the
capture's artifacts). Pairing goes from the strictest key to the loosest: name, source,
specialization and launch shapes all equal first; then one of them let go at a time, each
looser pair saying how it was made ("source changed", "BLOCK_SIZE 1024 -> 512"). What no
round pairs was added or removed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .findings import Finding

# The figures compared, in the order shown; where lower (or higher) is better, a change the other
# way is a regression. `instructions` and the mix's other kinds change with any edit: shown, never marked.
FIGURE_ORDER = (
    "registers",
    "spills",
    "local_bytes",
    "shared",
    "occupancy",
    "global_load_bits",
    "global_store_bits",
    "conversion_bytes",
    "instructions",
)
BETTER = {
    "registers": "lower",
    "spills": "lower",
    "local_bytes": "lower",
    "shared": "lower",
    "occupancy": "higher",
    "global_load_bits": "higher",
    "global_store_bits": "higher",
    "conversion_bytes": "lower",
    "mix.local_load": "lower",
    "mix.local_store": "lower",
}


@dataclass(frozen=True)
class KernelFigures:
    """One captured compile, summarized: what pairing keys on and what the view compares."""

    name: str
    hash: str
    target: str
    triton_version: str
    source: str  # a digest of the kernel's source ("" when the capture has none)
    specialization: tuple[tuple[str, str], ...]  # (name, value): types, constexprs, hints, options
    shapes: tuple[str, ...]  # each distinct recorded launch: grid and tensor shapes
    figures: dict[str, Any]  # registers, spills, ... (FIGURE_ORDER)
    mix: dict[str, int]  # machine instructions by kind (instruction_mix.Op.kind)
    findings: tuple[Finding, ...] | None  # explain's findings; None: not read (identical on both sides)
    code: str  # a digest of the normalized machine code
    reference: str = ""  # DIR/:NAME@HASH8, what -k and check name it by
    recorded: bool = True  # the capture recorded the specialization (a bare Triton cache does not)
    lines: frozenset[int] = frozenset()  # the lines of its file a line budget may name (linemap.kernel_lines)

    @property
    def label(self) -> str:
        """The compile among others of its name: its constexprs and options, short."""
        spec = dict(self.specialization)
        return " ".join(f"{k.removeprefix('c:')}={v}" for k, v in spec.items() if k.startswith("c:"))


@dataclass(frozen=True)
class Change:
    figure: str  # a FIGURE_ORDER name, or mix.KIND
    before: Any
    after: Any
    regression: bool = False

    @property
    def delta(self) -> float | None:
        if isinstance(self.before, (int, float)) and isinstance(self.after, (int, float)):
            return self.after - self.before
        return None


@dataclass(frozen=True)
class KernelPair:
    name: str
    status: str  # same, changed, added, removed
    before: KernelFigures | None
    after: KernelFigures | None
    how: str = ""  # how a pair that is not exact was made
    changes: tuple[Change, ...] = ()
    appeared: tuple[str, ...] = ()  # findings only after
    gone: tuple[str, ...] = ()  # findings only before

    @property
    def regression(self) -> bool:
        """A figure got worse, or a finding of a kind the kernel did not have appeared (one whose
        message only changed, a 32-bit access now 64-bit, say, is no new problem)."""
        return bool(self.new_kinds) or any(c.regression for c in self.changes)

    @property
    def new_kinds(self) -> tuple[str, ...]:
        old = {f.split(":")[0] for f in self.gone} | {f.split(":")[0] for f in _kept(self)}
        return tuple(dict.fromkeys(k for k in (f.split(":")[0] for f in self.appeared) if k not in old))

    @property
    def sides(self) -> tuple[KernelFigures, ...]:
        return tuple(k for k in (self.before, self.after) if k is not None)


def _kept(p: KernelPair) -> tuple[str, ...]:
    """The findings both sides have."""
    return tuple(f for f in finding_texts(p.before) if f not in p.gone) if p.before is not None else ()


@dataclass
class _Pool:
    """The compiles of one side not yet paired."""

    kernels: list[KernelFigures] = field(default_factory=list)

    def take(self, kernel: KernelFigures) -> None:
        self.kernels.remove(kernel)


def _spec_text(kernel: KernelFigures) -> str:
    return ";".join(f"{k}={v}" for k, v in kernel.specialization)


# Each round: its key, and how a pair made on it is described (None: an exact pair).
_ROUNDS: tuple[tuple[Callable[[KernelFigures], tuple], Callable | None], ...] = (
    (lambda k: (k.name, k.hash, k.shapes), None),  # Triton's hash: its source, specialization and options
    (lambda k: (k.name, k.hash), lambda a, b: "the same compile (its hash), launch shapes differ"),
    (lambda k: (k.name, k.source, k.specialization, k.shapes), None),
    (lambda k: (k.name, k.source, k.specialization), lambda a, b: "launch shapes differ"),
    (lambda k: (k.name, k.specialization, k.shapes), lambda a, b: "same specialization, source changed"),
    (lambda k: (k.name, k.specialization), lambda a, b: "same specialization, source and launches changed"),
    # the same element types first: an fp16 compile is an fp16 one's counterpart, whose loads are as narrow
    (lambda k: (k.name, k.source, _pointers(k), k.shapes), lambda a, b: _launches_too(a) + spec_change(a, b)),
    (lambda k: (k.name, k.source, _pointers(k)), lambda a, b: spec_change(a, b) + _launches_differ(a, b)),
    (lambda k: (k.name, k.source, k.shapes), lambda a, b: _launches_too(a) + spec_change(a, b)),
    (lambda k: (k.name, k.source), lambda a, b: spec_change(a, b) + _launches_differ(a, b)),
    (
        lambda k: (k.name, _pointers(k)),
        lambda a, b: "same name, source changed, " + spec_change(a, b) + _launches_differ(a, b),
    ),
    (lambda k: (k.name,), lambda a, b: "same name, source changed, " + spec_change(a, b) + _launches_differ(a, b)),
)


def _pointers(kernel: KernelFigures) -> tuple[tuple[str, str], ...]:
    """The types its pointer arguments were compiled for (`*fp16`)."""
    return tuple((name, value) for name, value in kernel.specialization if str(value).startswith("*"))


def pair(before: list[KernelFigures], after: list[KernelFigures]) -> list[KernelPair]:
    """Every compile of `before` with its counterpart in `after`, then those left: removed, added."""
    left, right = _Pool(list(before)), _Pool(list(after))
    pairs: list[KernelPair] = []
    for key, how in _ROUNDS:
        for a, b in _matches(left.kernels, right.kernels, key):
            left.take(a)
            right.take(b)
            pairs.append(compare(a, b, how(a, b) if how else _unrecorded(a, b)))
    pairs += [KernelPair(k.name, "removed", k, None) for k in left.kernels]
    pairs += [KernelPair(k.name, "added", None, k) for k in right.kernels]
    return sorted(pairs, key=lambda p: (p.name, p.sides[0].label))


def _matches(left: list[KernelFigures], right: list[KernelFigures], key: Callable) -> list[tuple]:
    """Pairs of equal key, in the order of their specialization on each side (several compiles of one
    kernel meet their counterparts in the same order)."""
    groups: dict[tuple, tuple[list, list]] = {}
    for side, kernels in ((0, left), (1, right)):
        for kernel in sorted(kernels, key=_spec_text):
            groups.setdefault(key(kernel), ([], []))[side].append(kernel)
    return [match for a, b in groups.values() for match in zip(a, b, strict=False)]


def _unrecorded(a: KernelFigures, b: KernelFigures) -> str:
    """How an `exact` pair was made where a side is a bare Triton cache, which records no specialization."""
    if a.recorded and b.recorded:
        return ""
    return "by name, source and options only: a Triton cache folder records no specialization"


def _launches_differ(a: KernelFigures, b: KernelFigures) -> str:
    return "; launch shapes differ" if a.shapes != b.shapes else ""


def _launches_too(k: KernelFigures) -> str:
    return "same launches, " if k.shapes else ""


def spec_change(a: KernelFigures, b: KernelFigures) -> str:
    """What differs in two specializations, short: `BLOCK_SIZE 1024 -> 512, num_warps 4 -> 8`."""
    old, new = dict(a.specialization), dict(b.specialization)
    parts = [
        f"{k.split(':', 1)[-1]} {old.get(k, '-')} -> {new.get(k, '-')}"
        for k in dict.fromkeys([*old, *new])
        if old.get(k) != new.get(k)
    ]
    return "specialization changed: " + (", ".join(parts) if parts else "none")


def compare(a: KernelFigures, b: KernelFigures, how: str = "") -> KernelPair:
    """One pair: `same` when the machine code and every figure are equal, else what changed."""
    changes = [_change(name, a.figures.get(name), b.figures.get(name)) for name in FIGURE_ORDER]
    kinds = sorted(set(a.mix) | set(b.mix))
    changes += [_change(f"mix.{k}", a.mix.get(k, 0), b.mix.get(k, 0)) for k in kinds]
    found = [c for c in changes if c is not None]
    old, new = finding_texts(a), finding_texts(b)
    appeared = tuple(f for f in new if f not in old)
    gone = tuple(f for f in old if f not in new)
    same = a.hash == b.hash or (a.code == b.code and not found and not appeared and not gone)
    status = "same" if same else "changed"
    return KernelPair(b.name, status, a, b, how, tuple(found), appeared, gone)


def finding_texts(k: KernelFigures) -> tuple[str, ...]:
    """A compile's findings as compared: kind and message, not the line (an edit above moves it)."""
    return tuple(dict.fromkeys(f"{f.kind}: {f.message}" for f in k.findings or ()))


def _change(figure: str, before: Any, after: Any) -> Change | None:
    if before == after:
        return None
    better = BETTER.get(figure)
    regression = False
    if better and before is not None and after is not None:
        regression = after > before if better == "lower" else after < before
    elif better and figure.startswith("global_") and after is None:
        regression = False  # no global access of that kind any more
    return Change(figure, before, after, regression)


def counts(pairs: list[KernelPair] | tuple[KernelPair, ...]) -> dict[str, int]:
    """How many pairs have each status, and how many changed ones regressed."""
    tally = {status: 0 for status in ("same", "changed", "added", "removed")}
    for p in pairs:
        tally[p.status] += 1
    tally["regressed"] = sum(1 for p in pairs if p.status == "changed" and p.regression)
    return tally
