"""Kernels as Triton defines them: recognising them, their parameters, autotune configs, dtypes."""

from __future__ import annotations

from typing import Any

import triton.language as tl
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import JITFunction

_MAX_WRAPPERS = 16  # a `.fn` chain longer than this is taken for a cycle


def unwrap(obj: Any) -> tuple[Any, list[Any]] | None:
    """The JITFunction inside `obj`, with the wrappers around it (outermost first); None if none.

    Wrappers are found by what they are, not their names: Triton's Autotuner and Heuristics,
    a library's subclass of them or of KernelInterface, or any object that holds the kernel
    in `.fn` (a `libentry`-style wrapper).
    """
    wrappers: list[Any] = []
    while not isinstance(obj, JITFunction):
        if _is_interpreted_function(obj):
            # @triton.jit under TRITON_INTERPRET=1 (a learner's notebook runs kernels on the CPU so): the
            # function and options the JITFunction would have had
            return JITFunction(obj.fn, **getattr(obj, "kwargs", {})), wrappers
        inner = getattr(obj, "fn", None) if not isinstance(obj, type) else None
        if inner is None or len(wrappers) >= _MAX_WRAPPERS:
            return None
        wrappers.append(obj)
        obj = inner
    return obj, wrappers


def interpreted(obj: Any) -> bool:
    """Whether `obj`, or the kernel its wrappers hold, was made by @triton.jit under TRITON_INTERPRET=1."""
    for _ in range(_MAX_WRAPPERS + 1):
        if _is_interpreted_function(obj):
            return True
        obj = getattr(obj, "fn", None) if not isinstance(obj, type) else None
        if obj is None:
            return False
    return False


def _is_interpreted_function(obj: Any) -> bool:
    return type(obj).__module__ == "triton.runtime.interpreter" and type(obj).__name__ == "InterpretedFunction"


def is_gluon(jit: Any) -> bool:
    """Whether a kernel is written in Gluon (`@gluon.jit`): its source starts at TTGIR, with the
    layouts its author wrote (GluonJITFunction.is_gluon, 3.5 to 3.9)."""
    check = getattr(jit, "is_gluon", None)
    return bool(check()) if callable(check) else False


def source_class(jit: Any) -> type:
    """Triton's AST source for a kernel: Gluon's own for `@gluon.jit`, whose make_ir sets the module's
    warps, CTAs and target before the body is built, as its layouts need."""
    if is_gluon(jit):
        from triton.experimental.gluon._runtime import GluonASTSource  # type: ignore[import-untyped]

        return GluonASTSource
    from triton.compiler import ASTSource

    return ASTSource


def gluon_descriptor(type_name: str) -> str:
    """A TMA descriptor's type as Gluon's launcher writes it, `tensordesc<fp16[64, 64],NVMMASharedLayout(...)>`:
    one given without a layout gets the one `NVMMASharedLayout.get_default_for` picks for its block,
    as host code building it with `TensorDescriptor.from_tensor` usually passes."""
    if "," in type_name.split("]", 1)[-1]:
        return type_name  # the user named the layout
    from triton.experimental.gluon.language import NVMMASharedLayout  # type: ignore[import-untyped]

    element, shape = type_name.removeprefix("tensordesc<").removesuffix(">").split("[", 1)
    block = [int(d) for d in shape.rstrip("]").split(",")]
    layout = NVMMASharedLayout.get_default_for(block, dtype(element))
    return f"tensordesc<{element}[{', '.join(map(str, block))}],{layout!r}>"


def gluon_layout(text: str) -> Any:
    """The Gluon layout object a `-c layout=gl.BlockedLayout(...)` names, built by Gluon's own classes:
    the text is evaluated with only Gluon's layout classes in scope (no builtins), so it can do nothing
    but call them with literal arguments."""
    import ast

    from triton.experimental.gluon import language as gl  # type: ignore[import-untyped]
    from triton.experimental.gluon.language import _layouts

    from ..core.errors import UsageError

    names = {n: getattr(_layouts, n) for n in dir(_layouts) if n.endswith("Layout")}
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not (
            isinstance(node.value, ast.Name) and node.value.id in ("gl", "ttgl")
        ):
            raise UsageError(f"the layout {text}: only gl.<Layout>(...) calls with literal arguments")
        if isinstance(node, ast.Name) and node.id not in names and node.id not in ("gl", "ttgl"):
            raise UsageError(f"the layout {text}: unknown name {node.id} (Gluon's layouts: {', '.join(sorted(names))})")
    namespace = {"__builtins__": {}, "gl": gl, "ttgl": gl, **names}
    try:
        return eval(compile(tree, "<layout>", "eval"), namespace)  # noqa: S307 - checked above: layout calls only
    except Exception as exc:  # noqa: BLE001 - Gluon checks its layouts' fields with asserts and TypeErrors
        raise UsageError(f"the layout {text}: {type(exc).__name__}: {exc}") from None


def autotune_configs(wrapper: Any) -> list[Any] | None:
    """An Autotuner's configs (any subclass); None for other wrappers."""
    return list(wrapper.configs) if isinstance(wrapper, Autotuner) else None


def config_pruners(wrapper: Any) -> tuple[str, ...]:
    """An Autotuner's own pruning of its configs (`prune_configs_by`): early_config_prune, perf_model."""
    if not isinstance(wrapper, Autotuner):
        return ()
    return tuple(name for name in ("early_config_prune", "perf_model") if getattr(wrapper, name, None))


def heuristics(wrapper: Any) -> dict[str, Any]:
    """A Heuristics wrapper's {constexpr name: function}; empty for other wrappers."""
    return dict(wrapper.values) if isinstance(wrapper, Heuristics) else {}


def dtype(name: str):
    """Triton's dtype object for a Triton type name (fp16, i32, u1), as a constexpr or a pointer's element
    (`triton.language.str_to_ty`, 3.5 to 3.9)."""
    return tl.str_to_ty(name, None)


def plain_value(value: Any) -> Any:
    """A value as JSON-friendly data: Triton dtypes become their Triton type names (fp16, i32)."""
    from ..core.values import LayoutName, TypeName, canonical_type

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tl.dtype):
        return canonical_type(value.name) or TypeName(value.name)
    if is_constexpr_value(value) and type(value).__name__.endswith("Layout"):  # a Gluon layout object
        return LayoutName(repr(value))
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else repr(value)


def uses_buffer_ops() -> bool:
    """Whether AMD compiles use buffer operations, for which launches hint pointers as in 2 GiB range."""
    from triton import knobs

    return bool(knobs.amd.use_buffer_ops)


def is_constexpr_value(value: Any) -> bool:
    """What a constexpr may hold: a number, bool, string, None, a Triton dtype or a Gluon layout."""
    if value is None or isinstance(value, (bool, int, float, str, tl.dtype)):
        return True
    return type(value).__module__.startswith("triton.experimental.gluon") and type(value).__name__.endswith("Layout")


class PointerArgument:
    """What Triton's launcher reads of a tensor argument: its address (only its alignment matters) and dtype."""

    def __init__(self, torch_dtype: str, byte_offset: int):
        import torch

        self.dtype = getattr(torch, torch_dtype.removeprefix("torch."))
        self.byte_offset = byte_offset

    def data_ptr(self) -> int:
        return self.byte_offset


def launch_key(value: Any, specialize: bool, align: bool, target) -> tuple[str, Any]:
    """Triton's own (type, key) for one launch argument, by its launcher's code (`native_specialize_impl`,
    Triton 3.5 on): ("i32", "D") for 4096, ("constexpr", 1) for 1, ("*bf16", "") for a misaligned
    bf16 tensor; SPECIALIZE and ALIGN False as `do_not_specialize` and `do_not_specialize_on_alignment`
    make them. TARGET is a core Target."""
    from triton._C.libtriton import native_specialize_impl  # type: ignore[import-untyped]
    from triton.compiler import make_backend

    from .shims import gpu_target

    backend = type(make_backend(gpu_target(target)))
    return native_specialize_impl(backend, value, False, specialize, align)
