"""Compiles a Variant with the real Triton compiler and collects every stage from the artifact.

This is the only module that touches Triton's compiler internals; the differences
between Triton releases live in the small shim at the top.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, CompilationError, make_backend

from . import instruction_mix, linemap
from .errors import CompileError, TritonscopeError, UsageError
from .fileio import user_cache_dir, write_text_atomically
from .load import LoadedKernel
from .model import OPTION_NAMES, Compilation, Stage, Variant
from .parsers import amdgcn, cuobjdump
from .resources import amd_resources, nvidia_resources
from .specialize import parse_value
from .targets import TARGETS, Target

# --- shim: what differs between Triton releases ---------------------------------------------


def _nvidia_tool(name: str) -> str:
    """The path of a tool Triton's wheel carries (ptxas, cuobjdump, nvdisasm); knobs exist since 3.5."""
    return getattr(triton.knobs.nvidia, name).path


def prepare_for_workers(targets: list[Target]) -> None:
    """Computes once, before forking, what every compile starts with and Triton caches per process:
    its hash of its own installation and each backend's tool versions."""
    from triton.runtime import cache

    remember_triton_key()
    if hasattr(cache, "triton_key"):
        cache.triton_key()
    for target in targets:
        make_backend(gpu_target(target)).hash()


def remember_triton_key() -> None:
    """Keeps Triton's hash of its own installation on disk instead of recomputing it per process.

    Every compile's cache key starts with `triton_key()`, a sha256 of Triton's sources and of
    libtriton (400 MB): 0.35 s in every process, warm cache or cold, more than compiling a small
    kernel. The hash changes only when the installation does, so it is stored in the user's
    cache keyed by the path, size, mtime and inode of every file of the installed package.
    """
    from triton.runtime import cache

    original = getattr(cache, "triton_key", None)  # runtime/cache.py since Triton 3.0
    if original is None or getattr(original, "remembered", False):
        return
    memo = user_cache_dir() / "triton-key" / installation_stamp(Path(cache.__file__).parent.parent)

    def triton_key() -> str:
        try:
            return memo.read_text()
        except OSError:
            pass
        key = original()
        try:
            write_text_atomically(memo, key)
        except OSError:
            pass  # a read-only home only costs time
        return key

    remembered = functools.cache(triton_key)
    remembered.remembered = True
    cache.triton_key = remembered  # get_cache_key looks the name up in its module at each call


def installation_stamp(package: Path) -> str:
    """A digest of every file's path, size, mtime and inode under `package`: any reinstall,
    upgrade or edit changes it. Stat-ing Triton's ~350 files takes a few milliseconds."""
    digest = hashlib.sha256(triton.__version__.encode())
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            path = os.path.join(folder, name)
            stat = os.stat(path)
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\n".encode())
    return digest.hexdigest()


def _cache_key_extras(kernel: LoadedKernel) -> dict[str, str]:
    """What Triton's cache key needs besides its own: the kernel's path. Triton keys a kernel by its
    source text, so the same kernel in another file would come back from the cache with the old
    file's locations in its IR, and the line map would point at that file."""
    from triton._C.libtriton import get_cache_invalidating_env_vars  # what compile() uses when given none

    return {**get_cache_invalidating_env_vars(), "tritonscope_kernel_file": kernel.spec.file}


def gpu_target(target: Target) -> GPUTarget:
    return GPUTarget(target.backend, target.arch, target.warp_size)


# --- compilation ------------------------------------------------------------------------------


def compile_variant(kernel: LoadedKernel, variant: Variant) -> Compilation:
    started = time.perf_counter()
    diagnostics = _CStderrCapture()
    try:
        with diagnostics:
            compiled = _run_triton(kernel, variant)
    except CompileError as exc:
        details = diagnostics.text.strip()  # MLIR's own diagnostics, read once the capture ended
        if details and exc.__cause__ is not None and not isinstance(exc.__cause__, CompilationError):
            raise CompileError(f"{exc.message}\n{details}") from exc.__cause__
        raise
    seconds = time.perf_counter() - started
    metadata = _plain_metadata(compiled.metadata._asdict())
    notices = tuple(line for line in diagnostics.text.splitlines() if line.strip())
    return _assemble(kernel.spec, variant, compiled.asm, metadata, seconds, notices)


def _assemble(spec, variant: Variant, asm, metadata: dict, seconds: float, notices: tuple[str, ...]) -> Compilation:
    """A Compilation from Triton's artifacts: the stages, SASS, resources, instruction mix, line map."""
    target = TARGETS[variant.target]
    stages = {Stage.SOURCE: spec.source} if spec.source else {}
    for stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR):
        if stage.value in asm:
            stages[stage] = asm[stage.value]
    num_warps = metadata["num_warps"]
    if target.is_nvidia:
        binary = asm["cubin"]
        if "ptx" in asm:
            stages[Stage.PTX] = asm["ptx"]
        with ThreadPoolExecutor(1) as background:
            sass = background.submit(disassemble, binary)  # nvdisasm's 0.2-0.3 s overlaps cuobjdump
            usage = cuobjdump.kernel_usage(resource_usage(binary), metadata["name"])
            resources = nvidia_resources(target, usage, metadata.get("shared", 0), num_warps)
            stages[Stage.SASS] = sass.result()
        binary_ext = "cubin"
    else:
        binary = asm["hsaco"]
        if "amdgcn" not in asm:
            raise TritonscopeError("the AMDGCN assembly is missing: resources cannot be read without it")
        stages[Stage.AMDGCN] = asm["amdgcn"]
        fields = amdgcn.kernel_metadata(stages[Stage.AMDGCN])
        resources = amd_resources(target, fields, metadata.get("shared", 0), num_warps)
        binary_ext = "hsaco"
    machine_code = Stage.SASS if target.is_nvidia else Stage.AMDGCN
    resources = replace(resources, instructions=instruction_mix.count(machine_code, stages[machine_code]))
    return Compilation(
        kernel=spec,
        variant=variant,
        stages=stages,
        binary=binary,
        binary_ext=binary_ext,
        metadata=metadata,
        resources=resources,
        compile_seconds=seconds,
        triton_version=str(metadata.get("triton_version", triton.__version__)),
        notices=notices,
        line_map=linemap.build(stages, spec.file, spec.first_line),
    )


def _run_triton(kernel: LoadedKernel, variant: Variant):
    """triton.compile for a variant; its errors become CompileError (or UsageError for bad options)."""
    remember_triton_key()
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
            constants[name] = parse_value(variant.arguments[name])
    attrs = {(params.index(name),): backend.parse_attr(hint) for name, hint in variant.hints.items() if hint}
    source = ASTSource(kernel.jit, dict(variant.signature), constants, attrs)
    try:
        return triton.compile(
            source, target=gpu_target(target), options=dict(variant.options), _env_vars=_cache_key_extras(kernel)
        )
    except CompilationError as exc:
        raise _frontend_error(exc, kernel) from exc
    except Exception as exc:  # noqa: BLE001 - MLIR passes, ptxas and LLVM fail in many ways
        raise CompileError(
            f"Triton failed to compile {kernel.spec.name} for {target.name}: {type(exc).__name__}: {str(exc).strip()}"
        ) from exc


def _constexpr(value: Any) -> Any:
    """Constexpr values as Triton wants them: dtype names become tl.dtype objects."""
    return tl.dtype(value) if isinstance(value, str) else value


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
        write_text_atomically(cached, sass)  # whole or not at all, even with several tritonscope running
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


# --- the pass pipeline: a compile in a child process with Triton's IR dumps on ----------------


class PassCapture:
    """A compile running in a child process with MLIR_ENABLE_DUMP (and LLVM_IR_ENABLE_DUMP) set.

    The dumps go to the child's C-level stderr, which a child can hand over whole; a compiler
    crash there cannot take tritonscope down. It starts at once, so the caller can check the
    request meanwhile; `dumps()` waits for it."""

    def __init__(self, request, llvm: bool, timeout: float = 600):
        import json
        from dataclasses import asdict

        self.timeout = timeout
        self._tmp = tempfile.TemporaryDirectory(prefix="tritonscope-passes-")
        folder = Path(self._tmp.name)
        self._dump, self._result = folder / "dump.txt", folder / "result.json"
        env = {
            **os.environ,
            "MLIR_ENABLE_DUMP": "1",
            "TRITON_ALWAYS_COMPILE": "1",
            "TRITON_CACHE_DIR": str(folder / "cache"),
        }
        if llvm:
            env["LLVM_IR_ENABLE_DUMP"] = "1"
        command = [
            sys.executable,
            "-c",
            "from tritonscope.compile import _capture_child; _capture_child()",
            json.dumps(asdict(request)),
            str(self._result),
        ]
        with open(self._dump, "w") as stderr:
            self._child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)

    def dumps(self) -> str:
        import json

        try:
            try:
                returncode = self._child.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                self._child.kill()
                raise CompileError(f"capturing the passes took longer than {self.timeout:g} s") from None
            if returncode < 0:
                raise CompileError(f"the compiler crashed ({signal.Signals(-returncode).name}) while running passes")
            if not self._result.exists():
                raise CompileError(f"the compiler process exited with code {returncode} without a result")
            outcome = json.loads(self._result.read_text())
            if not outcome["ok"]:
                raise (CompileError if outcome.get("exit_code") == 1 else UsageError)(outcome["error"])
            return self._dump.read_text(errors="replace")
        finally:
            self._tmp.cleanup()

    def cancel(self) -> None:
        self._child.kill()
        self._child.wait()
        self._tmp.cleanup()


def _capture_child() -> None:
    """In the child: the pipeline up to triton.compile, plus the final LLVM-dialect module."""
    import json

    from .load import load_file
    from .parsers.pass_dump import FINAL_HEADER
    from .specialize import VariantRequest, specialize
    from .targets import resolve

    fields = json.loads(sys.argv[1])
    request = VariantRequest(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    result = Path(sys.argv[2])

    def keep_final_module(backend, stages, options, language, capability):
        make_llir = stages["llir"]

        def llir(src, metadata):
            out = make_llir(src, metadata)  # runs the last MLIR passes on `src`, in place
            os.write(2, f"{FINAL_HEADER}\n{src}\n".encode())
            return out

        stages["llir"] = llir

    if hasattr(triton.knobs.runtime, "add_stages_inspection_hook"):  # Triton 3.6 and later
        triton.knobs.runtime.add_stages_inspection_hook = keep_final_module
    try:
        target, _ = resolve(request.target)
        loaded = load_file(request.file)
        kernel = loaded.pick(request.kernel)
        _run_triton(kernel, specialize(kernel, request, loaded.defaults, target))
        outcome = {"ok": True}
    except TritonscopeError as exc:
        outcome = {"ok": False, "error": exc.message, "exit_code": exc.exit_code}
    result.write_text(json.dumps(outcome))


# --- kernels already compiled: a Triton cache or a `trace` capture --------------------------


def from_cache(entry, given: str) -> Compilation:
    """The Compilation of a cache entry, from its artifacts alone: nothing is recompiled."""
    from .cache import kernel_source, recorded_specialization
    from .model import KernelSpec

    if entry.target not in TARGETS:
        raise UsageError(f"{given}: compiled for {entry.target}, which tritonscope has no limits for")
    if "cubin" not in entry.stages and "hsaco" not in entry.stages:
        raise UsageError(f"{given}: the entry has no binary (cubin or hsaco)")
    asm = {
        kind: entry.path(kind).read_bytes() if kind in ("cubin", "hsaco") else entry.path(kind).read_text()
        for kind in entry.stages
    }
    file, first_line, def_line, source = kernel_source(entry)
    spec = KernelSpec(name=entry.name, file=file, line=def_line, first_line=first_line, source=source, params=())
    signature, constants, hints = recorded_specialization(entry)
    options = {k: entry.metadata[k] for k in OPTION_NAMES if entry.metadata.get(k) is not None}
    variant = Variant(
        kernel=entry.name,
        file=given,
        target=entry.target,
        constexprs=constants,
        signature=signature,
        hints=hints,
        arguments={},
        options=options,
        cached=True,
    )
    return _assemble(spec, variant, asm, entry.metadata, 0.0, (f"read from {entry.folder}, not recompiled",))


# --- layouts: Triton's own linear-layout conversion ---------------------------------------------


def linear_layout(layout, shape: list[int]) -> dict[str, list[list[int]]]:
    """The register, lane and warp bases of a TTGIR layout over `shape`, computed by Triton."""
    try:
        from triton._C.libtriton import gluon_ir, ir
    except ImportError:
        raise UsageError("drawing layouts needs the linear layouts of Triton 3.6 or later") from None
    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    try:
        converted = builder.to_linear_layout(_layout_attr(builder, layout), shape)
    except (KeyError, TypeError) as exc:
        raise UsageError(f"incomplete layout {layout.text[:80]}: missing {exc}") from None
    except Exception as exc:  # noqa: BLE001 - Triton's C++ rejects layouts that do not fit the shape
        raise UsageError(f"Triton cannot lay {layout.text[:60]}... over {shape}: {exc}") from None
    return {"register": converted.reg_bases, "lane": converted.lane_bases, "warp": converted.warp_bases}


def _layout_attr(builder, layout):
    f = layout.fields
    if layout.kind == "blocked":
        return builder.get_blocked_layout(f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"], f["order"], [])
    if layout.kind == "nvidia_mma":
        version = [f["versionMajor"], f.get("versionMinor", 0)]
        return builder.get_mma_layout(version, f["warpsPerCTA"], [], f["instrShape"])
    if layout.kind == "dot_op":
        return builder.get_dot_operand_layout(f["opIdx"], _layout_attr(builder, f["parent"]), f.get("kWidth", 0))
    return builder.get_slice_layout(f["dim"], _layout_attr(builder, f["parent"]))
