"""Turns a VariantRequest (typed values from the command line) into one fully typed Variant.

Values specialize exactly as Triton's launcher would specialize them at a real call
(an integer 1 becomes a constant, a multiple of 16 gets the divisibility hint, a
pointer is 16-byte aligned as torch allocations are, None is a constant);
tests/test_specialize.py checks these rules against Triton's own code.
"""

from __future__ import annotations

from typing import Any

from ...core.errors import CompileError, KernelFileError, MissingValues, TritonscopeError, UsageError
from ...core.limits import time_limit
from ...core.model import OPTION_NAMES, KernelSpec, ParamKind, Variant, VariantRequest
from ...core.stages import Language
from ...core.targets import Target
from ...core.values import INT64, SCALAR_TYPES, TypeName, canonical_type, int_type, parse
from ...triton_api import kernels as triton_kernels
from ...triton_api import shims
from .load import LoadedKernel


def specialize_scalar(value: Any, specialize: bool, align: bool) -> tuple[str, str]:
    """Triton's type and hint for a scalar argument value, by the launcher's rules (Triton 3.5 on).

    The hint D (divisible by 16) lets the compiler vectorize; a 1 becomes a compile-time
    constant, and so does None.
    """
    if value is None:
        return "constexpr", ""
    if isinstance(value, bool):
        return "u1", ""
    if isinstance(value, float):
        return "fp32", ""
    if value == 1 and specialize:
        return "constexpr", ""
    hint = "D" if specialize and align and value % 16 == 0 else ""
    return int_type(value), hint


def pointer_hint(target: Target, align: bool) -> str:
    """The hint a torch tensor gets at launch: 16-byte aligned (D); on AMD also within 2 GiB (S)."""
    hint = "D" if align else ""
    if target.backend == "hip" and triton_kernels.uses_buffer_ops():
        hint += "S"
    return hint


class PointerStandIn:
    """What a heuristic sees for a pointer argument: something with a dtype, like a tensor."""

    def __init__(self, type_: TypeName):
        self.dtype = triton_kernels.dtype(type_.element)

    @staticmethod
    def data_ptr() -> int:
        return 0


def specialize(kernel: LoadedKernel, request: VariantRequest, file_defaults: dict[str, Any], target: Target) -> Variant:
    spec = kernel.spec
    user_constexprs, user_args = dict(request.constexprs), dict(request.args)
    _check_names(spec, user_constexprs, user_args)
    config = _pick_config(spec, request.config, target)
    arguments, signature, hints, seen = _arguments(kernel, request, user_args, file_defaults, target)
    constexprs = _constexpr_values(spec, user_constexprs, config, file_defaults)
    _apply_heuristics(kernel, user_constexprs, constexprs, seen, target)
    _check_complete(kernel, constexprs, request)
    return Variant(
        kernel=spec.name,
        file=request.file,
        target=target.name,
        constexprs={p.name: constexprs[p.name] for p in spec.params if p.kind == ParamKind.CONSTEXPR},
        signature=signature,
        hints=hints,
        arguments=arguments,
        options=_check_options(_options(spec, request, config, file_defaults, target), target),
        config=config.index if config is not None else None,
        specialize=request.specialize,
        inferred=_inferred(spec, signature, set(user_args) | set(file_defaults), request.dtype),
        assumed=tuple(
            name
            for name, value in arguments.items()
            if isinstance(value, TypeName) and not value.is_pointer and name not in {*user_args, *file_defaults}
        ),
        triton=request.triton,
    )


def _inferred(spec: KernelSpec, signature: dict[str, str], given: set[str], dtype: TypeName | None) -> dict:
    """The argument types tritonscope guessed (from the body, or i32 by default) rather than was given."""
    guessed = {}
    for p in spec.params:
        if p.type_from not in ("body", "branch", "assumed") or p.name in given or p.kind == ParamKind.CONSTEXPR:
            continue
        if not (p.kind == ParamKind.POINTER and dtype is not None and not _index_table(p)):
            guessed[p.name] = signature[p.name]
    return guessed


def _arguments(kernel: LoadedKernel, request: VariantRequest, user_args: dict, defaults: dict, target: Target):
    """(arguments as given, signature, hints, what heuristics see) for every non-constexpr parameter."""
    arguments: dict[str, Any] = {}
    signature: dict[str, str] = {}
    hints: dict[str, str] = {}
    seen: dict[str, Any] = {}  # argument values, or pointer stand-ins
    for param, jit_param in zip(kernel.spec.params, kernel.jit.params, strict=True):
        if param.kind == ParamKind.CONSTEXPR:
            signature[param.name] = "constexpr"
            continue
        value = _argument_value(param, user_args, defaults, request.dtype)
        _check_pointer(param, value, param.name in user_args)
        arguments[param.name] = value
        dropped = {list_name for list_name, name in request.dropped_from_decorator if name == param.name}
        align = request.specialize and (
            not jit_param.do_not_specialize_on_alignment or "do_not_specialize_on_alignment" in dropped
        )
        align = align and param.name not in request.unaligned
        if isinstance(value, TypeName):
            if value.is_descriptor and kernel.spec.language == Language.GLUON:
                value = TypeName(triton_kernels.gluon_descriptor(value))  # with the shared layout Gluon's needs
                arguments[param.name] = value
            signature[param.name] = str(value)
            if value.is_pointer:
                seen[param.name] = PointerStandIn(value)
                if pointer_hint(target, align):
                    hints[param.name] = pointer_hint(target, align)
            continue
        _check_scalar(param.name, param.kind, value)
        specialize_it = request.specialize and (not jit_param.do_not_specialize or "do_not_specialize" in dropped)
        signature[param.name], hint = specialize_scalar(value, specialize_it, align)
        if hint:
            hints[param.name] = hint
        seen[param.name] = value
    return arguments, signature, hints, seen


def _check_pointer(param, value: Any, given: bool) -> None:
    """A parameter the kernel uses as a pointer (its annotation says so, or it is loaded from or
    stored to) takes a pointer type or None; a number or a scalar type for it would fail deep in
    the compile."""
    sure = param.kind == ParamKind.POINTER and param.type_from in ("annotation", "body")
    pointer = value is None or isinstance(value, TypeName) and value.is_pointer
    # A body that makes a descriptor of its argument may be given a descriptor instead (Triton's
    # fused-attention tutorial: `_maybe_make_tensor_desc(desc_q, ...)` takes either).
    pointer = pointer or param.type_from in ("body", "branch") and isinstance(value, TypeName) and value.is_descriptor
    if given and isinstance(value, str) and value.startswith("*") and canonical_type(value) is None:  # no such type
        raise UsageError(f"-a {param.name}={value}: unknown type '{value[1:]}'. Known: {', '.join(SCALAR_TYPES)}")
    if sure and given and not pointer:
        how = "its annotation says so" if param.type_from == "annotation" else "the kernel loads or stores through it"
        raise UsageError(
            f"-a {param.name}={value}: {param.name} is a pointer ({how}); give the type it points to, such as "
            f"-a {param.name}='*fp16' or '*i32', or None for a null pointer"
        )


def _check_scalar(name: str, kind: ParamKind, value: Any) -> None:
    if isinstance(value, str):
        raise UsageError(
            f"bad value for argument {name}: '{value}'. Expected a Triton type (*fp16, i32, fp32...), "
            f"a number, true/false or None",
            hint="only constexprs can be strings",
        )
    if isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
        raise UsageError(f"argument {name}={value} does not fit in 64 bits, as every integer argument must")


def _index_table(param) -> bool:
    """A pointer inferred to hold indices (analysis/infer.py: `*i32`): --dtype, the data's element type,
    is not its type."""
    return param.type_from in ("body", "branch") and param.type == "*i32"


def _argument_value(param, user_args: dict, defaults: dict, dtype: TypeName | None) -> Any:
    """How an argument is given: -a, then --dtype for pointers, the file's defaults, the signature default."""
    if param.name in user_args:
        return user_args[param.name]
    if param.kind == ParamKind.POINTER and dtype is not None and not _index_table(param):
        return TypeName(f"*{dtype.element}")
    if param.name in defaults:
        default = defaults[param.name]
        return parse(default) if isinstance(default, str) else default
    if param.has_default and (param.default is None or isinstance(param.default, (bool, int, float))):
        return param.default
    return TypeName(param.type)


def _check_names(spec: KernelSpec, constexprs: dict[str, Any], args: dict[str, Any]) -> None:
    declared_constexprs = [p.name for p in spec.params if p.kind == ParamKind.CONSTEXPR]
    arguments = [p.name for p in spec.params if p.kind != ParamKind.CONSTEXPR]
    for name in constexprs:
        if name in arguments:
            raise UsageError(f"{name} is an argument of {spec.name}, not a constexpr: give it with -a {name}=...")
        if name not in declared_constexprs:
            raise UsageError(
                f"{spec.name} has no constexpr '{name}'. Constexprs: {', '.join(declared_constexprs) or 'none'}"
            )
    for name in args:
        if name in declared_constexprs:
            raise UsageError(f"{name} is a constexpr of {spec.name}, not an argument: give it with -c {name}=...")
        if name not in arguments:
            raise UsageError(f"{spec.name} has no argument '{name}'. Arguments: {', '.join(arguments) or 'none'}")


def _pick_config(spec: KernelSpec, index: int | None, target: Target):
    if not spec.autotune_configs:
        if index is not None:
            raise UsageError(f"--config: {spec.name} is not autotuned (it has no @triton.autotune configs)")
        return None
    index = 0 if index is None else index
    if not 0 <= index < len(spec.autotune_configs):
        raise UsageError(
            f"--config {index}: {spec.name} has {len(spec.autotune_configs)} autotune configs, "
            f"numbered 0 to {len(spec.autotune_configs) - 1}"
        )
    config = spec.autotune_configs[index]
    known = {param.name for param in spec.params} | shims.backend_option_names(target)
    unknown = [name for name in config.constexprs if name not in known]
    if unknown:  # Triton's launch raises "Keyword argument NOPE was specified but unrecognised"
        raise CompileError(
            f"config {index} of {spec.name} sets {', '.join(unknown)}, which is neither a parameter of the kernel "
            f"nor a compile option of {target.name}'s backend: a launch with it raises KeyError"
        )
    return config


def _constexpr_values(spec: KernelSpec, user: dict[str, Any], config, file_defaults: dict[str, Any]) -> dict:
    values: dict[str, Any] = {}
    for param in spec.params:
        if param.kind != ParamKind.CONSTEXPR:
            continue
        name = param.name
        if name in user:
            values[name] = user[name]
        elif config is not None and name in config.constexprs:
            values[name] = config.constexprs[name]
        elif name in file_defaults:
            default = file_defaults[name]
            values[name] = parse(default) if isinstance(default, str) else default
        elif param.has_default:
            values[name] = param.default
    return values


def _apply_heuristics(kernel: LoadedKernel, user: dict[str, Any], constexprs: dict, seen: dict, target: Target) -> None:
    """Runs the kernel's @triton.heuristics on the known arguments, as Triton does at launch; one that
    asks the GPU (attorch's `allow_tf32()`: torch.cuda.get_device_capability) gets the target's, simulated."""
    for wrapper in kernel.wrappers:
        for name, heuristic in triton_kernels.heuristics(wrapper).items():
            if name in user:
                continue
            try:
                with time_limit(f"the heuristic for {name} of {kernel.spec.name}"):
                    result = _heuristic_value(heuristic, {**seen, **constexprs}, target)
            except TritonscopeError:
                raise
            except Exception as exc:  # the heuristic is the user's code
                missing = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
                if missing in {p.name for p in kernel.spec.params}:  # it reads an argument given no value
                    raise UsageError(
                        f"the heuristic for {name} of {kernel.spec.name} reads {missing}, which was given no value",
                        hint=f"give it: -a {missing}=VALUE (or set -c {name}=...)",
                    ) from exc
                raise KernelFileError(
                    f"the heuristic for {name} of {kernel.spec.name} raised {type(exc).__name__}: {exc}",
                    hint=f"give scalar arguments it reads as values (-a NAME=VALUE), or set -c {name}=...",
                ) from exc
            value = triton_kernels.plain_value(result)
            if not triton_kernels.is_constexpr_value(result):
                raise KernelFileError(
                    f"the heuristic for {name} of {kernel.spec.name} returned a {type(result).__name__}, "
                    f"not a constexpr value (a number, bool, string, None or dtype)",
                    hint=f"set it with -c {name}=...",
                )
            constexprs[name] = value


def _heuristic_value(heuristic, arguments: dict, target: Target) -> Any:
    """HEURISTIC(ARGUMENTS); where it fails with no GPU visible, again with the target's GPU simulated."""
    from .simulated_import import can_simulate, simulated

    try:
        return heuristic(arguments)
    except TritonscopeError:  # its time limit: not a question of the GPU
        raise
    except Exception:
        if not can_simulate():
            raise
    with simulated(target):
        return heuristic(arguments)


def _check_complete(kernel: LoadedKernel, constexprs: dict, request: VariantRequest) -> None:
    spec = kernel.spec
    missing = [p.name for p in spec.params if p.kind == ParamKind.CONSTEXPR and p.name not in constexprs]
    if missing:
        example = " ".join(f"-c {name}=..." for name in missing)
        # gemlite's NUM_STAGES: in no config, its autotuner's own pruner adds it at launch
        pruned = [w for w in kernel.wrappers if "early_config_prune" in triton_kernels.config_pruners(w)]
        why = " (in none of its autotune configs: its prune_configs_by's early_config_prune sets it at launch)"
        missing_values = MissingValues(
            f"kernel {spec.name} needs a value for constexpr {', '.join(missing)}" + (why if pruned else ""),
            hint=f"give {'them' if len(missing) > 1 else 'it'}: {example}",  # every command's flag
        )
        missing_values.kernel = spec
        raise missing_values


def _check_options(options: dict[str, int], target: Target) -> dict[str, int]:
    """What Triton would reject deep in its pipeline (or with an MLIR dump), said up front."""
    for name in ("num_warps", "num_ctas"):
        value = options.get(name)
        if value is not None and (value < 1 or value & (value - 1)):
            flag = "-w/--num-warps" if name == "num_warps" else "--num-ctas"
            raise UsageError(f"{flag} {value}: {name} must be a power of 2 (1, 2, 4, 8, ...)")
    stages, maxnreg = options.get("num_stages"), options.get("maxnreg")
    if stages is not None and stages < 0:
        raise UsageError(f"-s/--num-stages {stages}: num_stages is 0 or more (1: no software pipelining)")
    if maxnreg is not None and maxnreg < 1:
        raise UsageError(f"--maxnreg {maxnreg}: a register cap per thread is 1 or more")
    ctas = options.get("num_ctas", 1)
    if ctas > 1 and (target.backend != "cuda" or int(target.arch) < 90):
        raise UsageError(f"--num-ctas {ctas}: CTA clusters need sm90 or newer; {target.name} runs num_ctas=1")
    return options


def _options(
    spec: KernelSpec, request: VariantRequest, config, file_defaults: dict[str, Any], target: Target
) -> dict[str, Any]:
    """The compile options: each of OPTION_NAMES as given, else the config's, else the file's; and the
    backend's own a config sets (waves_per_eu), which the launcher passes to the compile too."""
    options: dict[str, Any] = {}
    if config is not None:
        backend = shims.backend_option_names(target) - set(OPTION_NAMES) - {p.name for p in spec.params}
        options.update({name: value for name, value in config.constexprs.items() if name in backend})
    for name in OPTION_NAMES:
        value = request.options.get(name)
        if value is None and config is not None:
            value = getattr(config, name)
        if value is None:
            value = file_defaults.get(name)
        if value is not None:
            options[name] = int(value)
    return options
