"""What differs between Triton releases, as small named shims around its compiler: its
installation key kept on disk, the cache key's extras, the cache-hit listener, the stage hook,
the options every release gets, and the echo of a half-built kernel's `__del__` silenced.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget

from ..core.fileio import read_checked, user_cache_dir, write_checked
from ..core.model import Variant
from ..core.targets import Target
from ..parsers import asm_loc
from .tools import PTXAS_INPUT

STAGE_HOOKS: list = []  # more stage wrappers for this process (the passes worker keeps the final module)
_HOOK_KEY = "tritonscope: one .loc per inline asm block"


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


def cache_key_extras(kernel, variant: Variant) -> dict[str, str]:
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
        **(dict([PTXAS_INPUT]) if has_stages_hook() else {}),
    }


@contextlib.contextmanager
def listened():
    """Collects what Triton's compilation listener reports of each compile (`triton.knobs.compilation
    .listener`, 3.5 on): whether it was served from Triton's cache, and the seconds of its front end
    and of each stage; a listener already set is still called. On releases without one the lists
    stay empty: not known to be a hit, no stage times."""
    hits: list[bool] = []
    times: list[tuple[tuple[str, float], ...]] = []
    compilation = getattr(getattr(triton, "knobs", None), "compilation", None)
    if compilation is None or not hasattr(compilation, "listener"):
        yield hits, times
        return
    previous = compilation.listener

    def listener(**event):
        hits.append(bool(event.get("cache_hit")))
        times.append(_stage_seconds(event.get("times")) if not event.get("cache_hit") else ())
        if previous is not None:
            previous(**event)

    compilation.listener = listener
    try:
        yield hits, times
    finally:
        compilation.listener = previous


def _stage_seconds(times) -> tuple[tuple[str, float], ...]:
    """(("front end", s), ("ttir", s) ...): Triton's CompileTimes, in microseconds, as seconds."""
    if times is None:
        return ()
    stages = [(name, us / 1e6) for name, us in times.lowering_stages]
    return (("front end", times.ir_initialization / 1e6), *stages)


def gpu_target(target: Target) -> GPUTarget:
    return GPUTarget(target.backend, target.arch, target.warp_size)


@functools.cache
def backend_option_names(target: Target) -> frozenset[str]:
    """The compile options the target's backend takes (AMD's waves_per_eu, kpack, matrix_instr_nonkdim
    beside num_warps ...): an autotune config may set them among its kwargs, and Triton's launcher
    passes them to the compile; on another backend the launch raises KeyError."""
    import dataclasses

    from triton.compiler.compiler import make_backend  # type: ignore[import-untyped]

    return frozenset(f.name for f in dataclasses.fields(make_backend(gpu_target(target)).parse_options({})))


def compile_options(options: dict) -> dict:
    """The options given to Triton: the variant's, plus FP fusion set explicitly to Triton's own default.

    Since 3.9 Triton warns in every process that compiles without `enable_fp_fusion` while
    TRITON_DEFAULT_FP_FUSION is unset (its default changes in 3.10). The knob reads that variable
    with the release's own default, so the compile is the one Triton would make, without the warning.
    """
    default = getattr(getattr(triton.knobs, "language", None), "default_fp_fusion", None)
    return {**({"enable_fp_fusion": default} if default is not None else {}), **options}


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


def has_stages_hook() -> bool:
    return hasattr(triton.knobs.runtime, "add_stages_inspection_hook")  # since 3.6


def install_stages_hook() -> None:
    if has_stages_hook():
        triton.knobs.runtime.add_stages_inspection_hook = _stages_hook


def quiet_half_built_kernels() -> None:
    """Since 3.9 a CompiledKernel whose cached metadata could not be read fails in its `__del__`
    (no `module` attribute), and Python prints that as "Exception ignored ... Traceback" at some
    later garbage collection. The error itself is reported as it happens; this drops the echo.
    Installed with the first compile, not on import: importing tritonscope changes no global hook."""
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        owner = getattr(unraisable.object, "__qualname__", "")
        if owner == "CompiledKernel.__del__" and isinstance(unraisable.exc_value, AttributeError):
            return
        previous(unraisable)

    if not getattr(previous, "tritonscope", False):
        hook.tritonscope = True
        sys.unraisablehook = hook
