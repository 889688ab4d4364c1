"""Compiles a Variant with the real Triton compiler, for an explicit target, into Artifacts.

The compile itself and its cache key. What differs between releases is in shims.py, MLIR's
remarks in remarks.py, and Triton's errors turned into the kernel's own lines in
compile_errors.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import CompilationError, make_backend

from ..core import fileio, progress, schemas
from ..core.errors import CompileError, KernelFileError, UsageError
from ..core.limits import open_files_limit
from ..core.model import Artifacts, Variant
from ..core.targets import Target
from ..core.values import LayoutName, TypeName
from ..parsers import mlir_diagnostics
from . import compile_errors, cubins, early_stages, runtime, version
from . import kernels as triton_kernels
from .remarks import REMARKS_UNKNOWN, StderrCapture, record_remarks, recorded_remarks, remarks_on
from .shims import (
    STAGE_HOOKS,
    cache_key_extras,
    compile_options,
    gpu_target,
    install_stages_hook,
    listened,
    quiet_half_built_kernels,
    remember_triton_key,
)
from .tools import SASS_REFUSED, machine_code, with_sass
from .version import release_tuple


def compile_variant(kernel, variant: Variant, target: Target, sass: bool = True) -> Artifacts:
    """triton.compile for a variant, with the machine code read off the binary (SASS only if `sass`)
    and MLIR's remarks."""
    started = time.perf_counter()
    diagnostics = StderrCapture()
    try:
        with diagnostics, listened() as (hits, times), remarks_on():
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
    progress.detail("machine code (nvdisasm)" if sass and target.backend == "cuda" else "machine code")
    texts.update(machine_code(target.backend, binary, texts.get("ptx"), target.arch, metadata, sass))
    refused = texts.pop(SASS_REFUSED, None)  # an nvdisasm older than the target: no SASS, and why
    remarks: tuple[mlir_diagnostics.Remark, ...] | None  # None: not known (a cache hit kept none)
    remarks, rest = mlir_diagnostics.parse(diagnostics.text)
    if hits == [True]:  # read back from Triton's cache: no pass ran, so no remark was printed
        remarks = recorded_remarks(metadata)
    else:
        record_remarks(metadata, remarks)
    notices = tuple(line for line in rest.splitlines() if line.strip())
    notices += tuple(notice for notice in (refused, repaired) if notice)
    if remarks is None:
        notices += (REMARKS_UNKNOWN,)
    stage_seconds = times[0] if len(times) == 1 else ()
    return Artifacts(texts, binary, metadata, seconds, notices, hits == [True], remarks or (), stage_seconds)


def disassembled(artifacts: Artifacts, target: Target, listing: str | None = None) -> Artifacts:
    """The artifacts of a compile made without its SASS (`compile_variant(..., sass=False)`), the SASS
    read now, as `compile_variant` reads it (the explorer shows Triton's stages while nvdisasm runs);
    `listing`: nvdisasm's, where the caller read it already (tools.disassemble_lines)."""
    texts = {**artifacts.texts}
    if target.backend == "cuda":
        texts = with_sass(texts, artifacts.binary, target.arch, artifacts.metadata, listing)
    refused = texts.pop(SASS_REFUSED, None)
    return replace(artifacts, texts=texts, notices=artifacts.notices + ((refused,) if refused else ()))


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
        raise compile_errors.corrupt_cache_file(why)
    aside = Path(triton.knobs.cache.dir) / "tritonscope" / "damaged" / f"{folder.name}.{time.time_ns()}"
    try:
        aside.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(aside)
        hits.clear()
        compiled = _run_triton(kernel, variant, target)
    except (OSError, _DamagedEntry) as exc:
        raise compile_errors.corrupt_cache_file(str(exc)) from None
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
    """The folder of Triton's cache holding this compile."""
    return runtime.cache_entry(compile_key(kernel, variant, target))


def _run_triton(kernel, variant: Variant, target: Target):
    """triton.compile for a variant; its errors become CompileError (or UsageError for bad options)."""
    if not kernel.spec.name.isascii():
        raise CompileError(
            f"{kernel.spec.file}:{kernel.spec.line}: the kernel's name {kernel.spec.name} is not ASCII, and Triton "
            f"writes it into the PTX, which must be ASCII: rename the kernel"
        )
    if any(c in kernel.spec.file for c in "\n\r"):  # ptxas and ld.lld fail on it, each in its own words
        raise KernelFileError(
            f"{kernel.spec.file!r}: the kernel file's path has a line break, which the assembler cannot "
            f"read in the debug information Triton writes (its file name): rename the file or its folder"
        )
    source, backend = _source(kernel, variant, target)
    printed = io.StringIO()
    try:
        # Triton's prints held: when ptxas refuses the PTX, Triton prints the whole PTX as a
        # reproducer (a thousand lines), where ptxas's own line says it all.
        with contextlib.redirect_stdout(printed):
            compiled = triton.compile(
                source,
                target=gpu_target(target),
                options=compile_options(variant.options),
                _env_vars=cache_key_extras(kernel, variant),
            )
    except json.JSONDecodeError as exc:  # a cache entry Triton cannot read back
        raise _DamagedEntry(f"not JSON: {exc.msg}") from exc
    except Exception as exc:  # MLIR passes, ptxas and LLVM fail in many ways
        limit = open_files_limit(exc)
        if limit is not None:  # the shell's limit (ptxas's pipes, the cache's files): not the kernel's fault
            raise limit from exc
        if compile_errors.ptxas_refusal(exc) is None:
            _pass_on(printed.getvalue())
        raise compile_errors.mapped(exc, kernel, target, variant) from exc
    _pass_on(printed.getvalue())  # the dumps a user asked Triton for (its knobs), as they came
    return compiled


def _pass_on(text: str) -> None:
    """Triton's held prints to where prints go now (a kernel file may have closed sys.stdout)."""
    if text:
        with contextlib.suppress(ValueError, OSError):
            sys.stdout.write(text)


def _source(kernel, variant: Variant, target: Target):
    """(Triton's ASTSource for the variant, the backend), with the options checked."""
    remember_triton_key()
    for hook in (_stage_said, early_stages.hook):
        if hook not in STAGE_HOOKS:
            STAGE_HOOKS.append(hook)
    install_stages_hook()
    quiet_half_built_kernels()
    if release_tuple(triton.__version__)[:2] < target.since:
        since = ".".join(map(str, target.since))
        raise UsageError(
            f"Triton {triton.__version__} does not compile for {target.name}: its backend knows it from {since} on",
            hint=f"compile with a newer release: --triton {since}.0",
        )
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
    source_class = triton_kernels.source_class(kernel.jit)  # Gluon's own for @gluon.jit
    return source_class(kernel.jit, dict(variant.signature), constants, attrs), backend


def _stage_said(stages: dict) -> None:
    """Each stage of the pipeline says it runs (`stage 3 of 5 (llir)`), for the status line."""
    names = list(stages)
    for index, name in enumerate(names, 1):
        run = stages[name]

        def staged(src, metadata, _run=run, _said=f"stage {index} of {len(names)} ({name})"):
            progress.detail(_said)
            return _run(src, metadata)

        stages[name] = staged


def compile_key(kernel, variant: Variant, target: Target) -> str:
    """The key Triton's cache files this compile under (`get_cache_key` in triton/runtime/cache.py,
    3.5 on): anything keyed by it is stale exactly when Triton's own cache entry would be."""
    from triton.runtime.cache import get_cache_key

    source, backend = _source(kernel, variant, target)
    options = backend.parse_options(compile_options(variant.options))
    key = get_cache_key(source, backend, options, env_vars=cache_key_extras(kernel, variant))
    install_stages_hook()  # as triton.compile will see it
    hook = getattr(triton.knobs.runtime, "add_stages_inspection_hook", None)
    if hook is not None and version.release_tuple(version.installed()) >= (3, 7):
        key += hook()[0]  # from 3.7 on triton.compile adds the stage hook's key to its own
    return hashlib.sha256(key.encode()).hexdigest()


def _constexpr(value: Any) -> Any:
    """Constexpr values as Triton wants them: dtypes become tl.dtype objects, Gluon layouts layout objects;
    strings stay strings."""
    if isinstance(value, LayoutName):
        return triton_kernels.gluon_layout(value)
    return triton_kernels.dtype(value) if isinstance(value, TypeName) else value


def _plain_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    plain = {}
    for key, value in metadata.items():
        if isinstance(value, GPUTarget):
            value = {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
        plain[key] = value
    return plain
