"""One concrete fix per cause of a kernel's recompiles, and, where it is cheap, its proof: the two
launches that made two variants specialize alike with the fix, and the one variant compiled
(app/fix_proofs.py, in a worker). The fixes:

- divisibility by 16 or the value 1 of an integer: `do_not_specialize=[...]` on @triton.jit, with its
  cost in the compiled code; a stride is padded to a multiple of 16 instead, which keeps the hint;
- a pointer's alignment: `do_not_specialize_on_alignment=[...]`;
- a constexpr taken from a size (`triton.next_power_of_2(N)`): bucketed into fewer values; one the
  kernel compares against (a row's length in its mask) is a size itself, which fewer values would
  read and write past: made a plain argument instead (not proved: that changes the source);
- launch options that differ: the same options every time;
- None, a dtype, an integer past 32 bits, a new definition: two kernels by design; warm both up.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import textwrap
from dataclasses import dataclass

from ..analysis import recompile_causes as rc
from ..analysis.specialization import generated_by_torch, not_specialized
from ..captures.timeline import Timeline
from ..core.pysource import declared_constexprs
from ..results.recompiles import Fix, KernelHistory, Variant
from .fix_proofs import FixPlan

DNS, ALIGN, PAD, BUCKET, OPTIONS, WARM = "do_not_specialize", "alignment", "pad", "bucket", "options", "warm up"
RUNTIME = "runtime"  # a constexpr the kernel compares against: a plain argument instead
PROVABLE = (DNS, ALIGN, PAD, BUCKET, OPTIONS)


@dataclass(frozen=True)
class Remedy:
    how: str  # DNS, ALIGN, PAD, BUCKET, RUNTIME, OPTIONS, WARM
    kind: str  # the cause's kind it answers
    params: tuple[str, ...]
    value: object = None  # BUCKET: the one value; OPTIONS: the option's value


HEURISTIC = "heuristic"  # `compared`'s value for a constexpr a @triton.heuristics computes


def _how(cause: rc.Cause, compared: dict[str, str] | None = None) -> str:
    if cause.kind == rc.CONSTEXPR:
        return _constexpr_how(cause, compared or {})
    if cause.kind == rc.DIVISIBILITY:
        return PAD if "stride" in str(cause.param) else DNS
    return {rc.EQUAL_TO_1: DNS, rc.ALIGNMENT: ALIGN, rc.OPTIONS: OPTIONS}.get(cause.kind, WARM)


def _constexpr_how(cause: rc.Cause, compared: dict[str, str]) -> str:
    """A changed constexpr's fix: bucketed only where it is a block's size (made from a size, or a power
    of two either side); a plain argument where the kernel compares against it (a size, a stride);
    else the kernel's own switch, each value another kernel by design. A multiplier (SCALE 2 -> 3), an
    epsilon, a dtype or a string was bucketed, which changes what the kernel computes (h20b)."""
    param = str(cause.param)
    if compared.get(param) == HEURISTIC:
        return WARM  # not the launch's to give: what the heuristic reads decides it
    if not (_an_int(cause.before) and _an_int(cause.after)):
        return WARM  # True/False (HAS_BIAS), 1e-5, tl.float16, 'relu': one value for both computes another thing
    if param in compared or _a_stride(param):
        return RUNTIME  # a size or a stride: another value reads and writes elsewhere
    if cause.made_from or _a_power_of_2(cause.before) and _a_power_of_2(cause.after):
        return BUCKET
    return WARM


def _an_int(text: str) -> bool:
    return re.fullmatch(r"-?\d+", text.strip()) is not None


def _a_power_of_2(text: str) -> bool:
    value = int(text)
    return value > 0 and value & (value - 1) == 0


def _a_stride(name: str) -> bool:
    """A parameter named as a stride (`Y_row_stride`, `stride_am`): a tensor's layout, not a block's size."""
    return "stride" in name.lower()


def compared_names(source: str) -> dict[str, str]:
    """{name: the first comparison it is in} for the names the kernel's source compares against
    (`col_offsets < n_cols`): a constexpr among them is a size, not a block's, whatever its value. A
    name inside a call in the comparison (`tl.arange(0, BLOCK) < n`), or that shapes a tensor
    anywhere (`tl.arange(0, BLOCK)`), is a block's: not one of them."""
    found: dict[str, str] = {}
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return found
    found.update(dict.fromkeys(_heuristic_names(tree), HEURISTIC))
    shaping = {n.id for call in ast.walk(tree) if _shapes(call) for n in _names(call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for name in _names(node):
                if name.id not in shaping:
                    found.setdefault(name.id, ast.unparse(node))
    return found


def _heuristic_names(tree: ast.AST) -> set[str]:
    """The constexprs a `@triton.heuristics({...})` decorator computes (its dict's keys)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "heuristics":
            table = node.args[0]
            if isinstance(table, ast.Dict):
                found |= {k.value for k in table.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


_SHAPING = {"arange", "zeros", "full", "reshape", "view", "broadcast_to", "static_range"}  # a block's size


def _shapes(node: ast.AST) -> bool:
    """Whether a call makes a tensor's shape from its arguments (`tl.arange(0, BLOCK)`)."""
    func = node.func if isinstance(node, ast.Call) else None
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _SHAPING


def _names(node: ast.AST) -> list[ast.Name]:
    """The names of an expression outside the calls in it (a Call's own arguments, where it is one)."""
    pending = list(ast.iter_child_nodes(node)) if isinstance(node, ast.Call) else [node]
    found = []
    while pending:
        item = pending.pop()
        if isinstance(item, ast.Name):
            found.append(item)
        elif not isinstance(item, ast.Call):
            pending.extend(ast.iter_child_nodes(item))
    return found


def remedies(kernel: KernelHistory, compared: dict[str, str] | None = None) -> list[Remedy]:
    """The kernel's remedies, one per kind of change, each naming every parameter it covers."""
    found: dict[tuple[str, str | None], Remedy] = {}
    causes = [cause for variant in kernel.variants for cause in variant.causes]
    # a constexpr's fix is one for all its values: SCALE 1 -> 2 -> 3 is a switch, not a size bucketed
    firm = {WARM: 0, RUNTIME: 1, BUCKET: 2}
    constexpr_how: dict[str | None, str] = {}
    for cause in causes:
        if cause.kind == rc.CONSTEXPR:
            how = _how(cause, compared)
            constexpr_how[cause.param] = min(how, constexpr_how.get(cause.param, how), key=firm.__getitem__)
    for cause in causes:
        how = constexpr_how[cause.param] if cause.kind == rc.CONSTEXPR else _how(cause, compared)
        key = (how, cause.param if how in (BUCKET, RUNTIME, OPTIONS) else cause.kind if how == WARM else None)
        known = found.get(key)
        params = tuple(dict.fromkeys((*(known.params if known else ()), str(cause.param))))
        found[key] = Remedy(how, known.kind if known else cause.kind, params, _value(kernel, cause, how))
    return list(found.values())


def _value(kernel: KernelHistory, cause: rc.Cause, how: str) -> object:
    if how == OPTIONS:
        return cause.before
    if how != BUCKET:
        return None
    values = [int(v) for v in _constexpr_values(kernel, str(cause.param)) if v.lstrip("-").isdigit()]
    return max(values) if values else cause.after


def _constexpr_values(kernel: KernelHistory, name: str) -> list[str]:
    found = []
    for variant in kernel.variants:
        match = re.search(rf"(?:^|, ){re.escape(name)}=([^,]+)", variant.specialization)
        if match:
            found.append(match.group(1))
    return found


def _decorated(source: str, keyword: str, names: tuple[str, ...]) -> str:
    """The kernel's @triton.jit line with KEYWORD=[NAMES] added."""
    line = next(
        (x.strip() for x in source.splitlines() if x.strip().startswith(("@triton.jit", "@jit"))), "@triton.jit"
    )
    listed = "[" + ", ".join(f'"{n}"' for n in names) + "]"
    if "(" not in line:
        return f"{line}({keyword}={listed})"
    inside = line[line.index("(") + 1 : line.rindex(")")].strip()
    return f"{line[: line.index('(')]}({inside + ', ' if inside else ''}{keyword}={listed})"


def fix(kernel: KernelHistory, remedy: Remedy, record: dict, compared: dict[str, str]) -> Fix:
    """The remedy said as a change to the program, not yet proved (`compared`: compared_names of its source)."""
    source, names = str(record.get("source") or ""), ", ".join(f"`{p}`" for p in remedy.params)
    param = ", ".join(remedy.params)
    if remedy.how == DNS:
        code = _decorated(source, "do_not_specialize", remedy.params)
        said = f"{code}: Triton then neither makes {names} a constant when 1 nor marks its divisibility by 16"
    elif remedy.how == ALIGN:
        code = _decorated(source, "do_not_specialize_on_alignment", remedy.params)
        said = (
            f"{code} (or pass {names} from the start of a storage of its own: .clone(); .contiguous() "
            "copies no view that is contiguous already)"
        )
    elif remedy.how == PAD:
        code = f"{remedy.params[0]} = triton.cdiv({remedy.params[0]}, 16) * 16  # allocate rows this wide"
        said = f"pad {names} to a multiple of 16 where the rows are allocated, so it is divisible by 16 at every size"
    elif remedy.how == BUCKET:
        code = _bucket_code(kernel, remedy)
        said = f"bucket `{param}` into fewer values: launch with {code}"
    elif remedy.how == RUNTIME:
        code = f"{param}  # not `{param}: tl.constexpr`"
        compared_in = compared.get(param)
        what = (
            f"`{param}` is a constexpr the kernel compares against (`{compared_in}`): a size, each value compiled "
            "anew, which fewer values would read and write past"
            if compared_in
            else f"`{param}` is a constexpr that takes a stride: each value compiled anew, and another value "
            "would address other rows"
        )
        said = f"{what}; pass it as a plain argument (drop `: tl.constexpr` from `{param}`), so one compile serves all"
    elif remedy.how == OPTIONS:
        code = f"{param}={remedy.value}"
        said = f"launch with {code} every time"
    else:
        code, said = "", _warm_up(kernel, remedy, compared)
    return Fix(remedy.kind, param, said, code)


def _bucket_code(kernel: KernelHistory, remedy: Remedy) -> str:
    name = remedy.params[0]
    made = next((c.made_from for v in kernel.variants for c in v.causes if c.param == name and c.made_from), None)
    return f"{name}=max({remedy.value}, triton.next_power_of_2({made}))" if made else f"{name}={remedy.value}"


def _warm_up(kernel: KernelHistory, remedy: Remedy, compared: dict[str, str]) -> str:
    names = ", ".join(f"`{p}`" for p in remedy.params)
    if remedy.kind == rc.NONE:
        other = "None" if _late_none(kernel, remedy.params[0]) else "a tensor"
        return (
            f"launch {kernel.name} with {names} {other} in the warmup too: a None is a constant, two kernels by design"
        )
    if remedy.kind == rc.CONSTEXPR:  # a heuristic's, or a switch's (_how)
        several = len(remedy.params) > 1
        switch = "the kernel's own switches" if several else "the kernel's own switch"
        whose = (
            "computed by the kernel's @triton.heuristics from the launch's arguments"
            if any(compared.get(n) == HEURISTIC for n in remedy.params)
            else f"{switch} (not a block's size): each value another kernel, by design"
        )
        verb, its = ("are", "their") if several else ("is", "its")
        return f"{names} {verb} {whose}; warm up with launches that give each of {its} values"
    if remedy.kind == rc.DTYPE:
        given_1 = [
            c.param for v in kernel.variants for c in v.causes if c.kind == rc.DTYPE and "1" in (c.before, c.after)
        ]
        if given_1:
            ones = ", ".join(f"`{p}`" for p in dict.fromkeys(given_1))
            return f"pass {ones} as a float (1.0, not 1): Triton makes an int 1 a constant, a float never"
        return f"run the warmup with this dtype of {names} too, or cast to the warmup's before the launch"
    if remedy.kind == rc.INTEGER_WIDTH:
        return f"warm up with {names} of 2**31 or more too: past 32 bits Triton compiles an i64 variant"
    return f"define {kernel.name} once, at the module's top level: a kernel made again, or changed, is a new kernel"


def _late_none(kernel: KernelHistory, name: str) -> bool:
    """Whether the later variants pass None for NAME where the first did not (a tensor, then None)."""
    first = re.search(rf"(?:^|, ){re.escape(name)}(=None|:)", kernel.variants[0].specialization)
    return first is not None and first.group(1) == ":"


def with_fixes(histories: list[KernelHistory], timeline: Timeline, prove: bool) -> list[KernelHistory]:
    """Each kernel with its fixes; with PROVE, each provable one proved in a worker."""
    records = {str(r.get("hash")): r for r in timeline.compiles}
    planned: list[tuple[int, int, FixPlan]] = []
    fixed: list[KernelHistory] = []
    for number, kernel in enumerate(histories):
        first = records.get(kernel.variants[0].hash, {})
        if generated_by_torch(first):
            fixed.append(kernel)  # torch.compile's recompile carries the fix
            continue
        compared = compared_names(str(first.get("source") or ""))
        found = remedies(kernel, compared)
        fixes = [fix(kernel, r, first, compared) for r in found]
        for index, remedy in enumerate(found):
            provable = prove and remedy.how in PROVABLE
            for plan in _plans(kernel, remedy, found, timeline, records, compared) if provable else []:
                planned.append((number, index, plan))
        fixed.append(dataclasses.replace(kernel, fixes=tuple(fixes)))
    if planned:
        from .recompile_proving import proved

        fixed = proved(fixed, planned)
    return fixed


def _plans(
    kernel: KernelHistory, remedy: Remedy, every: list[Remedy], timeline: Timeline, records, compared: dict[str, str]
) -> list[FixPlan]:
    """The proofs of REMEDY: on the first recompile it answers whose every cause has a provable remedy,
    and on the first of each of its parameters that one leaves untested (do_not_specialize=["n",
    "alpha"] proved on n's recompile alone never launched alpha=1: h25a)."""
    launches = timeline.launches_by_hash()
    plans: list[FixPlan] = []
    tested: set[str] = set()
    for variant in kernel.variants:
        answered = {c.param for c in variant.causes if c.param in remedy.params and _how(c, compared) == remedy.how}
        if not answered - tested:
            continue
        needed = _needed(remedy, every, variant.causes, compared)
        earlier = next((v for v in kernel.variants if v.number == variant.compared_with), None)
        pair = (_first_launch(launches, earlier), _first_launch(launches, variant))
        if earlier is None or None in pair or any(r.how not in PROVABLE for r in needed):
            continue
        plans.append(_fix_plan(kernel, needed, pair, (records[earlier.hash], records[variant.hash])))
        tested |= answered
    return plans


def _needed(remedy: Remedy, every: list[Remedy], causes, compared: dict[str, str]) -> list[Remedy]:
    """REMEDY whole, with the other remedies this variant's causes need, each kept to the parameters
    whose cause it answers here and REMEDY leaves: padding `row_stride` is proved with `n_cols`
    unspecialized, not beside a do_not_specialize of `row_stride` too, which undoes the padding."""
    covered = set(remedy.params)
    found = [remedy]
    for other in every:
        if other is remedy:
            continue
        answered = {c.param for c in causes if _how(c, compared) == other.how}
        kept = tuple(p for p in other.params if p in answered and p not in covered)
        if kept:
            found.append(dataclasses.replace(other, params=kept))
            covered.update(kept)
    return found


def _first_launch(launches: dict[str, list[dict]], variant: Variant | None) -> dict | None:
    found = launches.get(variant.hash) if variant is not None else None
    return found[0] if found and found[0].get("params") else None


def _fix_plan(kernel: KernelHistory, needed: list[Remedy], pair, records: tuple[dict, dict]) -> FixPlan:
    source = str(records[1].get("source") or "")
    dns, dnsoa = not_specialized(source)
    declared = declared_constexprs(source, kernel.name) or set()
    params = lambda how: tuple(p for r in needed if r.how == how for p in r.params)  # noqa: E731
    return FixPlan(
        kernel=kernel.name,
        file=records[1].get("file"),
        signature=tuple((str(n), str(t)) for n, t in (records[1].get("signature") or {}).items()),
        declared=tuple(n for n in (records[1].get("signature") or {}) if n in declared),
        launches=pair,
        not_specialized=tuple(dns) + params(DNS),
        not_aligned=tuple(dnsoa) + params(ALIGN),
        padded=params(PAD),
        constexprs=tuple((r.params[0], r.value) for r in needed if r.how == BUCKET),
        launch_options=tuple(tuple(sorted((r.get("options") or {}).items())) for r in records),
        same_options=tuple((r.params[0], int(str(r.value))) for r in needed if r.how == OPTIONS),
        script=records[1].get("module") == "__main__",
    )
