"""Which variants a kernel will compile for the sizes a server declares, worked out from its warmup
with no GPU: each argument Triton specializes on, as a function of the declared sizes (read from the
program's launch line, or found equal to another argument, or its next power of two, in every warmup
launch), evaluated over every point of the declared ranges by Triton's rules (divisible by 16, equal
to 1, past 32 bits, a constexpr's value); each specialization the warmup did not compile is a compile
to come. An argument that is no function of the declared sizes is held at the values the warmup saw,
and said so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.values import I32, int_type
from .launch_source import LaunchLine
from .recompile_causes import causes
from .size_expressions import Expr, const, evaluate, next_power_of_2
from .specialization import Param, Specialization, launch_values, specialization

LIMIT = 2_000_000  # points evaluated at once; past it each size is sampled where the rules change


@dataclass(frozen=True)
class ParamModel:
    """How one parameter's specialization follows from the declared sizes."""

    name: str
    kind: str  # "int", "constexpr" (a value: Expr or held values), "fixed" (one Param), "choices" (Params seen)
    expr: Expr | None = None
    held: tuple = ()  # no function of the sizes: the values (or Params) the warmup saw
    how: str = ""  # "the launch line", "equal to seq_len in every warmup launch", "constant", ...

    @property
    def said(self) -> str:
        if self.expr is not None:
            return f"{self.name} = {self.expr.text} ({self.how})"
        if self.kind == "fixed":
            return f"{self.name}: {self.held[0].text.split(': ', 1)[-1]} in every warmup launch"
        shown = ", ".join(str(v.text if isinstance(v, Param) else v) for v in self.held[:6])
        return f"{self.name}: {self.how or NOT_FOLLOWED}; held at what the warmup saw ({shown})"


@dataclass(frozen=True)
class KernelModel:
    name: str
    params: tuple[ParamModel, ...]
    warmup: tuple[tuple[Param, ...], ...]  # the warmup's specializations (an autotuner's fields left out)
    config: frozenset[str]
    not_specialized: frozenset[str]
    configs: int  # compiles per specialization: the autotuner's configs (1 without one)
    launch: dict | None  # a warmup launch, for the causes' wording


@dataclass(frozen=True)
class Predicted:
    """A specialization the warmup did not compile, and the declared sizes that make it."""

    kernel: str
    key: tuple[Param, ...]
    compiles: int
    points: int
    where: str  # "seq in 17..31 (15 values)"
    example: dict[str, int]  # the sizes of one point that makes it
    arguments: dict[str, int]  # its integer arguments and constexprs there
    differs: tuple[str, ...]  # what differs from the nearest warmup variant


def model(
    name: str,
    records: list[dict],
    launches: list[dict],
    line: LaunchLine | None,
    sizes: dict[str, tuple[int, int]],
    declared: set[str],
    not_specialized: frozenset[str],
    config: frozenset[str],
) -> KernelModel:
    """The kernel's parameters as functions of SIZES, from its warmup compiles and launches."""
    names = frozenset(sizes)
    seen = [launch_values(x) for x in launches]
    specs = [specialization(r) for r in records]
    params: list[ParamModel] = []
    for p in specs[0].params:
        if p.name in config:
            continue
        kind = "other" if not _all_int(seen, p.name) else "constexpr" if p.name in declared else "int"
        if kind == "other":
            params.append(_held_params(p.name, specs))
            continue
        expr, how = _expression(p.name, line, names, seen, params, kind == "constexpr")
        values = tuple(dict.fromkeys(v[p.name] for v in seen if p.name in v))
        params.append(ParamModel(p.name, kind, expr, values if expr is None else (), how))
    for index, param in enumerate(params):  # equal to a parameter after it (a row's stride, to its length)
        held = param.how == SAME  # one value in the warmup: held, unless a size it equals moves it
        if (param.expr is None or held) and param.kind in ("int", "constexpr"):
            others = sorted((q for q in params if q is not param), key=lambda q: q.how != "the launch line")
            expr, how = _expression(param.name, None, names, seen, others, param.kind == "constexpr")
            if expr is not None and not (held and not expr.sizes):
                if held:  # a stride equal to its row's length at one warmup size: the two move together
                    how = how.partition(" in every")[0] + " at the warmup's one size; a second would tell them apart"
                params[index] = ParamModel(param.name, param.kind, expr, (), how)
    warmup = tuple(dict.fromkeys(s.without(config)[0] for s in specs))
    configs = max(1, len(records) // max(1, len(warmup)))
    return KernelModel(name, tuple(params), warmup, config, not_specialized, configs, launches[0] if launches else None)


SAME = "the same in every warmup launch"
NOT_FOLLOWED = "not a function of the declared sizes"
NOT_DECLARED = "not declared"  # a size the launch line reads beside a declared one


def _all_int(seen: list[dict], name: str) -> bool:
    values = [v.get(name) for v in seen]
    return bool(values) and all(isinstance(x, int) and not isinstance(x, bool) for x in values)


def _held_params(name: str, specs: list[Specialization]) -> ParamModel:
    """A pointer, a float, a None: its Params as the warmup's compiles had them."""
    found = tuple(dict.fromkeys(p for s in specs for p in s.params if p.name == name))
    return ParamModel(name, "fixed" if len(found) == 1 else "choices", held=found)


def _expression(
    name: str, line: LaunchLine | None, sizes, seen: list[dict], known: list[ParamModel], constexpr: bool = False
):
    """(the Expr of NAME over the sizes, how it was found), or (None, why not)."""
    expr = line.expression(name, sizes) if line is not None else None
    if expr is not None and not expr.sizes:
        expr = const(int(evaluate(expr, {})))  # triton.next_power_of_2(VOCAB): a constant
    if expr is not None and _consistent(expr, name, seen, known):
        return expr, "the launch line"
    values = [v.get(name) for v in seen]
    for other in known:
        if other.expr is None or other.kind not in ("int", "constexpr"):
            continue
        others = [v.get(other.name) for v in seen]
        rounded = all(isinstance(o, int) and x == int(next_power_of_2(o)) for x, o in zip(values, others, strict=True))
        # a constexpr equal to a size in a warmup of powers of two is its next power of two (a block's
        # size, a heuristic's): "equal" predicted BLOCK=3, 5, ... (298 compiles for 14: h20b)
        if values == others and not (rounded and constexpr):
            return other.expr, f"equal to {other.name} in every warmup launch"
        if rounded:
            return Expr("next_power_of_2", (other.expr,)), f"next_power_of_2({other.name}) in every warmup launch"
    if len(set(values)) == 1 and isinstance(values[0], int):
        return const(values[0]), SAME
    roots = line.roots(name) if line is not None else set()
    missing = sorted(roots - set(sizes))
    if missing and roots & set(sizes):  # `batch * seq` with seq alone declared
        reads = ", ".join(missing)
        return None, f"its launch line reads {reads} too, {NOT_DECLARED} (add {missing[0]}=LO..HI to --shapes)"
    return None, NOT_FOLLOWED


def _consistent(expr: Expr, name: str, seen: list[dict], known: list[ParamModel]) -> bool:
    """Whether EXPR gives NAME's value in every warmup launch where the sizes it reads are known
    (a parameter that is a size itself carries the size's value in its launch)."""
    carriers = {p.expr.args[0]: p.name for p in known if p.expr is not None and p.expr.op == "size"}
    if expr.op == "size":
        return True
    for values in seen:
        env = {s: np.int64(values[carriers[s]]) for s in expr.sizes if s in carriers and carriers[s] in values}
        if len(env) == len(expr.sizes) and int(evaluate(expr, env)) != values.get(name):
            return False
    return True


def carried_values(models: list[KernelModel], launches: dict[str, list[dict]]) -> dict[str, set[int]]:
    """The values each declared size took in the warmup, read off the parameters equal to it."""
    found: dict[str, set[int]] = {}
    for m in models:
        for p in m.params:
            if p.expr is not None and p.expr.op == "size":
                for launch in launches.get(m.name, []):
                    value = launch_values(launch).get(p.name)
                    if isinstance(value, int):
                        found.setdefault(p.expr.args[0], set()).add(value)
    return found


def _axes(m: KernelModel, sizes: dict[str, tuple[int, int]]) -> tuple[dict[str, np.ndarray], bool]:
    """The values each axis takes: a declared size (its range, sampled past LIMIT points), or a
    parameter held at what the warmup saw (its values, or the index of its Params)."""
    used = sorted({s for p in m.params if p.expr is not None for s in p.expr.sizes})
    held = {HELD: np.arange(len(m.warmup))} if any(_held(p) for p in m.params) else {}
    # counted before any range is made: seq=1..2**40 is sampled, never laid out
    total = math.prod([sizes[s][1] - sizes[s][0] + 1 for s in used] + [len(a) for a in held.values()])
    sampled = total > LIMIT
    make = _sample if sampled else lambda lo, hi: np.arange(lo, hi + 1, dtype=np.int64)
    return {**{s: make(*sizes[s]) for s in used}, **held}, sampled


HELD = "held:"  # the axis of the warmup's specializations: parameters no size decides, held together


def _held(p: ParamModel) -> bool:
    return p.expr is None and p.kind in ("int", "constexpr", "choices") and bool(p.held)


def _held_columns(m: KernelModel, env: dict[str, np.ndarray]) -> None:
    """Each held parameter's value at every point, from the warmup specialization the point holds
    (the HELD axis): held together, as the warmup launched them, never a mix no launch made (an fp32
    input with an fp16 output)."""
    if HELD not in env:
        return
    for p in filter(_held, m.params):
        column = np.array([_held_value(m, p, key) for key in m.warmup], dtype=np.int64)
        env[f"held:{p.name}"] = column[env[HELD]]


def _held_value(m: KernelModel, p: ParamModel, key: tuple[Param, ...]) -> int:
    """The held parameter's value in a warmup specialization: its index among the Params seen, or a
    value the warmup launched that specializes as it did there."""
    mine = next((q for q in key if q.name == p.name), None)
    if p.kind == "choices":
        return p.held.index(mine) if mine in p.held else 0
    if p.kind == "constexpr":
        text = str(mine.value) if mine is not None else ""
        return int(text) if text.lstrip("-").isdigit() else int(p.held[0])
    return next((int(v) for v in p.held if _int_param(m, p.name, int(v)) == mine), int(p.held[0]))


def _sample(lo: int, hi: int) -> np.ndarray:
    """The values of lo..hi where Triton's rules can change: the first thousand, then around each
    power of two and multiple of 256, and hi."""
    picked = set(range(lo, min(hi, lo + _DENSE - 1) + 1)) | {hi}
    power = 1
    while power <= hi:
        picked |= {v for v in (power - 1, power, power + 1, power + 16) if lo <= v <= hi}
        power *= 2
    picked |= set(range(max(lo, 256), min(hi, _MULTIPLES_UP_TO) + 1, 256))
    return np.array(sorted(picked), dtype=np.int64)


_DENSE = 1024  # the first values of a sampled range, every one taken
_MULTIPLES_UP_TO = 1 << 20  # multiples of 256 sampled this far (4,096 of them); past it, powers of two


def predict(m: KernelModel, sizes: dict[str, tuple[int, int]]) -> tuple[list[Predicted], bool]:
    """The specializations the declared sizes give that the warmup did not compile (and whether the
    ranges were sampled)."""
    axes, sampled = _axes(m, sizes)
    # an axis sampled past its first thousand values: its points there stand for the values between them
    thinned = [s for s in axes if sampled and s in sizes and sizes[s][1] - sizes[s][0] >= _DENSE]
    sparse = {s: int(sizes[s][0]) + _DENSE for s in thinned}
    names = list(axes)
    grids = np.meshgrid(*axes.values(), indexing="ij") if axes else []
    env = {n: g.ravel() for n, g in zip(names, grids, strict=True)}
    _held_columns(m, env)
    count = len(next(iter(env.values()))) if env else 1
    columns = [np.broadcast_to(_code(m, p, env), (count,)) for p in m.params]
    table = np.stack(columns, axis=1) if columns else np.zeros((1, 0), dtype=np.int64)
    rows, first, counts = np.unique(table, axis=0, return_index=True, return_counts=True)
    found = []
    for row, index, points in zip(rows, first, counts, strict=True):
        key = tuple(_param(m, p, env, int(index)) for p in m.params)
        if key in m.warmup:
            continue
        mask = np.all(table == row, axis=1)
        example = {n: int(env[n][index]) for n in names if not n.startswith("held:")}
        where = _where({n: env[n][mask] for n in names if not n.startswith("held:")}, sparse)
        arguments = {p.name: _at(m, p, env, int(index)) for p in m.params if p.kind in ("int", "constexpr")}
        differs = _differs(m, key, arguments)
        found.append(Predicted(m.name, key, m.configs, int(points), where, example, arguments, differs))
    return found, sampled


def _values(m: KernelModel, p: ParamModel, env: dict[str, np.ndarray]):
    if p.expr is not None:
        return evaluate(p.expr, env)
    return env[f"held:{p.name}"] if f"held:{p.name}" in env else np.int64(0)


def _code(m: KernelModel, p: ParamModel, env: dict[str, np.ndarray]) -> np.ndarray:
    """A number per point that decides the parameter's specialization (the rows compared)."""
    if p.kind == "fixed":
        return np.zeros((), dtype=np.int64)
    values = np.asarray(_values(m, p, env), dtype=np.int64)
    if p.kind in ("constexpr", "choices"):
        return values
    specialize = p.name not in m.not_specialized
    wide = (values < I32[0]) | (values > I32[1])
    return (values == 1) * specialize * 4 + (values % 16 == 0) * specialize * 2 + wide


def _at(m: KernelModel, p: ParamModel, env: dict[str, np.ndarray], index: int) -> int:
    value = np.asarray(_values(m, p, env))
    return int(value.ravel()[index] if value.ndim else value)


def _param(m: KernelModel, p: ParamModel, env: dict[str, np.ndarray], index: int) -> Param:
    if p.kind == "fixed":
        return p.held[0]
    value = _at(m, p, env, index)
    if p.kind == "choices":
        return p.held[value]
    if p.kind == "constexpr":
        return Param(p.name, "constexpr", str(value))
    return _int_param(m, p.name, value)


def _int_param(m: KernelModel, name: str, value: int) -> Param:
    """An integer argument's specialization, as Triton's launcher makes it."""
    specialize = name not in m.not_specialized
    if value == 1 and specialize:
        return Param(name, "constexpr", "1")
    return Param(name, int_type(value), None, "D" if specialize and value % 16 == 0 else "")


def _where(values: dict[str, np.ndarray], sparse: dict[str, int] | None = None) -> str:
    """The sizes that make a variant, short: `seq in 17..31 (15 values)`, `batch in 1..32 and seq = 48`,
    `seq in 2..1023 (959 of its 1,022 values)` (those not divisible by 16).
    On an axis sampled past its first thousand values (`sparse`: the first value not taken densely), a
    variant met there is said by the span of its samples, each standing for the values around it:
    `batch in 134217727..2147483649 (10 values sampled)`, `batch near 2147483649 (1 value sampled)`;
    never `batch = 2147483649`, which reads as the one size that makes it."""
    parts = []
    for name, found in values.items():
        distinct = np.unique(found)
        thinned = sparse is not None and name in sparse and distinct[-1] >= sparse[name]
        if thinned:
            span = f"near {distinct[0]}" if len(distinct) == 1 else f"in {distinct[0]}..{distinct[-1]}"
            parts.append(f"{name} {span} ({len(distinct)} value{'s' if len(distinct) > 1 else ''} sampled)")
        elif len(distinct) == 1:
            parts.append(f"{name} = {distinct[0]}")
        elif len(distinct) <= 3:
            parts.append(f"{name} in {', '.join(map(str, distinct))}")
        else:  # a span with gaps (the sizes not divisible by 16) says it is not all of it
            wide = int(distinct[-1]) - int(distinct[0]) + 1
            of = f" of its {wide:,}" if wide > len(distinct) else ""
            parts.append(f"{name} in {distinct[0]}..{distinct[-1]} ({len(distinct):,}{of} values)")
    return " and ".join(parts)


def _differs(m: KernelModel, key: tuple[Param, ...], arguments: dict[str, int]) -> tuple[str, ...]:
    """What differs from the nearest warmup specialization, in the kernel's terms."""
    nearest = min(m.warmup, key=lambda w: sum(1 for a, b in zip(w, key, strict=False) if a != b))
    launch = {"params": list(arguments), "args": [{"kind": "int", "value": v} for v in arguments.values()]}
    labels = ("the warmup", "this variant")
    said = causes(Specialization(nearest), Specialization(key), ([m.launch] if m.launch else [], [launch]), labels)
    return tuple(c.said for c in said)
