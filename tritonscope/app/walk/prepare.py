"""The one pipeline every command walks: load, pick, specialize, then compile or read a cache.

`prepare` is the only place a request becomes a Variant; commands, sweep workers and the
passes child all go through it, so they specialize the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from ...analysis import gluon_targets
from ...analysis.artifacts import StagesFiled, early_line_map, to_compilation
from ...captures.compiled import read_compilation
from ...captures.folder import capture_given
from ...captures.rebuild import source_request
from ...core import progress
from ...core.errors import CompileError, UsageError
from ...core.model import Artifacts, Compilation, KernelSpec, Variant, VariantRequest
from ...core.source import CachedKernel, CaptureFolder, file_text
from ...core.stages import Language
from ...core.targets import Target
from ...triton_api import version
from .load import LoadedKernel, load_file
from .releases import in_release
from .specialize import specialize


@dataclass(frozen=True)
class Prepared:
    """A request made concrete: the kernel it names and the Variant it specializes to."""

    request: VariantRequest
    target: Target
    kernel: LoadedKernel
    variant: Variant
    module: Any  # the kernel file's module, for its hooks (grid, bench)
    notices: tuple[str, ...] = ()


def prepare(request: VariantRequest) -> Prepared:
    """Load, pick and specialize. A cached kernel (DIR/:NAME) starts from its recorded specialization."""
    request = from_reference(request)
    if isinstance(request.source, CaptureFolder):  # a folder of kernels, not one: say which it holds
        raise capture_given(request.source)
    target = request.target_info  # resolved where the request was made; a cached kernel's, recorded
    assert target is not None, "from_reference gives a cached kernel's request its recorded target"
    loaded = load_file(request.source, target)
    kernel = loaded.pick(request.kernel)
    variant = specialize(kernel, request, loaded.defaults, target)
    notices = tuple(n for n in (version.notice(), request.target_notice, *loaded.notices) if n)
    return Prepared(request, target, kernel, variant, loaded.module, notices)


def from_reference(request: VariantRequest) -> VariantRequest:
    """A request for a cached kernel's source file, specialized as it was; other requests as they are."""
    if not isinstance(request.source, CachedKernel):
        return request
    recorded = source_request(request.source)
    # Flags the user gave on top of the reference win over the recorded ones.
    kept = ("file", "source", "target", "constexprs", "args")
    merged = replace(recorded, **{k: v for k, v in vars(request).items() if v and k not in kept})
    for name, value in request.constexprs:
        merged = merged.with_value(name, value, constexpr=True)
    for name, value in request.args:
        merged = merged.with_value(name, value, constexpr=False)
    return merged


@in_release
def compile_request(request: VariantRequest) -> Compilation:
    """The Compilation a request names: read whole from a cache (DIR/:NAME), or compiled."""
    if isinstance(request.source, CachedKernel):
        if request != VariantRequest(file=request.file, target=request.target, source=request.source):
            raise UsageError(f"{request.file} is already compiled: variant flags (-c, -a, --target...) do not apply")
        return read_compilation(request.source)
    return compile_prepared(prepare(request))


def compile_stages(
    request: VariantRequest, early: Callable[[StagesFiled], None] | None = None
) -> tuple[Compilation, Artifacts | None]:
    """The compile with its SASS still to be read, where it can wait (an NVIDIA target, a kernel compiled
    here): (the Compilation of Triton's stages, its artifacts, for `triton_api.compiler.disassembled`);
    else (the whole Compilation, None). `early`, where given, is told the stages filed so far as each
    next one starts (`analysis.artifacts.stages_so_far` makes them a Compilation, where they are shown)."""
    from ...triton_api.compiler import compile_variant
    from ...triton_api.early_stages import as_filed

    if isinstance(request.source, CachedKernel):
        return compile_request(request), None
    prepared = prepare(request)
    if prepared.target.backend != "cuda" or _target_lacks(prepared):
        return compile_prepared(prepared), None
    spec, variant, target = prepared.kernel.spec, prepared.variant, prepared.target
    told = (lambda files, whole: early(StagesFiled(spec, variant, target, files, whole))) if early else None
    with _layouts_explained(prepared), progress.step(_compiling(prepared)), as_filed(told):
        artifacts = compile_variant(prepared.kernel, prepared.variant, prepared.target, sass=False)
    waiting = replace(artifacts, notices=(*artifacts.notices, MACHINE_CODE_PENDING))
    return _with_notices(
        to_compilation(prepared.kernel.spec, prepared.variant, waiting, prepared.target), prepared
    ), artifacts


MACHINE_CODE_PENDING = "the SASS is being read (nvdisasm)"


def compile_prepared(prepared: Prepared) -> Compilation:
    from ...triton_api.compiler import compile_variant

    risky = _target_lacks(prepared)
    if risky:
        return _compile_isolated(prepared, risky)
    with (
        _layouts_explained(prepared),
        progress.step(_compiling(prepared)),
    ):
        artifacts = compile_variant(prepared.kernel, prepared.variant, prepared.target)
    return _with_notices(to_compilation(prepared.kernel.spec, prepared.variant, artifacts, prepared.target), prepared)


def _compiling(prepared: Prepared) -> str:
    return f"compiling {prepared.kernel.spec.name} for {prepared.target.name}"


@contextlib.contextmanager
def _layouts_explained(prepared: Prepared):
    """A Gluon kernel that fails for a target whose warps have another number of lanes than its
    layouts were written for (gfx942's 64 against 32) is told so: Triton's own error may be a bare
    AssertionError deep in a reduction."""
    try:
        yield
    except CompileError as exc:
        target, spec = prepared.target, prepared.kernel.spec
        if spec.language is not Language.GLUON:
            raise
        source = file_text(spec.file)
        if source is None:
            raise exc from None
        wrong = gluon_targets.layouts_for_other_warps(source, target.warp_size)
        if not wrong:
            raise
        raise CompileError(
            f"{exc.message}\n{spec.file}: its layouts are written for another warp size than "
            f"{target.name}'s {target.warp_size} threads per warp ({'; '.join(wrong)})",
            hint=f"write the layouts for {target.warp_size} threads per warp (their threads_per_warp multiply "
            f"to {target.warp_size}), or compile for a target whose warps have that many",
        ) from exc


def _target_lacks(prepared: Prepared) -> list[str]:
    """A Gluon kernel's operations its target has not (analysis/gluon_targets.py): empty for most."""
    if prepared.kernel.spec.language is not Language.GLUON:
        return []
    source = file_text(prepared.kernel.spec.file)
    if source is None:
        return []
    return gluon_targets.missing_operations(source, prepared.target.backend, prepared.target.arch)


def _compile_isolated(prepared: Prepared, lacking: list[str]) -> Compilation:
    """The compile in a child, whose Triton may abort the process on an operation the target lacks:
    the user gets the compiler's own words (its stderr is let through) and this message, not a crash."""
    from ...isolate import Workers, task
    from ...triton_api.remarks import STDERR_PASSED

    env = {STDERR_PASSED: "1"}
    with Workers(timeout=600, env=env) as workers:
        outcome = workers.run([task(compile_undisassembled, prepared.request)])[0]
    if not outcome.ok and outcome.error_type == "CompileError" and "crashed" in (outcome.error or ""):
        spec = prepared.kernel.spec
        raise CompileError(
            f"{spec.file}:{spec.line}: {spec.name} does not compile for {prepared.target.name}: {outcome.error}; "
            f"it uses {', '.join(lacking)}"
        )
    return finish([outcome.unwrap()])[0]


@dataclass(frozen=True)
class Undisassembled:
    """A compile whose SASS is still to be read: what a sweep's worker sends back, so that the
    sweep disassembles all its cubins in one run (`finish`)."""

    spec: KernelSpec
    variant: Variant
    target: Target
    artifacts: Artifacts
    notices: tuple[str, ...]
    line_map: dict | None = None  # every stage's but the SASS, where the worker built it (`compile_mapped`)


def compile_undisassembled(request: VariantRequest) -> Undisassembled:
    """In a sweep's worker: the compile, without its SASS."""
    from ...triton_api.compiler import compile_variant

    prepared = prepare(request)
    with _layouts_explained(prepared):
        artifacts = compile_variant(prepared.kernel, prepared.variant, prepared.target, sass=False)
    return Undisassembled(prepared.kernel.spec, prepared.variant, prepared.target, artifacts, prepared.notices)


def compile_mapped(request: VariantRequest) -> Undisassembled:
    """In a sweep's worker: the compile without its SASS, and the line maps of its other stages, built
    here while the other workers compile, not in the sweep's process after the last compile."""
    compiled = compile_undisassembled(request)
    return replace(compiled, line_map=early_line_map(compiled.spec, compiled.artifacts, compiled.target))


def compile_finished(request: VariantRequest) -> Compilation:
    """In a sweep's task on a cluster's node: the compile finished there, its SASS read as `finish`
    reads a local sweep's (so the two runs' results are equal), and the head does no work for it."""
    return finish([compile_undisassembled(request)])[0]


def finish(compiles: list[Undisassembled], ahead: SassAhead | None = None) -> list[Compilation]:
    """The Compilations of many compiles, their NVIDIA cubins disassembled together (but those `ahead`
    reads). nvdisasm runs (0.2-0.3 s, mostly its start-up) while the other stages' line maps are built here
    (those a sweep's workers have not built already)."""
    from ...triton_api.tools import disassemble_code, sass_refused, with_serialization_report

    cubins = [c.artifacts.binary for c in compiles if c.target.backend == "cuda"]
    rest = [b for b in cubins if ahead is None or b not in ahead.binaries]
    with ThreadPoolExecutor(1) as background:
        disassembly = background.submit(disassemble_code, rest)
        line_maps = [
            c.line_map if c.line_map is not None else early_line_map(c.spec, c.artifacts, c.target) for c in compiles
        ]
        sass = dict(zip(rest, disassembly.result(), strict=True))
    sass |= ahead.listings() if ahead else {}
    unread = [b for b in cubins if b not in sass]  # the read ahead failed: its error is met here
    sass |= dict(zip(unread, disassemble_code(unread), strict=True))
    finished = []
    for c, line_map in zip(compiles, line_maps, strict=True):
        artifacts = c.artifacts
        if c.target.backend == "cuda":
            listing = sass[artifacts.binary]
            if listing is None:  # the bundled nvdisasm is older than the target
                refused = sass_refused(c.target.arch)
                artifacts = replace(artifacts, notices=(*artifacts.notices, refused))
            else:
                texts = {**artifacts.texts, "sass": listing}
                texts = with_serialization_report(texts, texts.get("ptx"), c.target.arch)
                artifacts = replace(artifacts, texts=texts)
        finished.append(_with_notices(to_compilation(c.spec, c.variant, artifacts, c.target, line_map), c))
    return finished


class SassAhead:
    """The SASS of some of a sweep's compiles, read (one nvdisasm run) in a thread while the sweep's last
    compiles run, for `finish` to take: a sweep's first worker to run out of tasks leaves its core free
    for it, and after the last compile nvdisasm reads only the rest (on a 2-core machine, its start-up
    and one cubin: 0.6 s, against 0.8 s for eight)."""

    def __init__(self, values: list[Any]):
        from ...triton_api.tools import disassemble_code

        ready = [v for v in values if isinstance(v, Undisassembled) and v.target.backend == "cuda"]
        self.binaries = [v.artifacts.binary for v in ready]
        self._thread = ThreadPoolExecutor(1)
        self._read = self._thread.submit(disassemble_code, self.binaries)

    def listings(self) -> dict[bytes, str | None]:
        """{cubin: its SASS, or None where no nvdisasm here reads it}; empty where the run failed (`finish`
        reads them again, and meets the error itself)."""
        try:
            return dict(zip(self.binaries, self._read.result(), strict=True))
        except Exception:  # noqa: BLE001 - reported by finish's own run
            return {}
        finally:
            self._thread.shutdown()


def _with_notices(compilation: Compilation, prepared) -> Compilation:
    if prepared.notices:
        return replace(compilation, notices=(*prepared.notices, *compilation.notices))
    return compilation
