"""What `passes --time` needs from Triton: one compile with its own timers on, and the steps
MLIR's and LLVM's reports leave out measured around them.

MLIR_ENABLE_TIMING makes each MLIR pass manager print its per-pass wall times on file
descriptor 2 when it ends; LLVM_ENABLE_TIMING does the same for LLVM's code generation (the
-O3 pipeline has no report). The compile runs without IR dumps, since printing the IR before
every pass would be timed as well. Around that, in this process: the front end (Python AST to
TTIR, from Triton's compilation listener), each stage, and the LLVM calls Triton makes
(MLIR to LLVM IR, -O3, code generation), timed with perf_counter; a STAGE_MARK line on file
descriptor 2 before each stage files the reports under it.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field

import triton  # type: ignore[import-untyped]

from ..parsers.timing_report import STAGE_MARK
from .compiler import run_compiler
from .passes import DUMP_ENVIRONMENT, LLVM_DUMP_ENVIRONMENT, TIMING_ENVIRONMENT
from .shims import STAGE_HOOKS

# The LLVM entry points of triton._C.libtriton.llvm the backends call, as each step is named.
LLVM_STEPS = {
    "to_module": "MLIR to LLVM IR",
    "link_extern_libs": "linking libdevice",
    "optimize_module": "LLVM -O3",
    "translate_to_asm": "LLVM code generation",
}
_LLVM_STAGE = {"translate_to_asm": "ptx"}  # the stage of a call where no stage hook says (3.5): else llir


@dataclass
class StepTimes:
    """One compile's timings taken in Python (seconds); picklable, sent back from the worker."""

    total: float = 0.0  # triton.compile and what tritonscope does around it
    front_end: float | None = None  # options, cache key, Python AST to TTIR: up to the first stage
    started: float = 0.0
    stages: list[tuple[str, float]] = field(default_factory=list)  # (stage, seconds) in order
    steps: list[tuple[str, str, float]] = field(default_factory=list)  # (stage, step, seconds)
    pass_manager_runs: list[tuple[str, float]] = field(default_factory=list)  # (stage, seconds) of each pm.run
    store: float | None = None  # writing Triton's cache (each stage's output, the metadata); None: not timed
    handed_back: float | None = None  # from the listener's call to the end: the CompiledKernel made
    stage: str | None = None  # the stage running now


def timers_on() -> None:
    """This process's next compiles with Triton's timers on and its IR dumps off (Triton reads these
    variables at each compile), and without the hooks of an earlier dumping compile."""
    for name in (*DUMP_ENVIRONMENT, *LLVM_DUMP_ENVIRONMENT):
        os.environ.pop(name, None)
    os.environ.update(TIMING_ENVIRONMENT)
    STAGE_HOOKS.clear()


def timed_compile(kernel, variant, target) -> StepTimes:
    """Compiles once, with MLIR's and LLVM's timers on (TIMING_ENVIRONMENT, set in this process's
    environment by `timers_on`), measuring what their reports leave out."""
    measured = StepTimes()
    _time_llvm(measured)
    if hook_stages(measured):  # without it, Triton's own stage times hold the cache writes
        _time_cache_writes(measured)
        _time_pass_managers(measured)
    measured.started = time.perf_counter()
    with _listening(measured):
        run_compiler(kernel, variant, target)
    measured.total = time.perf_counter() - measured.started
    if measured.handed_back is not None:
        measured.handed_back = measured.started + measured.total - measured.handed_back
    os.write(2, f"{STAGE_MARK}end\n".encode())
    return measured


def hook_stages(measured: StepTimes) -> bool:
    """Wraps each stage to mark and time it (since 3.6: the stage hook); False where Triton has none."""
    if not hasattr(triton.knobs.runtime, "add_stages_inspection_hook"):
        return False

    def hook(stages):
        for name, make in list(stages.items()):
            stages[name] = _timed_stage(name, make, measured)

    STAGE_HOOKS.append(hook)
    return True


def _timed_stage(name: str, make, measured: StepTimes):
    def stage(src, metadata):
        os.write(2, f"{STAGE_MARK}{name}\n".encode())
        measured.stage = name
        started = time.perf_counter()
        if measured.front_end is None:  # less the cache write of the source, timed as a write
            measured.front_end = started - measured.started - (measured.store or 0.0)
        try:
            return make(src, metadata)
        finally:
            measured.stages.append((name, time.perf_counter() - started))

    return stage


def _time_llvm(measured: StepTimes) -> None:
    from triton._C.libtriton import llvm  # type: ignore[import-untyped]

    for attribute, step in LLVM_STEPS.items():
        original = getattr(llvm, attribute, None)
        if original is not None:
            setattr(llvm, attribute, _timed_call(original, step, measured, _LLVM_STAGE.get(attribute, "llir")))


def _timed_call(function, step: str, measured: StepTimes, stage: str):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            measured.steps.append((measured.stage or stage, step, time.perf_counter() - started))

    return timed


def _time_pass_managers(measured: StepTimes) -> None:
    """Each MLIR pass manager's run: what it takes beyond its passes is the verifier and the
    manager itself (MLIR's "Rest" cannot say: its timer also runs on after the run)."""
    from triton._C.libtriton import ir

    original = ir.pass_manager.run

    @functools.wraps(original)
    def run(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            measured.pass_manager_runs.append((measured.stage or "", time.perf_counter() - started))

    ir.pass_manager.run = run


def _time_cache_writes(measured: StepTimes) -> None:
    """Triton writes every stage's output to its cache between the stages (FileCacheManager.put,
    3.5 to 3.9; put_group writes through put)."""
    from triton.runtime.cache import FileCacheManager  # type: ignore[import-untyped]

    original = FileCacheManager.put
    measured.store = 0.0

    @functools.wraps(original)
    def put(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            measured.store += time.perf_counter() - started

    FileCacheManager.put = put


class _listening:
    """Triton's compilation listener (3.5 on): when it is called, the kernel is compiled and stored;
    where no stage hook measured them, the front end's and the stages' times."""

    def __init__(self, measured: StepTimes):
        self.measured = measured
        self.compilation = getattr(getattr(triton, "knobs", None), "compilation", None)

    def __enter__(self):
        if self.compilation is not None and hasattr(self.compilation, "listener"):
            self.previous = self.compilation.listener
            self.compilation.listener = self._heard
        return self

    def __exit__(self, *exc_info):
        if hasattr(self, "previous"):
            self.compilation.listener = self.previous

    def _heard(self, **event) -> None:
        self.measured.handed_back = time.perf_counter()  # made a duration in timed_compile
        times = event.get("times")
        if times is not None:
            if self.measured.front_end is None:  # no stage hook: Triton's own figure, from make_ir on
                self.measured.front_end = times.ir_initialization / 1e6
            if not self.measured.stages:
                self.measured.stages = [(name, us / 1e6) for name, us in times.lowering_stages]
        if self.previous is not None:
            self.previous(**event)
