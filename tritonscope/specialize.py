"""Turns what the user typed (-c, -a, --dtype, --target, -w ...) into one fully typed Variant.

Values specialize exactly as Triton's launcher would specialize them at a real call
(an integer 1 becomes a constant, a multiple of 16 gets the divisibility hint, a
pointer is 16-byte aligned as torch allocations are); compile.py holds the Triton
calls that decide it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import KernelFileError, UsageError
from .load import LoadedKernel, plain_value
from .model import OPTION_NAMES, KernelSpec, ParamKind, Variant, format_value
from .targets import Target

_I32 = (-(2**31), 2**31 - 1)
_U64 = (2**63, 2**64 - 1)

SCALAR_TYPES = (
    "u1",
    "i8",
    "i16",
    "i32",
    "i64",
    "u8",
    "u16",
    "u32",
    "u64",
    "fp8e4nv",
    "fp8e5",
    "fp8e4b15",
    "fp8e4b8",
    "fp8e5b16",
    "fp16",
    "bf16",
    "fp32",
    "fp64",
)
_TYPE_ALIASES = {
    "bool": "u1",
    "int1": "u1",
    "i1": "u1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "float": "fp32",
    "float64": "fp64",
    "double": "fp64",
    "float8_e4m3fn": "fp8e4nv",
    "float8e4nv": "fp8e4nv",
    "float8_e5m2": "fp8e5",
    "float8e5": "fp8e5",
}


@dataclass(frozen=True)
class VariantRequest:
    """The variant flags of a command, as typed. Plain data, so it can travel to a worker process."""

    file: str
    kernel: str | None = None
    constexprs: tuple[str, ...] = ()  # NAME=VALUE
    args: tuple[str, ...] = ()  # NAME=TYPE or NAME=VALUE
    dtype: str | None = None
    target: str = "auto"
    num_warps: int | None = None
    num_stages: int | None = None
    num_ctas: int | None = None
    maxnreg: int | None = None
    config: int | None = None
    specialize: bool = True

    @property
    def options(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in OPTION_NAMES if getattr(self, name) is not None}


def canonical_type(text: str) -> str | None:
    """A Triton scalar type name for `text` (fp16, tl.float16, torch.float16...), or None."""
    name = text.strip()
    for prefix in ("tl.", "triton.language.", "torch."):
        name = name.removeprefix(prefix)
    name = _TYPE_ALIASES.get(name, name)
    return name if name in SCALAR_TYPES else None


def parse_type(text: str) -> str | None:
    """A Triton argument type (`*fp16`, `i64`) for `text`, or None when it is no type."""
    if text.startswith("*"):
        element = canonical_type(text[1:])
        return f"*{element}" if element else None
    return canonical_type(text)


def parse_value(text: str) -> Any:
    """An int, float or bool literal, or raises ValueError."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


def parse_constexpr(name: str, text: str) -> Any:
    if text.strip() == "None":
        return None
    try:
        return parse_value(text)
    except ValueError:
        pass
    dtype = canonical_type(text)
    if dtype is not None:
        return dtype
    raise UsageError(
        f"bad value for constexpr {name}: '{text}'. Expected an integer, a float, true/false, None "
        f"or a dtype such as fp16 or tl.float16"
    )


def specialize_scalar(value: Any, specialize: bool, align: bool) -> tuple[str, str]:
    """Triton's type and hint for a scalar argument value, by the launcher's rules (Triton 3.5, 3.6).

    The hint D (divisible by 16) lets the compiler vectorize; a 1 becomes a compile-time
    constant. tests/test_specialize.py checks these rules against Triton's own code.
    """
    if isinstance(value, bool):
        return "u1", ""
    if isinstance(value, float):
        return "fp32", ""
    if value == 1 and specialize:
        return "constexpr", ""
    hint = "D" if specialize and align and value % 16 == 0 else ""
    if _I32[0] <= value <= _I32[1]:
        return "i32", hint
    if _U64[0] <= value <= _U64[1]:
        return "u64", hint
    return "i64", hint


def pointer_hint(target: Target, align: bool) -> str:
    """The hint a torch tensor gets at launch: 16-byte aligned (D); on AMD also within 2 GiB (S)."""
    from triton import knobs

    hint = "D" if align else ""
    if not target.is_nvidia and knobs.amd.use_buffer_ops:
        hint += "S"
    return hint


class PointerStandIn:
    """What a heuristic sees for a pointer argument: something with a dtype, like a tensor."""

    def __init__(self, type_: str):
        import triton.language as tl

        self.dtype = tl.dtype(type_.lstrip("*"))

    @staticmethod
    def data_ptr() -> int:
        return 0


def split_assignments(items: tuple[str, ...], flag: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"{flag} expects NAME=VALUE, got '{item}'")
        result[name.strip()] = value.strip()
    return result


def specialize(kernel: LoadedKernel, request: VariantRequest, file_defaults: dict[str, Any], target: Target) -> Variant:
    spec = kernel.spec
    user_constexprs = split_assignments(request.constexprs, "-c/--constexpr")
    user_args = split_assignments(request.args, "-a/--arg")
    _check_names(spec, user_constexprs, user_args)
    dtype = _check_dtype(request.dtype)
    config = _pick_config(spec, request.config)

    arguments: dict[str, str] = {}
    signature: dict[str, str] = {}
    hints: dict[str, str] = {}
    values: dict[str, Any] = {}  # what heuristics see: argument values or pointer stand-ins
    for param, jit_param in zip(spec.params, kernel.jit.params, strict=True):
        if param.kind == ParamKind.CONSTEXPR:
            signature[param.name] = "constexpr"
            continue
        text = _argument_text(param, user_args, file_defaults, dtype)
        specialize_it = request.specialize and not jit_param.do_not_specialize
        align = request.specialize and not jit_param.do_not_specialize_on_alignment
        type_ = parse_type(text)
        if type_ is not None:
            arguments[param.name] = type_
            signature[param.name] = type_
            if type_.startswith("*") and pointer_hint(target, align):
                hints[param.name] = pointer_hint(target, align)
                values[param.name] = PointerStandIn(type_)
            continue
        if param.kind == ParamKind.POINTER and param.name in user_args:
            raise UsageError(f"{param.name} is a pointer: give its type, e.g. -a {param.name}='*fp16'")
        try:
            value = parse_value(text)
        except ValueError:
            raise UsageError(
                f"bad value for argument {param.name}: '{text}'. Expected a Triton type "
                f"(*fp16, i32, fp32...) or a number"
            ) from None
        arguments[param.name] = format_value(value)
        signature[param.name], hint = specialize_scalar(value, specialize_it, align)
        if hint:
            hints[param.name] = hint
        values[param.name] = value

    constexprs = _constexpr_values(spec, user_constexprs, config, file_defaults)
    _apply_heuristics(kernel, user_constexprs, constexprs, values)
    missing = [p.name for p in spec.params if p.kind == ParamKind.CONSTEXPR and p.name not in constexprs]
    if missing:
        example = " ".join(f"-c {name}=..." for name in missing)
        raise UsageError(
            f"kernel {spec.name} needs a value for constexpr {', '.join(missing)}",
            hint=f"for example: tritonscope dump {request.file} -k {spec.name} {example}",
        )

    options = {}
    for name in OPTION_NAMES:
        value = request.options.get(name)
        if value is None and config is not None:
            value = getattr(config, name)
        if value is None:
            value = file_defaults.get(name)
        if value is not None:
            options[name] = int(value)
    return Variant(
        kernel=spec.name,
        file=request.file,
        target=target.name,
        constexprs={p.name: constexprs[p.name] for p in spec.params if p.kind == ParamKind.CONSTEXPR},
        signature=signature,
        hints=hints,
        arguments=arguments,
        options=options,
        config=config.index if config is not None else None,
        specialize=request.specialize,
    )


def _check_names(spec: KernelSpec, constexprs: dict[str, str], args: dict[str, str]) -> None:
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


def _check_dtype(dtype: str | None) -> str | None:
    if dtype is None:
        return None
    canonical = canonical_type(dtype)
    if canonical is None:
        raise UsageError(f"unknown dtype '{dtype}'. Known: {', '.join(SCALAR_TYPES)}")
    return canonical


def _pick_config(spec: KernelSpec, index: int | None):
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
    return spec.autotune_configs[index]


def _argument_text(param, user_args: dict[str, str], file_defaults: dict[str, Any], dtype: str | None) -> str:
    """How an argument is given: -a, then --dtype for pointers, the file's defaults, the signature default."""
    if param.name in user_args:
        return user_args[param.name]
    if param.kind == ParamKind.POINTER and dtype is not None:
        return f"*{dtype}"
    if param.name in file_defaults:
        return format_value(file_defaults[param.name])
    if param.has_default and isinstance(param.default, (bool, int, float)):
        return format_value(param.default)
    return param.type


def _constexpr_values(spec: KernelSpec, user: dict[str, str], config, file_defaults: dict[str, Any]) -> dict:
    values: dict[str, Any] = {}
    for param in spec.params:
        if param.kind != ParamKind.CONSTEXPR:
            continue
        name = param.name
        if name in user:
            values[name] = parse_constexpr(name, user[name])
        elif config is not None and name in config.constexprs:
            values[name] = config.constexprs[name]
        elif name in file_defaults:
            default = file_defaults[name]
            values[name] = parse_constexpr(name, default) if isinstance(default, str) else default
        elif param.has_default:
            values[name] = param.default
    return values


def _apply_heuristics(kernel: LoadedKernel, user: dict[str, str], constexprs: dict, values: dict) -> None:
    """Runs the kernel's @triton.heuristics on the known arguments, as Triton does at launch."""
    wrapper = kernel.wrapper
    while wrapper is not kernel.jit:
        for name, heuristic in getattr(wrapper, "values", {}).items():
            if name in user:
                continue
            try:
                result = heuristic({**values, **constexprs})
            except Exception as exc:  # noqa: BLE001 - the heuristic is the user's code
                raise KernelFileError(
                    f"the heuristic for {name} of {kernel.spec.name} raised {type(exc).__name__}: {exc}",
                    hint=f"give scalar arguments it reads as values (-a NAME=VALUE), or set -c {name}=...",
                ) from exc
            constexprs[name] = plain_value(result)
        wrapper = wrapper.fn
