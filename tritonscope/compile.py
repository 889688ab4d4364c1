"""Compiles a Variant with the real Triton compiler and collects every stage from the artifact.

This is the only module that touches Triton's compiler internals; the differences
between Triton releases live in the small shim at the top.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, CompilationError, make_backend

from . import instruction_mix, linemap
from .errors import CompileError, TritonscopeError, UsageError
from .load import LoadedKernel
from .model import Compilation, Stage, Variant
from .parsers import amdgcn, cuobjdump
from .resources import amd_resources, nvidia_resources
from .targets import TARGETS, Target

# --- shim: what differs between Triton releases ---------------------------------------------


def _nvidia_tool(name: str) -> str:
    """The path of a tool Triton's wheel carries (ptxas, cuobjdump, nvdisasm); knobs exist since 3.5."""
    return getattr(triton.knobs.nvidia, name).path


def prepare_for_workers(targets: list[Target]) -> None:
    """Computes once, before forking, what every compile starts with and Triton caches per process:
    its hash of its own installation (about 0.3 s) and each backend's tool versions."""
    from triton.runtime import cache

    if hasattr(cache, "triton_key"):
        cache.triton_key()
    for target in targets:
        make_backend(gpu_target(target)).hash()


def gpu_target(target: Target) -> GPUTarget:
    return GPUTarget(target.backend, target.arch, target.warp_size)


# --- compilation ------------------------------------------------------------------------------


def compile_variant(kernel: LoadedKernel, variant: Variant) -> Compilation:
    target = TARGETS[variant.target]
    backend = make_backend(gpu_target(target))
    try:
        backend.parse_options(dict(variant.options))
    except AssertionError as exc:  # Triton checks options with asserts
        raise UsageError(f"invalid compile options {variant.options}: {exc}") from exc

    params = [p.name for p in kernel.spec.params]
    constants = {name: _constexpr(value) for name, value in variant.constexprs.items()}
    for name, type_ in variant.signature.items():
        if type_ == "constexpr" and name not in constants:  # an argument specialized to a constant
            constants[name] = _literal(variant.arguments[name])
    attrs = {(params.index(name),): backend.parse_attr(hint) for name, hint in variant.hints.items() if hint}
    source = ASTSource(kernel.jit, dict(variant.signature), constants, attrs)

    started = time.perf_counter()
    diagnostics = _CStderrCapture()
    try:
        with diagnostics:
            compiled = triton.compile(source, target=gpu_target(target), options=dict(variant.options))
    except CompilationError as exc:
        raise _frontend_error(exc, kernel) from exc
    except Exception as exc:  # noqa: BLE001 - MLIR passes, ptxas and LLVM fail in many ways
        details = f"\n{diagnostics.text.strip()}" if diagnostics.text.strip() else ""
        raise CompileError(
            f"Triton failed to compile {kernel.spec.name} for {target.name}: {type(exc).__name__}: "
            f"{str(exc).strip()}{details}"
        ) from exc
    seconds = time.perf_counter() - started

    metadata = _plain_metadata(compiled.metadata._asdict())
    stages = {Stage.SOURCE: kernel.spec.source}
    for stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR):
        stages[stage] = compiled.asm[stage.value]
    num_warps = metadata["num_warps"]
    if target.is_nvidia:
        binary = compiled.asm["cubin"]
        stages[Stage.PTX] = compiled.asm["ptx"]
        stages[Stage.SASS] = disassemble(binary)
        usage = cuobjdump.kernel_usage(resource_usage(binary), metadata["name"])
        resources = nvidia_resources(target, usage, metadata.get("shared", 0), num_warps)
        binary_ext = "cubin"
    else:
        binary = compiled.asm["hsaco"]
        stages[Stage.AMDGCN] = compiled.asm["amdgcn"]
        fields = amdgcn.kernel_metadata(stages[Stage.AMDGCN])
        resources = amd_resources(target, fields, metadata.get("shared", 0), num_warps)
        binary_ext = "hsaco"
    machine_code = Stage.SASS if target.is_nvidia else Stage.AMDGCN
    resources = replace(resources, instructions=instruction_mix.count(machine_code, stages[machine_code]))
    notices = tuple(line for line in diagnostics.text.splitlines() if line.strip())
    return Compilation(
        kernel=kernel.spec,
        variant=variant,
        stages=stages,
        binary=binary,
        binary_ext=binary_ext,
        metadata=metadata,
        resources=resources,
        compile_seconds=seconds,
        triton_version=triton.__version__,
        notices=notices,
        line_map=linemap.build(stages, kernel.spec.file, kernel.spec.first_line),
    )


def _constexpr(value: Any) -> Any:
    """Constexpr values as Triton wants them: dtype names become tl.dtype objects."""
    return tl.dtype(value) if isinstance(value, str) else value


def _literal(text: str) -> Any:
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return text.lower() == "true"


def _plain_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    plain = {}
    for key, value in metadata.items():
        if isinstance(value, GPUTarget):
            value = {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
        plain[key] = value
    return plain


def disassemble(cubin: bytes) -> str:
    """SASS with nvdisasm's line information (`//## File "...", line N`) kept for the line map.

    nvdisasm spends about 0.3 s starting up whatever the kernel, so its output is kept
    beside Triton's cache, keyed by the cubin, and a warm run does not pay it again.
    """
    tool = _nvidia_tool("nvdisasm")
    key = hashlib.sha256(cubin + tool.encode()).hexdigest()
    cached = Path(triton.knobs.cache.dir) / "tritonscope" / f"{key}.sass"
    if cached.is_file():
        return cached.read_text()
    sass = _run_on_binary(tool, ["-c", "-gi", "-ndf"], cubin)  # no dataflow analysis: same text, faster
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=f".{key}.")
        with os.fdopen(fd, "w") as handle:
            handle.write(sass)
        os.replace(tmp, cached)  # whole or not at all, even with several tritonscope running
    except OSError:
        pass  # a read-only cache only costs time
    return sass


def resource_usage(cubin: bytes) -> str:
    return _run_on_binary(_nvidia_tool("cuobjdump"), ["--dump-resource-usage"], cubin)


def _run_on_binary(tool: str, flags: list[str], binary: bytes) -> str:
    with tempfile.TemporaryDirectory(prefix="tritonscope-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(binary)
        result = subprocess.run([tool, *flags, str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise TritonscopeError(f"{Path(tool).name} failed (exit {result.returncode}): {result.stderr.strip()}")
    return result.stdout


class _CStderrCapture:
    """Collects what the C++ compiler writes to file descriptor 2 (MLIR diagnostics) into `text`.

    Python-level writes keep going to the real stderr, so a progress spinner still shows.
    """

    text = ""

    def __enter__(self):
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile(mode="w+")
        self._saved_fd = os.dup(2)
        self._python_stderr = sys.stderr
        sys.stderr = os.fdopen(os.dup(self._saved_fd), "w")
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc_info):
        sys.stderr.flush()
        os.dup2(self._saved_fd, 2)
        os.close(self._saved_fd)
        sys.stderr.close()
        sys.stderr = self._python_stderr
        self._file.seek(0)
        self.text = self._file.read()
        self._file.close()
        return False


def _frontend_error(exc: CompilationError, kernel: LoadedKernel) -> CompileError:
    """Triton's front-end error as file:line of the kernel's own source, with that line shown."""
    chain = [exc]
    while isinstance(chain[-1].__cause__, CompilationError):
        chain.append(chain[-1].__cause__)
    innermost = chain[-1]
    cause = innermost.__cause__
    message = innermost.error_message or (f"{type(cause).__name__}: {cause}" if cause else "")
    # Triton stores some errors as their repr, e.g. NameError('x is not defined').
    message = re.sub(r"^(\w+Error)\((['\"])(.*)\2\)$", r"\1: \3", message.strip(), flags=re.DOTALL)
    locations = [_locate(error, kernel) for error in reversed(chain)]
    file, line, text, column = locations[0]
    pointer = f"\n    {' ' * column}^" if column is not None else ""
    called_from = "".join(f"\n  called from {f}:{n}: {t.strip()}" for f, n, t, _ in locations[1:])
    return CompileError(
        f"{file}:{line}: {kernel.spec.name} does not compile: {message.strip()}\n    {text}{pointer}{called_from}"
    )


def _locate(error: CompilationError, kernel: LoadedKernel) -> tuple[str, int, str, int | None]:
    """(file, absolute line, source line, column) of a CompilationError's node."""
    from triton.runtime.jit import JITFunction

    node_line = getattr(error.node, "lineno", 1)
    column = getattr(error.node, "col_offset", None)
    candidates = [kernel.jit] + [v for v in kernel.jit.fn.__globals__.values() if isinstance(v, JITFunction)]
    fn = next((c for c in candidates if c.src == error.src), kernel.jit)
    lines, first = inspect.getsourcelines(fn.fn)
    def_offset = next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
    index = def_offset + node_line - 1
    text = lines[index].rstrip("\n") if 0 <= index < len(lines) else ""
    if column is not None:
        # Triton counts columns in the dedented source; the line is shown stripped of its indent.
        def_indent = len(lines[def_offset]) - len(lines[def_offset].lstrip())
        column -= (len(text) - len(text.lstrip())) - def_indent
    return fn.fn.__code__.co_filename, first + index, text.strip(), column
