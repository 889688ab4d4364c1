"""`tritonscope passes`: the compile again, in an isolated worker with Triton's IR dumps on.

The dumps go to the worker's C-level stderr, a file here; a compiler crash there cannot
take tritonscope down. The worker starts first, so its start-up overlaps checking the flags.
The pass records are kept in the user cache under Triton's own cache key for the compile, so
`--show`, `--full` and `--html` of a variant already captured need no compile.
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
import zlib
from pathlib import Path

from ..analysis import passes as pipeline
from ..core.errors import CompileError, UsageError
from ..core.fileio import read_checked_bytes, user_cache_dir, write_checked_bytes
from ..core.model import VariantRequest
from ..isolate import Task, Workers
from ..results.passes import PassesComparison, PassesResult
from ..triton_api.passes import DUMP_ENVIRONMENT, LLVM_DUMP_ENVIRONMENT
from .prepare import from_reference, prepare
from .releases import in_release


@in_release
def passes(request: VariantRequest, show: str | None, llvm: bool, timeout: float, page: bool = False) -> PassesResult:
    """The pass pipeline of one compile; with `page`, each changed pass side by side (for --html)."""
    request = from_reference(request)
    with _Capture(llvm, timeout) as capture:  # the worker starts now, while the flags are checked
        prepared = prepare(request)
        memo = _memo_path(prepared, llvm)
        kept = read_checked_bytes(memo)
        if kept is not None:
            records, llvm_records = pickle.loads(zlib.decompress(kept))
        else:
            records, llvm_records = _records(capture.dump(request), llvm)
            write_checked_bytes(memo, zlib.compress(pickle.dumps((records, llvm_records)), 1))
            _forget_old(memo.parent)
    selected = tuple(pipeline.select(list(records), show)) if show is not None else None
    rows = {r.index: pipeline.side_by_side(r) for r in records if r.changed and r.after is not None} if page else {}
    return PassesResult(prepared.variant, records, llvm_records, selected, _triton_version(), rows)


def compare(request: VariantRequest, axes: list, timeout: float) -> PassesComparison:
    """The pipelines of the two variants one --vary axis names (two Triton releases, say), and the
    first pass whose output differs between them."""
    from .load import load_file
    from .sweep import expand

    base = from_reference(request)
    variants = expand(base, axes, load_file(base.file).pick(base.kernel).spec, configs=False)
    if len(variants) != 2:
        raise UsageError(f"passes --vary compares two pipelines; this names {len(variants)}: give NAME=A,B")
    results = tuple(passes(v.request, None, False, timeout) for v in variants)
    divergence = pipeline.first_divergence(list(results[0].records), list(results[1].records))
    return PassesComparison((variants[0].describe(), variants[1].describe()), results, divergence)


def _records(dump: str, llvm: bool):
    records = tuple(pipeline.build(dump))
    if not records:
        raise CompileError("the compiler printed no pass dumps (is MLIR_ENABLE_DUMP honoured by this Triton?)")
    return records, tuple(pipeline.build_llvm(dump)) if llvm else None


MEMO_COUNT = 32  # pass records kept (a large kernel's are a few MB compressed)


def _memo_path(prepared, llvm: bool) -> Path:
    from ..triton_api.compiler import compile_key

    key = compile_key(prepared.kernel, prepared.variant, prepared.target) + ("-llvm" if llvm else "")
    return user_cache_dir() / "passes" / f"{hashlib.sha256(key.encode()).hexdigest()}.bin"


def _forget_old(folder: Path) -> None:
    kept = sorted(folder.glob("*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[MEMO_COUNT:]:
        old.unlink(missing_ok=True)


class _Capture:
    """A worker with Triton's IR dumps on, its C-level stderr in a file of a temporary folder."""

    def __init__(self, llvm: bool, timeout: float):
        self.timeout = timeout
        self._folder = tempfile.TemporaryDirectory(prefix="tritonscope-passes-")
        self._file = Path(self._folder.name) / "dump.txt"
        self._stderr = open(self._file, "w")  # noqa: SIM115 - closed in __exit__
        env = {**DUMP_ENVIRONMENT, **(LLVM_DUMP_ENVIRONMENT if llvm else {})}
        env["TRITON_CACHE_DIR"] = f"{self._folder.name}/cache"
        self._workers = Workers(timeout=timeout, env=env, stderr=self._stderr)

    def __enter__(self) -> _Capture:
        self._workers.warm(preload=__name__)  # the module of `capture`, its task
        return self

    def __exit__(self, *exc_info) -> None:
        self._workers.close()
        self._stderr.close()
        self._folder.cleanup()

    def dump(self, request: VariantRequest) -> str:
        outcome = self._workers.run([Task(f"{__name__}:capture", (request,))])[0]
        if not outcome.ok:
            if outcome.timed_out:
                raise CompileError(f"capturing the passes took longer than {self.timeout:g} s", hint="raise --timeout")
            outcome.unwrap()
        self._stderr.flush()
        return self._file.read_text(errors="replace")


def capture_dump(request: VariantRequest, llvm: bool, timeout: float):
    """(the Variant, Triton's pass-by-pass IR dumps) of one compile in an isolated worker."""
    with _Capture(llvm, timeout) as capture:
        variant = prepare(request).variant  # bad flags fail here, while the worker starts
        return variant, capture.dump(request)


def capture(request: VariantRequest) -> None:
    """In the worker: the pipeline up to triton.compile, keeping the final LLVM-dialect module."""
    from ..triton_api.compiler import run_compiler
    from ..triton_api.passes import keep_final_module

    keep_final_module()
    prepared = prepare(request)
    run_compiler(prepared.kernel, prepared.variant, prepared.target)


def _triton_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        raise UsageError("Triton is not installed: pip install triton") from None
