"""`tritonscope passes`: the compile again, in an isolated worker with Triton's IR dumps on.

The dumps go to the worker's C-level stderr, a file here; a compiler crash there cannot
take tritonscope down. The worker starts first, so its start-up overlaps checking the flags.
The pass records are kept in the user cache under Triton's own cache key for the compile, so
`--show`, `--full` and `--html` of a variant already captured need no compile.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import secrets
import tempfile
import threading
import zlib
from pathlib import Path

from ..analysis import compile_time
from ..analysis import passes as pipeline
from ..analysis.compile_time import CompileTiming
from ..core.errors import CompileError, UsageError
from ..core.fileio import read_checked_bytes, user_cache_dir, write_checked_bytes
from ..core.model import VariantRequest
from ..isolate import Outcome, Workers, pool, task
from ..parsers import timing_report
from ..results.passes import PassesComparison, PassesResult
from ..triton_api.passes import DUMP_ENVIRONMENT, LLVM_DUMP_ENVIRONMENT
from .walk.prepare import from_reference, prepare
from .walk.releases import in_release


@in_release
def passes(
    request: VariantRequest, show: str | None, llvm: bool, timeout: float, page: bool = False, timed: bool = False
) -> PassesResult:
    """The pass pipeline of one compile; with `page`, each changed pass side by side (for --html);
    with `timed`, also where the compile's time went: a second compile, without dumps and with
    Triton's timers on, in the same worker once it has sent the dumps back, while this process
    reads them (the worker's start-up is not paid twice, nor timed)."""
    request = from_reference(request)
    with _Capture(_dump_env(llvm), timeout) as capture:
        prepared = prepare(request)  # the worker starts while the flags are checked
        memo = _memo_path(prepared, llvm)
        kept = read_checked_bytes(memo)
        dump = capture.dump(request) if kept is None else None
        if timed:
            capture.start_timed(request)
        if kept is not None:
            records, llvm_records = pickle.loads(zlib.decompress(kept))
        else:
            assert dump is not None  # dumped above, since nothing was kept
            records, llvm_records = _records(dump, llvm)
            write_checked_bytes(memo, zlib.compress(pickle.dumps((records, llvm_records)), 1))
            _forget_old(memo.parent)
        timing = _timing(capture, records) if timed else None
    selected = tuple(pipeline.select(list(records), show)) if show is not None else None
    # side by side: every changed pass for the HTML page, those --show names for a notebook's view
    drawn = records if page else selected or ()
    rows = {r.index: pipeline.side_by_side(r) for r in drawn if r.changed and r.after is not None}
    return PassesResult(prepared.variant, records, llvm_records, selected, _triton_version(), timing, rows)


def _timing(capture: _Capture, records) -> CompileTiming:
    measured, report_text = capture.finish_timed()
    return compile_time.build(measured, timing_report.parse(report_text), list(records))


def _dump_env(llvm: bool) -> dict[str, str]:
    return {**DUMP_ENVIRONMENT, **(LLVM_DUMP_ENVIRONMENT if llvm else {})}


def compare(request: VariantRequest, axes: list, timeout: float) -> PassesComparison:
    """The pipelines of the two variants one --vary axis names (two Triton releases, say), and the
    first pass whose output differs between them."""
    from .walk.load import load_file
    from .walk.sweep import expand

    base = from_reference(request)
    variants = expand(base, axes, load_file(base.source, base.target_info).pick(base.kernel).spec, configs=False)
    if len(variants) != 2:
        raise UsageError(f"passes --vary compares two pipelines; this names {len(variants)}: give NAME=A,B")
    first, second = _both(variants, timeout)
    results = (first, second)
    divergence = pipeline.first_divergence(list(results[0].records), list(results[1].records))
    return PassesComparison((variants[0].describe(), variants[1].describe()), results, divergence)


def _both(variants: list, timeout: float) -> tuple[PassesResult, ...]:
    """Both pipelines at once, each in a worker of its release (or a cluster's node, with --cluster)."""
    from .walk import releases

    tasks = []
    for v in variants:
        tasks.append(releases.task(passes, (v.request, None, False, timeout), v.request.triton, (v.request.file,)))
    with pool(jobs=2, timeout=24 * 3600) as workers:  # `passes` keeps its own time limits
        return tuple(outcome.unwrap() for outcome in workers.run(tasks))


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
    """A worker compiling with `env` (Triton's IR dumps on), its C-level stderr a pipe that a thread
    here reads; each compile's share of what came through is taken once the compile has ended.

    A pipe, not a file: MLIR and LLVM print their dumps unbuffered, a few bytes a write (1.6 million
    writes for sample:matmul's 8 MB). To a file on the 2-core machine those writes cost 1.3 s, more
    than twice the compile; to a pipe, 0.15 s, and this thread reads it in large chunks. Each task
    ends by writing `mark` to its stderr, after everything the compile printed: what precedes the
    next mark is that compile's."""

    def __init__(self, env: dict[str, str], timeout: float):
        self.timeout = timeout
        self._folder = tempfile.TemporaryDirectory(prefix="tritonscope-passes-")
        read_end, write_end = os.pipe()
        self._pipe = os.fdopen(read_end, "rb", buffering=0)
        self._stderr = os.fdopen(write_end, "wb")  # the workers'; closed in __exit__
        env = {**env, "TRITON_CACHE_DIR": f"{self._folder.name}/cache"}
        self._workers = Workers(timeout=timeout, env=env, stderr=self._stderr)
        self.mark = f"\n-- tritonscope: the task's output ends here {secrets.token_hex(8)} --\n".encode()
        self._printed = bytearray()  # all the workers printed so far
        self._marks: list[int] = []  # where each mark begins in it
        self._taken = 0  # marks whose compile's output was taken
        self._ended = False  # every write end closed
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._drain, name="passes stderr", daemon=True)
        self._reader.start()
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | None = None

    def __enter__(self) -> _Capture:
        self._workers.warm(preload=__name__)  # the module of `capture`, its task
        return self

    def __exit__(self, *exc_info) -> None:
        if self._thread is not None:
            self._thread.join()  # after an error too: the timed compile ends within --timeout
        self._workers.close()
        self._stderr.close()
        self._reader.join(timeout=5)  # a compiler's orphan may hold the pipe: the thread is a daemon
        self._pipe.close()
        self._folder.cleanup()

    def dump(self, request: VariantRequest) -> str:
        self._outcome = self._workers.run([task(capture, request, self.mark)])[0]
        return self._read()[1]

    def start_timed(self, request: VariantRequest) -> None:
        """The timed compile, in a thread that waits on the worker; `finish_timed` collects it."""
        timing = task(timed, request, self.mark)
        self._thread = threading.Thread(target=lambda: setattr(self, "_outcome", self._workers.run([timing])[0]))
        self._thread.start()

    def finish_timed(self):
        """(the timed compile's StepTimes, what it printed on its C-level stderr)."""
        self._thread.join()
        self._thread = None
        return self._read()

    def _drain(self) -> None:
        """The reading thread: the pipe into `_printed`, noting where each mark lands."""
        size = len(self.mark)
        while chunk := self._pipe.read(1 << 20):
            with self._changed:
                start = max(len(self._printed) - size + 1, 0)  # a mark may straddle two reads
                self._printed += chunk
                while (at := self._printed.find(self.mark, start)) >= 0:
                    self._marks.append(at)
                    start = at + size
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def _read(self):
        outcome = self._outcome
        if not outcome.ok:
            if outcome.timed_out:
                raise CompileError(f"compiling took longer than {self.timeout:g} s", hint="raise --timeout")
            outcome.unwrap()
        with self._changed:  # the task wrote its mark before it answered: it is on its way
            self._changed.wait_for(lambda: len(self._marks) > self._taken or self._ended, timeout=self.timeout)
            start = self._marks[self._taken - 1] + len(self.mark) if self._taken else 0
            end = self._marks[self._taken] if len(self._marks) > self._taken else len(self._printed)
            self._taken += 1
            printed = bytes(self._printed[start:end])
        return outcome.value, printed.decode(errors="replace")


def capture(request: VariantRequest, mark: bytes) -> None:
    """In the worker: the pipeline up to triton.compile, keeping the final LLVM-dialect module, then
    `mark` on the C-level stderr after all it printed."""
    from ..triton_api.compiler import run_compiler
    from ..triton_api.passes import keep_final_module

    keep_final_module()
    prepared = prepare(request)
    run_compiler(prepared.kernel, prepared.variant, prepared.target)
    os.write(2, mark)


def timed(request: VariantRequest, mark: bytes):
    """In the worker: one compile with Triton's timers on and its dumps off (triton_api.timing.StepTimes),
    then `mark` after the timers' report."""
    from ..triton_api.timing import timed_compile, timers_on

    timers_on()
    prepared = prepare(request)
    measured = timed_compile(prepared.kernel, prepared.variant, prepared.target)
    os.write(2, mark)
    return measured


def _triton_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        raise UsageError("Triton is not installed: pip install triton") from None
