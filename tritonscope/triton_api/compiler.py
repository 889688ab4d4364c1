"""Compiles a Variant with the real Triton compiler, for an explicit target, into Artifacts.

Everything that calls into Triton's compiler is here: the compile itself, Triton's
per-process start-up costs, its front-end errors turned into the kernel's own lines,
and the hook that keeps the last MLIR module for `passes`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, CompilationError, make_backend

from ..core import fileio, schemas
from ..core.errors import CompileError, UsageError
from ..core.fileio import read_checked, user_cache_dir, write_checked
from ..core.model import Artifacts, Variant
from ..core.targets import Target
from ..core.values import TypeName
from ..parsers import asm_loc, mlir_diagnostics
from ..parsers.mlir_diagnostics import Remark
from . import cubins
from . import kernels as triton_kernels
from .tools import PTXAS_INPUT, machine_code

# --- shim: what differs between Triton releases ---------------------------------------------


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
        key = read_checked(memo)  # a cut-short or edited memo is recomputed, never used
        if key is None:
            key = original()
            write_checked(memo, key)  # a read-only home only costs time
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


def _cache_key_extras(kernel, variant: Variant) -> dict[str, str]:
    """What Triton's cache key needs besides its own:
    - the kernel's path: Triton keys a kernel by its source text, so the same kernel in another file
      would come back from the cache with the old file's locations in its IR;
    - the constexprs' types: Triton keys constants by str(value), so the string "1" and the int 1
      would share an entry (ASTSource.hash, 3.5 to 3.9);
    - where Triton is installed: its key hashes its files' contents, so the same release in another
      virtual environment would bring back IR whose locations name the other one's triton/language
      files (gone once that environment is deleted)."""
    from triton._C.libtriton import get_cache_invalidating_env_vars  # what compile() uses when given none

    types = ",".join(f"{name}:{type(value).__name__}" for name, value in sorted(variant.constexprs.items()))
    return {
        **get_cache_invalidating_env_vars(),
        "tritonscope_kernel_file": kernel.spec.file,
        "tritonscope_constexpr_types": types,
        "tritonscope_triton_dir": os.path.dirname(triton.__file__),
        **(dict([PTXAS_INPUT]) if _has_stages_hook() else {}),
    }


@contextlib.contextmanager
def _cache_hits():
    """Collects whether each compile was served from Triton's cache, as its compilation listener
    reports (`triton.knobs.compilation.listener`, in recent releases); a listener already set is
    still called. On releases without one the list stays empty: not known to be a hit."""
    compilation = getattr(getattr(triton, "knobs", None), "compilation", None)
    if compilation is None or not hasattr(compilation, "listener"):
        yield []
        return
    hits: list[bool] = []
    previous = compilation.listener

    def listener(**event):
        hits.append(bool(event.get("cache_hit")))
        if previous is not None:
            previous(**event)

    compilation.listener = listener
    try:
        yield hits
    finally:
        compilation.listener = previous


# MLIR's remarks: libtriton's pass manager reads MLIR_ENABLE_DIAGNOSTICS when it runs (the same name and
# values from 3.5 to 3.9, with no triton.knobs entry; the older MLIR_ENABLE_REMARK is gone). "remarks"
# prints remarks and warnings with their locations to file descriptor 2, which compile_variant captures.
# Triton counts the variable in its cache key, so a compile with remarks is filed apart from one without.
DIAGNOSTICS_ENV = "MLIR_ENABLE_DIAGNOSTICS"
REMARKS_UNKNOWN = (
    "MLIR remarks: not known (Triton's cache had the kernel, and tritonscope's record of its remarks is gone; "
    "TRITON_ALWAYS_COMPILE=1 compiles it again)"
)


@contextlib.contextmanager
def _remarks_on():
    previous = os.environ.get(DIAGNOSTICS_ENV)
    os.environ[DIAGNOSTICS_ENV] = "remarks"  # not the user's own levels: "operations" would print IR
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(DIAGNOSTICS_ENV, None)
        else:
            os.environ[DIAGNOSTICS_ENV] = previous


def _remarks_file(metadata: dict, cache: str | Path | None = None) -> Path:
    """Where a compile's remarks are kept: beside Triton's cache (`cache`, else the one in use), by
    Triton's key (`hash` in its metadata)."""
    return Path(cache or triton.knobs.cache.dir) / "tritonscope" / f"{metadata.get('hash', '')}.remarks"


def _record_remarks(metadata: dict, remarks: tuple[Remark, ...]) -> None:
    rows = [[r.severity, r.message, [list(x) for x in r.locations], list(r.notes)] for r in remarks]
    write_checked(_remarks_file(metadata), json.dumps(rows))  # a read-only cache only costs them later


def recorded_remarks(metadata: dict, cache: str | Path | None = None) -> tuple[Remark, ...] | None:
    """The remarks recorded when the kernel Triton's cache holds was compiled, or None if there are none kept."""
    text = read_checked(_remarks_file(metadata, cache)) if metadata.get("hash") else None
    if text is None:
        return None
    try:
        rows = json.loads(text)
        return tuple(Remark(s, m, tuple((f, int(n)) for f, n in where), tuple(notes)) for s, m, where, notes in rows)
    except (ValueError, TypeError):
        return None


def gpu_target(target: Target) -> GPUTarget:
    return GPUTarget(target.backend, target.arch, target.warp_size)


# --- compilation ------------------------------------------------------------------------------


def compile_variant(kernel, variant: Variant, target: Target, sass: bool = True) -> Artifacts:
    """triton.compile for a variant, with the machine code read off the binary (SASS only if `sass`)
    and MLIR's remarks."""
    started = time.perf_counter()
    diagnostics = _CStderrCapture()
    try:
        with diagnostics, _cache_hits() as hits, _remarks_on():
            compiled, repaired = _compile_repairing(kernel, variant, target, hits)
    except CompileError as exc:
        details = mlir_diagnostics.parse(diagnostics.text)[1].strip()  # MLIR's errors, read once the capture ended
        if details and exc.__cause__ is not None and not isinstance(exc.__cause__, CompilationError):
            raise CompileError(f"{exc.message}\n{details}") from exc.__cause__
        raise
    seconds = time.perf_counter() - started
    metadata = {"triton_version": triton.__version__, **_plain_metadata(compiled.metadata._asdict())}
    binary = compiled.asm[target.vendor.binary]
    texts = {key: value for key, value in compiled.asm.items() if isinstance(value, str)}
    texts.update(machine_code(target.backend, binary, texts.get("ptx"), target.arch, metadata, sass))
    remarks, rest = mlir_diagnostics.parse(diagnostics.text)
    if hits == [True]:  # read back from Triton's cache: no pass ran, so no remark was printed
        remarks = recorded_remarks(metadata)
    else:
        _record_remarks(metadata, remarks)
    notices = tuple(line for line in rest.splitlines() if line.strip()) + ((repaired,) if repaired else ())
    if remarks is None:
        notices += (REMARKS_UNKNOWN,)
    return Artifacts(texts, binary, metadata, seconds, notices, hits == [True], remarks or ())


def run_compiler(kernel, variant: Variant, target: Target) -> None:
    """triton.compile alone, for its side effects (the IR dumps `passes` reads): no disassembly."""
    _compile_repairing(kernel, variant, target, [])


_GROUP = {"child_paths": schemas.Map(str)}  # Triton's `__grp__NAME.json`: file name -> path


class _DamagedEntry(Exception):
    """Triton's cache entry of this compile could not be read back (why: the reason)."""


def _compile_repairing(kernel, variant: Variant, target: Target, hits: list[bool]):
    """(triton.compile's result, a one-line notice or None). A damaged cache entry of the compile
    (metadata or its group index not JSON or not their shape, a cut-short binary) would fail every
    later run the same way: it is moved aside, under the cache's `tritonscope/damaged/`, and the
    kernel compiled afresh."""
    folder = _entry_folder(kernel, variant, target)
    why = _entry_damage(folder) if folder is not None else None
    if why is None:
        try:
            compiled = _run_triton(kernel, variant, target)
            why = cubins.damage(compiled.asm[target.vendor.binary]) if hits == [True] else None
        except _DamagedEntry as exc:
            why = str(exc)
        if why is None:
            return compiled, None
    if folder is None or not folder.is_dir():
        raise _corrupt_cache_file(why)
    aside = Path(triton.knobs.cache.dir) / "tritonscope" / "damaged" / f"{folder.name}.{time.time_ns()}"
    try:
        aside.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(aside)
        hits.clear()
        compiled = _run_triton(kernel, variant, target)
    except (OSError, _DamagedEntry) as exc:
        raise _corrupt_cache_file(str(exc)) from None
    return compiled, f"Triton's cache entry {folder} was damaged ({why}): moved it to {aside} and compiled again"


def _entry_damage(folder: Path) -> str | None:
    """What is wrong with the JSON files of a cache entry (its group index, each kernel's metadata)."""
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.json")):
        shape = _GROUP if path.name.startswith("__grp__") else schemas.METADATA
        try:
            wrong = schemas.problem(schemas.parse(fileio.read_input_text(path)), shape)
        except (OSError, UnicodeDecodeError, schemas.Invalid) as exc:
            wrong = getattr(exc, "strerror", None) or str(exc)
        if wrong is not None:
            return f"{path.name}: {wrong}"
    return None


def _entry_folder(kernel, variant: Variant, target: Target) -> Path | None:
    """The folder of Triton's cache holding this compile (`get_cache_manager`: the key in base32)."""
    from triton.runtime import cache

    base32 = getattr(cache, "_base32", None)
    return Path(triton.knobs.cache.dir) / base32(compile_key(kernel, variant, target)) if base32 else None


def _run_triton(kernel, variant: Variant, target: Target):
    """triton.compile for a variant; its errors become CompileError (or UsageError for bad options)."""
    if not kernel.spec.name.isascii():
        raise CompileError(
            f"{kernel.spec.file}:{kernel.spec.line}: the kernel's name {kernel.spec.name} is not ASCII, and Triton "
            f"writes it into the PTX, which must be ASCII: rename the kernel"
        )
    source, backend = _source(kernel, variant, target)
    try:
        return triton.compile(
            source,
            target=gpu_target(target),
            options=compile_options(variant.options),
            _env_vars=_cache_key_extras(kernel, variant),
        )
    except CompilationError as exc:
        raise _frontend_error(exc, kernel) from exc
    except OSError as exc:  # Triton's cache folder: the machine's problem, not the kernel's
        raise _cache_folder_problem(exc) from exc
    except json.JSONDecodeError as exc:
        raise _DamagedEntry(f"not JSON: {exc.msg}") from exc
    except Exception as exc:  # noqa: BLE001 - MLIR passes, ptxas and LLVM fail in many ways
        if "non-ASCII" in str(exc) and not kernel.spec.file.isascii() and not _has_stages_hook():
            raise UsageError(
                f"{kernel.spec.file}: the kernel file's path has non-ASCII characters, which ptxas rejects "
                f"(Triton writes the path into the PTX)",
                hint="move or rename the file to an ASCII path",
            ) from exc
        raise CompileError(
            f"Triton failed to compile {kernel.spec.name} for {target.name}: {type(exc).__name__}: {str(exc).strip()}"
        ) from exc


def _quiet_half_built_kernels() -> None:
    """Since 3.9 a CompiledKernel whose cached metadata could not be read fails in its `__del__`
    (no `module` attribute), and Python prints that as "Exception ignored ... Traceback" at some
    later garbage collection. The error itself is reported as it happens; this drops the echo."""
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        owner = getattr(unraisable.object, "__qualname__", "")
        if owner == "CompiledKernel.__del__" and isinstance(unraisable.exc_value, AttributeError):
            return
        previous(unraisable)

    if not getattr(previous, "tritonscope", False):
        hook.tritonscope = True
        sys.unraisablehook = hook


_quiet_half_built_kernels()


def compile_options(options: dict) -> dict:
    """The options given to Triton: the variant's, plus FP fusion set explicitly to Triton's own default.

    Since 3.9 Triton warns in every process that compiles without `enable_fp_fusion` while
    TRITON_DEFAULT_FP_FUSION is unset (its default changes in 3.10). The knob reads that variable
    with the release's own default, so the compile is the one Triton would make, without the warning.
    """
    default = getattr(getattr(triton.knobs, "language", None), "default_fp_fusion", None)
    return {**({"enable_fp_fusion": default} if default is not None else {}), **options}


STAGE_HOOKS: list = []  # more stage wrappers for this process (the passes worker keeps the final module)
_HOOK_KEY = "tritonscope: one .loc per inline asm block"


def _stages_hook(backend=None, stages=None, options=None, language=None, capability=None):
    """Triton's pipeline hook (knobs.runtime.add_stages_inspection_hook, since 3.6).

    Since 3.7 Triton also calls it with no arguments, for a (key, hash) it adds to its cache key.
    Since 3.8 LLVM writes a `.loc` before every line of an inline-asm block, counting the line up
    by one each time (llvm PR 177718), so ptxas files the instructions of a multi-line block (every
    load) under the next source lines. ptxas here gets the PTX with one `.loc` per block, as up to
    3.7; the PTX stage shown stays Triton's own."""
    if stages is None:
        return _HOOK_KEY, hashlib.sha256(_HOOK_KEY.encode()).hexdigest()
    if "cubin" in stages:
        make_cubin = stages["cubin"]
        stages["cubin"] = lambda src, metadata: make_cubin(
            asm_loc.ascii_only(asm_loc.without_inline_asm_locs(src)), metadata
        )
    for hook in STAGE_HOOKS:
        hook(stages)


def _has_stages_hook() -> bool:
    return hasattr(triton.knobs.runtime, "add_stages_inspection_hook")  # since 3.6


def _install_stages_hook() -> None:
    if _has_stages_hook():
        triton.knobs.runtime.add_stages_inspection_hook = _stages_hook


def _source(kernel, variant: Variant, target: Target):
    """(Triton's ASTSource for the variant, the backend), with the options checked."""
    remember_triton_key()
    _install_stages_hook()
    backend = make_backend(gpu_target(target))
    try:
        backend.parse_options(compile_options(variant.options))
    except AssertionError as exc:  # Triton checks options with asserts
        raise UsageError(f"invalid compile options {variant.options}: {exc}") from exc
    params = [p.name for p in kernel.spec.params]
    constants = {name: _constexpr(value) for name, value in variant.constexprs.items()}
    for name, type_ in variant.signature.items():
        if type_ == "constexpr" and name not in constants:  # an argument specialized to a constant
            constants[name] = variant.arguments[name]
    attrs = {(params.index(name),): backend.parse_attr(hint) for name, hint in variant.hints.items() if hint}
    return ASTSource(kernel.jit, dict(variant.signature), constants, attrs), backend


def compile_key(kernel, variant: Variant, target: Target) -> str:
    """The key Triton's cache files this compile under (`get_cache_key` in triton/runtime/cache.py,
    3.5 on): anything keyed by it is stale exactly when Triton's own cache entry would be."""
    from triton.runtime.cache import get_cache_key

    source, backend = _source(kernel, variant, target)
    options = backend.parse_options(compile_options(variant.options))
    key = get_cache_key(source, backend, options, env_vars=_cache_key_extras(kernel, variant))
    return hashlib.sha256(key.encode()).hexdigest()


def _cache_folder_problem(exc: OSError) -> UsageError:
    folder = triton.knobs.cache.dir
    where = f" ({exc.filename})" if exc.filename else ""
    return UsageError(
        f"Triton cannot write its cache folder {folder}: {exc.strerror or exc}{where}",
        hint="set TRITON_CACHE_DIR to a writable folder (the default is under HOME: ~/.triton/cache)",
    )


def _corrupt_cache_file(why: str) -> UsageError:
    """Names the cache files Triton could not read back, so the user can delete them."""
    folder = Path(triton.knobs.cache.dir)
    corrupt = []
    for path in sorted(folder.rglob("*.json"))[:5000]:
        try:
            json.loads(path.read_text())
        except (ValueError, OSError):
            corrupt.append(str(path))
    names = ", ".join(corrupt[:3]) or str(folder)
    return UsageError(
        f"Triton's cache holds a corrupt file: {names} ({why})",
        hint=f"delete it, or the folder that holds it, and run again (Triton's cache: {folder})",
    )


def _constexpr(value: Any) -> Any:
    """Constexpr values as Triton wants them: dtypes become tl.dtype objects; strings stay strings."""
    return triton_kernels.dtype(value) if isinstance(value, TypeName) else value


def _plain_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    plain = {}
    for key, value in metadata.items():
        if isinstance(value, GPUTarget):
            value = {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
        plain[key] = value
    return plain


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


def _frontend_error(exc: CompilationError, kernel) -> CompileError:
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


def _locate(error: CompilationError, kernel) -> tuple[str, int, str, int | None]:
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
