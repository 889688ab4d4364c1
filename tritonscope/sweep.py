"""Variant sweeps: --vary axes expanded into requests, each compiled in its own worker process.

A worker runs the whole pipeline (load, specialize, compile) for one request, so a
heuristic or compiler that raises, aborts or segfaults, or runs past the timeout, fails
that variant alone. Results come back in variant order, whatever the number of workers.
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import wait

from .errors import TritonscopeError, UsageError
from .model import OPTION_NAMES, Compilation, KernelSpec, ParamKind
from .specialize import VariantRequest


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple[str, ...]


@dataclass
class Outcome:
    label: dict[str, str]  # the varied names and this variant's values
    request: VariantRequest
    compilation: Compilation | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.compilation is not None

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.label.items())


def parse_axes(items: tuple[str, ...]) -> list[Axis]:
    axes = []
    for item in items:
        name, sep, values = item.partition("=")
        parts = tuple(v.strip() for v in values.split(",") if v.strip())
        if not sep or not name.strip() or not parts:
            raise UsageError(f"--vary expects NAME=V1,V2,..., got '{item}'")
        if any(a.name == name.strip() for a in axes):
            raise UsageError(f"--vary names {name.strip()} twice")
        axes.append(Axis(name.strip(), parts))
    return axes


def expand(base: VariantRequest, axes: list[Axis], spec: KernelSpec, configs: bool) -> list[Outcome]:
    """Every combination of the axes (and of the autotune configs with --configs), as requests."""
    if configs:
        if not spec.autotune_configs:
            raise UsageError(f"--configs: {spec.name} has no @triton.autotune configs")
        axes = [Axis("config", tuple(str(c.index) for c in spec.autotune_configs)), *axes]
    kinds = {p.name: p.kind for p in spec.params}
    for axis in axes:
        if axis.name not in kinds and axis.name not in (*OPTION_NAMES, "target", "config"):
            names = ", ".join([*kinds, *OPTION_NAMES, "target"])
            raise UsageError(f"--vary {axis.name}: not a parameter of {spec.name} nor an option. Can vary: {names}")
    variants = []
    for values in itertools.product(*(axis.values for axis in axes)):
        request = base
        for axis, value in zip(axes, values, strict=True):
            request = _with(request, axis.name, value, kinds)
        variants.append(Outcome(dict(zip((a.name for a in axes), values, strict=True)), request))
    if len(variants) < 2:
        raise UsageError("a diff needs at least two variants: give --vary NAME=V1,V2 (or --configs)")
    return variants


def _with(request: VariantRequest, name: str, value: str, kinds: dict[str, ParamKind]) -> VariantRequest:
    if name == "target":
        return replace(request, target=value)
    if name in (*OPTION_NAMES, "config"):
        try:
            return replace(request, **{name: int(value)})
        except ValueError:
            raise UsageError(f"--vary {name}: '{value}' is not an integer") from None
    if kinds[name] is ParamKind.CONSTEXPR:
        return replace(request, constexprs=(*request.constexprs, f"{name}={value}"))
    return replace(request, args=(*request.args, f"{name}={value}"))


def run(
    variants: list[Outcome], jobs: int, timeout: float, on_done: Callable[[Outcome], None] | None = None
) -> list[Outcome]:
    """Compiles every variant in worker processes, `jobs` at a time; fills in each Outcome."""
    forking = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if forking else "spawn")
    if forking:
        from .compile import prepare_for_workers
        from .targets import resolve

        prepare_for_workers([resolve(t)[0] for t in {v.request.target for v in variants}])
    pending = list(variants)
    running: dict = {}  # receiving end of a worker's pipe -> (process, outcome, start time)
    while pending or running:
        while pending and len(running) < max(jobs, 1):
            outcome = pending.pop(0)
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_work, args=(outcome.request, sender), daemon=True)
            process.start()
            sender.close()
            running[receiver] = (process, outcome, time.monotonic())
        ready = wait(list(running), timeout=0.2)
        for receiver in ready:
            process, outcome, _ = running.pop(receiver)
            _collect(receiver, process, outcome)
            if on_done:
                on_done(outcome)
        for receiver, (process, outcome, started) in list(running.items()):
            if time.monotonic() - started > timeout:
                process.kill()
                process.join()
                running.pop(receiver)
                receiver.close()
                outcome.error = f"timed out after {timeout:g} s"
                if on_done:
                    on_done(outcome)
    return variants


def _collect(receiver, process, outcome: Outcome) -> None:
    try:
        status, payload = receiver.recv()
    except (EOFError, OSError):
        process.join()
        outcome.error = _crash_reason(process.exitcode)
    else:
        process.join()
        if status == "ok":
            outcome.compilation = payload
        else:
            outcome.error = payload
    finally:
        receiver.close()


def _crash_reason(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the compiler process crashed ({name})"
    return f"the compiler process exited with code {exitcode} without a result"


def _work(request: VariantRequest, sender) -> None:
    """In the worker: the whole pipeline for one request; the result or the error goes back."""
    import faulthandler

    from .pipeline import compile_request

    faulthandler.disable()  # a crash is reported by the parent, as one line, not as a stack dump

    try:
        result = ("ok", compile_request(request))
    except TritonscopeError as exc:
        result = ("error", exc.message + (f" ({exc.hint})" if exc.hint else ""))
    except BaseException as exc:  # noqa: BLE001 - report anything, the parent carries on
        result = ("error", f"{type(exc).__name__}: {exc}")
    sender.send(result)
    sender.close()
