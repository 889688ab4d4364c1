"""`tritonscope explore`'s work, done in the explorer's child process: one variant compiled and
explained, the kernels of a folder or of a file with several, a pass pipeline; and, in the
explorer's own process, a compile's stages shown as it names them (`StagesShown`).

The explorer's own process never imports Triton or torch: it imports this module only to name
these functions as tasks (`isolate.task`), so everything they need is imported inside them, and
its worker imports WARM before the first task comes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..analysis.artifacts import StagesFiled, stages_so_far, to_compilation
from ..core.model import Compilation, KernelSpec, VariantRequest
from ..core.source import CachedKernel, CaptureFolder
from ..results.cache import CacheListing
from ..results.catalog import KernelList
from ..results.explain import ExplainResult
from ..results.explore import CompileFailure, ExploreResult
from ..results.passes import PassesResult
from .walk.releases import in_release

WARM = "tritonscope.app.explain"  # what the tasks below import first: Triton, the pipeline, explain
SPARE = f"{__name__}:warm_up"  # a spare worker's preload: WARM, and a first compile behind it

Explored = ExploreResult | CompileFailure | KernelList | CacheListing


def explored(request: VariantRequest, told: str | None = None, early: bool = False) -> Explored:
    """The variant compiled and explained (no what-ifs: they are compiles of their own), or why it did
    not compile; a capture or cache folder, or a file of several kernels with none named, is listed
    instead. Each step is told to the file `told` as it starts (the status line); with `early`, the
    stages filed so far too, as Triton makes the next (`_early_told`)."""
    return _explored(request, told, early)


@in_release
def _explored(request: VariantRequest, told: str | None, early: bool) -> Explored:
    """`explored` in the Triton release the request names (a worker of its environment, for another)."""
    from ..core import progress

    progress.listen(_told_to(told) if told else None)
    try:
        return _explained(request, _early_told(told, request) if told and early else None)
    finally:
        progress.listen(None)


def _told_to(path: str):
    """A listener that appends each step said (core/progress.py) as a line of `path`."""

    def tell(step: str) -> None:
        with open(path, "a", encoding="utf-8") as file:
            file.write(step.replace("\n", " ") + "\n")

    return tell


EARLY = "\0early "  # the step "EARLY N" once the N-th stages filed so far are pickled to `early_file(steps, N)`


def early_file(steps: str, number: int) -> str:
    """Where the `number`-th hand-over of a compile's stages so far is pickled, beside its steps file."""
    return f"{steps}.early{number}"


@dataclass(frozen=True)
class EarlyStages:
    """A compile's stages filed so far, handed by the child to the explorer, which reads and shows
    them (`StagesShown`) while Triton makes the next: the child only names them."""

    request: VariantRequest
    releases: tuple[str, ...]
    filed: StagesFiled


def _early_told(told: str, request: VariantRequest):
    """What `compile_stages` calls with the stages filed so far, as each next one starts: pickled beside
    the steps file, then told as the step EARLY N."""
    import itertools
    import os
    import pickle

    numbers, releases = itertools.count(1), functools.cache(_releases)

    def tell(filed: StagesFiled) -> None:
        number = next(numbers)
        path = early_file(told, number)
        with open(path + ".part", "wb") as file:
            pickle.dump(EarlyStages(request, releases(), filed), file)
        os.replace(path + ".part", path)  # whole, or not there
        _told_to(told)(f"{EARLY}{number}")

    return tell


class StagesShown:
    """In the explorer's process: one compile's stages handed over so far (`EarlyStages`), as the
    ExploreResult it shows: early, `partial` until they are all those before the binary. Each
    stage's text is read once, and its line map built once."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._maps: dict = {}

    def result(self, early: EarlyStages) -> ExploreResult | None:
        """The stages so far, or None where a file cannot be read (the compile's own result comes)."""
        try:
            for ext, path in early.filed.files.items():
                if ext not in self._texts:
                    self._texts[ext] = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        c = stages_so_far(early.filed, self._texts, known=self._maps)
        self._maps.update(c.line_map)
        explained = ExplainResult(c, (), ())
        return ExploreResult(early.request, explained, early.releases, early=True, partial=not early.filed.whole)


def _explained(request: VariantRequest, early: Callable[[StagesFiled], None] | None = None) -> Explored:
    from ..core import progress
    from ..core.errors import CompileError, MissingValues
    from .catalog import cache_list
    from .explain import explain_compilation
    from .walk.prepare import compile_stages, from_reference

    if isinstance(request.source, CaptureFolder):
        return cache_list(request.source.folder)
    several = _several_kernels(request)
    if several is not None:
        return several
    if isinstance(request.source, CachedKernel) and request != VariantRequest(request.file, source=request.source):
        request = from_reference(request)  # a captured kernel changed: compiled again from its source
    try:
        compilation, unread = compile_stages(request, early)
    except (CompileError, MissingValues) as exc:  # shown, the variant screen to mend it
        spec = exc.kernel if isinstance(exc, MissingValues) and isinstance(exc.kernel, KernelSpec) else None
        return CompileFailure(request, exc.message, exc.hint, getattr(exc, "where", None), spec)
    helpers = _helpers(request)
    if unread is not None:  # Triton's stages now; the SASS (`with_machine_code`), then explain, after them
        return ExploreResult(request, ExplainResult(compilation, (), ()), _releases(), helpers, unread)
    with progress.step("explain"):
        # nvdisasm's life ranges (1-3 s) come after, in `with_live_registers`: the stages show first
        explained = explain_compilation(compilation, live=False)
        return ExploreResult(request, explained, _releases(), helpers, controls=_controls(compilation))


def _helpers(request: VariantRequest) -> tuple[str, ...]:
    """The user's own files the kernel's file imports (app/walk/packages.helper_files), for the watch."""
    from .walk.packages import source_helpers

    return source_helpers(request.source)


def warm_up() -> None:
    """A spare worker's first compile, done before any request comes: a bundled kernel, in a Triton
    cache of its own that is thrown away. A process's first compile pays 0.2 s more than the next
    (the imports each step makes on first use, Triton's set-up); this puts it behind the worker."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tritonscope-warm-") as cache:
        kept = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = cache  # Triton reads it at each compile (knobs.cache.dir)
        try:
            _explained(VariantRequest(file="sample:double", target="sm90"))
        finally:
            if kept is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = kept


def with_machine_code(result: ExploreResult) -> ExploreResult:
    """A variant shown with Triton's stages only, its SASS read now (nvdisasm) and explained (without the
    registers live per line: `with_live_registers` reads them next)."""
    from dataclasses import replace

    from ..triton_api.compiler import disassembled
    from .explain import explain_compilation
    from .walk.prepare import MACHINE_CODE_PENDING

    c, target = result.compilation, result.compilation.variant.target_info
    if result.unread is None:
        return result
    known = {stage: lines for stage, lines in c.line_map.items() if stage is not target.vendor.machine_code}
    full = to_compilation(c.kernel, c.variant, disassembled(result.unread, target), target, known)
    notices = (*(n for n in c.notices if n != MACHINE_CODE_PENDING), *full.notices)
    full = replace(full, notices=tuple(dict.fromkeys(notices)), compile_seconds=c.compile_seconds)
    explained = explain_compilation(full, live=False)
    return ExploreResult(result.request, explained, result.releases, result.helpers, controls=_controls(full))


def with_live_registers(result: ExploreResult) -> ExploreResult:
    """The variant explained again with the registers live on each line read (nvdisasm's life
    ranges): explain's full result, which the explorer shows once the stages are on screen."""
    from .explain import explain_compilation

    explained = explain_compilation(result.compilation)
    return ExploreResult(result.request, explained, result.releases, result.helpers, controls=result.controls)


def _controls(c: Compilation) -> dict[int, str] | None:
    """Each SASS instruction's control code, as `dump --control` writes it, by its line in the SASS
    listing; None for AMD, or SASS without its binary."""
    from ..analysis import scoreboards

    schedule = scoreboards.schedule(c)
    if schedule is None:
        return None
    return {s.listing_line: schedule.controls[s.offset].text for s in schedule.listing.instructions}


def _several_kernels(request: VariantRequest) -> KernelList | None:
    """The file's kernels when it has several and the request names none (the explorer lists them)."""
    if request.kernel is not None or isinstance(request.source, CachedKernel):
        return None
    from .catalog import list_kernels

    listed = list_kernels(request.source, request.target_info)
    if not isinstance(listed, KernelList):  # a capture folder's compiles: listed where it is opened
        return None
    return listed if sum(not k.is_helper for k in listed.kernels) > 1 else None


def _releases() -> tuple[str, ...]:
    from ..triton_api.version import installed
    from .walk.releases import installed_envs

    return (installed(), *(env.release for env in installed_envs() if env.release != installed()))


def pipeline(request: VariantRequest, timeout: float = 600.0) -> PassesResult:
    """The variant's pass pipeline, as `passes` reads it."""
    from .passes import passes

    return passes(request, None, False, timeout)
