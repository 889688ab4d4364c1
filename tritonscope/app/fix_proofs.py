"""A recompile's fix, proved in a worker: the two launches that compiled two variants, each specialized
by Triton's own launcher code with the fix applied (`do_not_specialize`, `do_not_specialize_on_alignment`,
a size padded to a multiple of 16, a constexpr bucketed, the same options), must give one key: one
variant. Then that variant is compiled from the kernel's file, beside the variant the earlier launch
made without the fix, and what the fix costs is read off the two (registers, instructions, the
narrowest global access, the loops' bounds in the TTGIR).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ..analysis.normalize import comparable
from ..analysis.specialization import launch_values
from ..core.errors import TritonscopeError
from ..core.launches import element_size, short_dtype
from ..core.model import OPTION_NAMES, Compilation, VariantRequest
from ..core.quantities import percentage
from ..core.script_definitions import script_kernel
from ..core.stages import Stage
from ..core.targets import named
from ..core.values import TypeName, canonical_type


@dataclass(frozen=True)
class FixPlan:
    """What a proof needs, as plain data: the kernel, its parameters, the two launches, the fix."""

    kernel: str
    file: str | None
    signature: tuple[tuple[str, str], ...]  # the later variant's, in order
    declared: tuple[str, ...]  # the parameters the kernel declares constexpr
    launches: tuple[dict, dict]  # the earlier variant's launch, the later one's
    not_specialized: tuple[str, ...] = ()
    not_aligned: tuple[str, ...] = ()
    padded: tuple[str, ...] = ()
    constexprs: tuple[tuple[str, Any], ...] = ()  # a constexpr bucketed: its one value
    launch_options: tuple[tuple[tuple[str, int], ...], ...] = ((), ())  # each variant's num_warps, ...
    same_options: tuple[tuple[str, int], ...] = ()  # the options the fix gives every launch
    target: str = "sm90"
    script: bool = False  # the kernel is the traced script's own (`__main__`): made from its definitions alone


@dataclass(frozen=True)
class Proof:
    proved: bool | None  # the two launches give one key; None: not checked (why in `note`)
    keys: tuple[str, str] = ("", "")  # each launch's specialization, as the launcher makes it with the fix
    seconds: float | None = None  # the fixed variant's compile
    cost: str | None = None
    note: str | None = None


def prove(plan: FixPlan) -> Proof:
    """The fix's proof (a worker task: it imports Triton, and compiles the kernel's file)."""
    try:
        keys = tuple(
            _key(plan, launch, dict(options))
            for launch, options in zip(plan.launches, plan.launch_options, strict=True)
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return Proof(None, note=f"the launches could not be specialized again ({type(exc).__name__}: {exc})")
    touched = {*plan.not_specialized, *plan.not_aligned, *plan.padded, *(n for n, _ in plan.constexprs)}
    touched |= {n for n, _ in plan.same_options}
    texts = (_text(keys[0], touched), _text(keys[1], touched))
    if keys[0] != keys[1]:  # the keys say it: Triton's launcher finds its compiled kernel by them
        return Proof(False, texts, note="the two launches still specialize differently")
    if not plan.file:
        return Proof(True, texts, note="not compiled: the capture has no source file for the kernel")
    try:
        fixed = _compile(plan, plan.launches[0], fixed=True)
        before = [_compile(plan, launch, fixed=False) for launch in plan.launches]
    except TritonscopeError as exc:  # one key, but a kernel that no longer compiles: no fix
        return Proof(None, texts, note=f"not proved: with the fix, it does not compile: {exc.message.splitlines()[0]}")
    seconds = None if fixed.cache_hit else fixed.compile_seconds  # a read of Triton's cache is no compile time
    note = None if seconds is not None else "compiled (Triton's cache had it)"
    return Proof(True, texts, seconds, _costs(plan, before, fixed), note)


def _costs(plan: FixPlan, before: list[Compilation], fixed: Compilation) -> str:
    """What the fix changes against each variant it replaces, where the two differ: a fix measured
    against the slower one alone hid that the faster lost its 128-bit loads (h25a)."""
    said = [cost(variant, fixed) for variant in before]
    if said[0] == said[1]:
        return said[0]
    return "\n".join(
        f"from {launch_said(plan, launch, options)}: {text}"
        for launch, options, text in zip(plan.launches, plan.launch_options, said, strict=True)
    )


def launch_said(plan: FixPlan, launch: dict, options: tuple[tuple[str, int], ...]) -> str:
    """The launch's values the fix is about: `n_elements=4099`, `x_ptr at element 1`, `num_warps=8`."""
    values = launch_values(launch)
    shown = [f"{p}={values[p]}" for p in (*plan.not_specialized, *plan.padded) if isinstance(values.get(p), int)]
    shown += [f"{p} at element {values.get(p + '.storage_offset', 0)}" for p in plan.not_aligned]
    shown += [f"{n}={values.get(n)}" for n, _ in plan.constexprs]
    shown += [f"{n}={dict(options).get(n)}" for n, _ in plan.same_options]
    return ", ".join(dict.fromkeys(shown)) or "the two launches"


def _argument(plan: FixPlan, values: dict, name: str) -> Any:
    from ..triton_api.kernels import PointerArgument

    if f"{name}.dtype" in values:
        return PointerArgument(str(values[f"{name}.dtype"]), _byte_offset(values, name))
    value = values[name]
    if name in plan.padded and isinstance(value, int) and not isinstance(value, bool):
        return -(-value // 16) * 16
    return value


def _byte_offset(values: dict[str, Any], name: str) -> int:
    """Where a recorded tensor argument starts in its storage, in bytes (its alignment, the storage's being 16)."""
    return int(values.get(f"{name}.storage_offset") or 0) * element_size(str(values[f"{name}.dtype"]))


def _key(plan: FixPlan, launch: dict, options: dict[str, int]) -> tuple:
    from ..triton_api.kernels import launch_key

    values, target, bucketed = launch_values(launch), named(plan.target), dict(plan.constexprs)
    key: list[tuple] = []
    for name, _ in plan.signature:
        if name in plan.declared:
            key.append((name, "constexpr", bucketed.get(name, values.get(name))))
            continue
        argument = _argument(plan, values, name)
        key.append(
            (name, *launch_key(argument, name not in plan.not_specialized, name not in plan.not_aligned, target))
        )
    return (*key, *sorted({**options, **dict(plan.same_options)}.items()))


def _text(key: tuple, names: set[str]) -> str:
    """A key's parameters among NAMES, short: `seq_len: i32, row_stride: i32 D, BLOCK=512`."""
    shown = [f"{part[0]}={part[1]}" for part in key if len(part) == 2 and part[0] in names]  # an option
    for part in key:
        if len(part) != 3 or part[0] not in names:
            continue
        if part[1] == "constexpr":
            shown.append(f"{part[0]}={part[2]}")
        else:
            shown.append(f"{part[0]}: {part[1]}{' D' if part[2] == 'D' else ''}")
    return ", ".join(shown)


def _compile(plan: FixPlan, launch: dict, fixed: bool) -> Compilation:
    from .walk.prepare import compile_request

    return compile_request(request_for(plan, launch, fixed))


def request_for(plan: FixPlan, launch: dict, fixed: bool) -> VariantRequest:
    """The request that compiles the kernel as LAUNCH specialized it (with the plan's fix, if FIXED)."""
    values, bucketed = launch_values(launch), dict(plan.constexprs) if fixed else {}
    args: list[tuple[str, Any]] = []
    unaligned: list[str] = []  # pointers the launch gave no alignment hint, or the fix keeps from it
    for name, type_ in plan.signature:
        if name in plan.declared:
            continue
        if f"{name}.dtype" in values:
            element = canonical_type(f"torch.{values[name + '.dtype']}") or TypeName(short_dtype(type_))
            args.append((name, TypeName(f"*{element}")))
            if _byte_offset(values, name) % 16 or fixed and name in plan.not_aligned:
                unaligned.append(name)
        elif fixed and name in plan.not_specialized and isinstance(number := values.get(name), int):
            args.append((name, TypeName("i64" if abs(number) >= 2**31 else "i32")))  # a type: no hint
        else:
            args.append((name, _argument(plan, values, name) if fixed else values.get(name)))
    constexprs = tuple((n, bucketed.get(n, values.get(n))) for n in plan.declared)
    given = {**dict(plan.launch_options[0]), **(dict(plan.same_options) if fixed else {})}
    options: dict[str, Any] = {k: v for k, v in given.items() if k in OPTION_NAMES}
    source = script_kernel(str(plan.file), plan.kernel) if plan.script else None  # the program is not run again
    return VariantRequest(
        file=str(plan.file),
        kernel=plan.kernel,
        constexprs=constexprs,
        args=tuple(args),
        target=plan.target,
        source=source,  # type: ignore[arg-type]  # None: parsed from `file`
        unaligned=tuple(unaligned),
        **options,
    )


# which way each figure a cost compares is better (instructions: fewer; the narrowest access: wider)
_HIGHER_IS_BETTER = {"registers": False, "occupancy": True, "instructions": False, "global_load_bits": True,
                     "global_store_bits": True}  # fmt: skip


def cost(before: Compilation, after: Compilation) -> str:
    """What the fix changed in the compiled code: the figures that moved, and the loops' bounds."""
    from .check import machine_figures

    def figures(c: Compilation) -> dict[str, Any]:
        machine = machine_figures(c.variant.target_info, c.stages, c.line_map)
        occupancy = c.resources.occupancy.percent  # what the registers cost the SM (h25a)
        return {"registers": c.resources.registers, "occupancy": occupancy, **machine}

    def shown(name: str, value: Any) -> str:
        return percentage(value) if name == "occupancy" else str(value)

    old, new = figures(before), figures(after)
    said = []
    for name in (n for n in old if old[n] != new[n]):
        # a change for the better said so: the bucketed BLOCK's "global load bits 32 → 128" read as a cost
        better = _HIGHER_IS_BETTER.get(name)
        gained = better is not None and None not in (old[name], new[name]) and (new[name] > old[name]) == better
        said.append(f"{name.replace('_', ' ')} {shown(name, old[name])} → {shown(name, new[name])}")
        said[-1] += " (a gain)" if gained else ""
    loops = _loop_changes(before, after)
    said += loops or []
    return "; ".join(said) if said else "none seen: the same registers, instructions and access widths"


def _loop_changes(before: Compilation, after: Compilation) -> list[str]:
    """The TTGIR lines that changed, where a loop's bounds or a mask reads the fixed argument."""
    old, new = (
        comparable(Stage.TTGIR, before.stages.get(Stage.TTGIR, "")),
        comparable(Stage.TTGIR, after.stages.get(Stage.TTGIR, "")),
    )
    changed = [line for line in difflib.unified_diff(old, new, lineterm="", n=0) if line[:1] in "+-"]
    changed = [line for line in changed if not line.startswith(("+++", "---"))]
    loops = [line[1:].strip()[:90] for line in changed if "scf.for" in line]
    if not changed:
        return []
    return [f"TTGIR: {len(changed)} lines differ"] + [f"loop `{loop}`" for loop in loops[:2]]
