"""The kernels this process compiled and launched, as Triton keeps them: each JITFunction's
`device_caches` (one kernel cache per device: specialization key -> CompiledKernel), and the
launches a `ts.capture` block makes, seen through the same hook `trace` records with
(`CompiledKernel.launch_metadata`, which every launch calls while a launch-enter hook is set: capture.py).

A CompiledKernel holds its stages (`asm`), its binary and Triton's metadata, and the ASTSource it was
compiled from (the signature, constexprs and specialization attributes by parameter index): all read
here as plain data (`launched`), which app/launched.py turns into a Compilation with nothing
recompiled. Since 3.5: `device_caches`, `CompiledKernel.src/asm/metadata`, `ASTSource.constants/attrs`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from triton import knobs  # type: ignore[import-untyped]
from triton.compiler.compiler import CompiledKernel  # type: ignore[import-untyped]

from ..core.errors import UsageError
from . import kernels as triton_kernels

_CODES = {"tt.divisibility": "D", "tt.pointer_range": "S"}  # as Variant.hints spells them


def interpreted(kernel: Any) -> bool:
    """Whether the kernel runs on Triton's interpreter (TRITON_INTERPRET=1), which keeps no compile."""
    return triton_kernels.interpreted(kernel)


def kernel_name(kernel: Any) -> str | None:
    """The @triton.jit function's name inside a kernel object (through its autotune and heuristics)."""
    unwrapped = triton_kernels.unwrap(kernel)
    return unwrapped[0].__name__ if unwrapped else None


def compiled_kernels(kernel: Any) -> list[Any]:
    """The CompiledKernels a kernel object's JIT keeps, every device's, oldest first."""
    unwrapped = triton_kernels.unwrap(kernel)
    if unwrapped is None:
        raise UsageError(f"{kernel!r} is not a Triton kernel", hint="give a @triton.jit function or its wrapper")
    found = []
    for caches in getattr(unwrapped[0], "device_caches", {}).values():
        found += [k for k in caches[0].values() if isinstance(k, CompiledKernel)]
    return found


@dataclass(frozen=True)
class Launched:
    """One CompiledKernel as plain, hashable data (a task's argument, a session's key): its name, stage
    texts, binary, Triton's metadata as JSON (its target a dict, as Triton's cache writes it), and its
    specialization by parameter name."""

    name: str
    texts: tuple[tuple[str, str], ...]
    binary: bytes
    metadata: str
    signature: tuple[tuple[str, str], ...]
    constexprs: tuple[tuple[str, Any], ...]
    hints: tuple[tuple[str, str], ...]


def launched(compiled: Any) -> Launched:
    """What a CompiledKernel holds, read as plain data."""
    binary_ext = "hsaco" if compiled.metadata.target.backend == "hip" else "cubin"
    metadata = compiled.metadata._asdict()
    target = metadata["target"]
    metadata["target"] = {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}
    texts = tuple((kind, text) for kind, text in compiled.asm.items() if isinstance(text, str))
    signature, constexprs, hints = _specialization(compiled.src)
    return Launched(
        compiled.name,
        texts,
        bytes(compiled.asm[binary_ext]),
        json.dumps(metadata, default=str),
        signature,
        constexprs,
        hints,
    )


def _specialization(src: Any) -> tuple[tuple, tuple, tuple]:
    """The signature, constexprs and hints by parameter name, from the ASTSource it was compiled from
    (Triton keys constants and attributes by the parameter's path, `(3,)`)."""
    signature = dict(getattr(src, "signature", None) or {})
    names = list(signature)

    def name_of(key: Any) -> str | None:
        index = key[0] if isinstance(key, tuple) and key else None
        return names[index] if isinstance(index, int) and index < len(names) else None

    constexprs = {name_of(k): triton_kernels.plain_value(v) for k, v in (getattr(src, "constants", None) or {}).items()}
    hints = {
        name_of(k): "".join(_CODES.get(a[0], "") for a in attrs)
        for k, attrs in (getattr(src, "attrs", None) or {}).items()
        if attrs and name_of(k)
    }
    return (
        tuple((name, str(kind)) for name, kind in signature.items()),
        tuple((n, v) for n, v in constexprs.items() if n is not None),
        tuple((n, h) for n, h in hints.items() if h),
    )


def jit_of(compiled: Any) -> Any:
    """The JITFunction a CompiledKernel was compiled from (None for one compiled from IR text)."""
    return getattr(compiled.src, "fn", None)


def _nothing(*_: Any) -> None:
    return None


@contextlib.contextmanager
def recording() -> Iterator[list[Any]]:
    """Every CompiledKernel launched in this process while the block runs, once each, in launch order:
    `CompiledKernel.launch_metadata` wrapped (JITFunction.run and torch.compile's launcher call it on
    every launch while a launch-enter hook is set) and put back after."""
    seen: dict[str, Any] = {}
    original = CompiledKernel.launch_metadata

    def noted(self, *args, **kwargs):
        seen.setdefault(self.hash, self)
        return original(self, *args, **kwargs)

    hooks = knobs.runtime.launch_enter_hook  # a HookChain from 3.5 on
    hooks.add(_nothing)
    CompiledKernel.launch_metadata = noted  # type: ignore[method-assign]
    kernels: list[Any] = []
    try:
        yield kernels
    finally:
        CompiledKernel.launch_metadata = original  # type: ignore[method-assign]
        hooks.remove(_nothing)
        kernels.extend(seen.values())
