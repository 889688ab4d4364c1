"""`fit DIR/` and `check DIR/ --fit`: a capture's kernels compiled again for other targets.

Each compile of a kernel in the capture (an autotuned kernel's every candidate, a plain kernel's one
compile) is a row, rebuilt from its record as it was specialized (captures/rebuild.py) and compiled for each
target by app/fit.py. `check --fit` compiles only what the program launched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis.specialization import config_fields
from ..captures.entries import CacheEntry
from ..captures.folder import Capture, open_capture
from ..captures.rebuild import entry_request
from ..core.errors import KernelFileError, UsageError
from ..core.model import Budget, VariantRequest
from ..core.values import format_value
from ..isolate import pool
from ..results.fit import NOT_COMPILED, Cell, ConfigRow, FitResult, KernelFit
from ..triton_api import version
from .fit import Plan, matrices
from .fit_rank import Ranking


def fit_capture(
    folder: Path,
    kernel: str | None,
    targets: tuple[str, ...],
    budgets: tuple[Budget, ...],
    jobs: int,
    timeout: float,
    on_done: Callable[[int, int], None] | None = None,
    ranking: Ranking | None = None,
) -> FitResult:
    """The matrices of a capture's kernels (or of the one named): each compile of a kernel is a row;
    with `ranking`, each estimated for its own recorded launch (app/fit_rank.py)."""
    capture = open_capture(folder)
    plans, skipped = plan_capture(capture, kernel)
    with pool(jobs=jobs, timeout=timeout) as workers:
        kernels = matrices(plans, targets, budgets, workers, on_done, ranking)
    return FitResult(kernels, tuple(b.text for b in budgets), version.installed(), skipped, ranking is not None)


def default_targets(request: VariantRequest) -> tuple[str, ...]:
    """fit's targets where none is given: the eight defaults, and a capture's own simulated GPU where they
    lack it (a run traced for the H200 was ranked on eight GPUs, its own not among them: h20a)."""
    from ..captures.logs import simulation_records
    from ..core.source import CaptureFolder
    from .fit import DEFAULT_TARGETS

    if not isinstance(request.source, CaptureFolder):
        return DEFAULT_TARGETS
    own = (simulation_records(request.source.folder)[1] or {}).get("target")
    return DEFAULT_TARGETS + ((own,) if isinstance(own, str) and own not in DEFAULT_TARGETS else ())


def plan_capture(capture: Capture, kernel: str | None = None) -> tuple[list[Plan], tuple[str, ...]]:
    """A plan per kernel of the capture (same name and source file) and specialization, and a note for
    each kernel whose source file is not there to compile from."""
    if not capture.entries:
        raise UsageError(f"{capture.folder} is a capture of a program that compiled no Triton kernel: nothing to fit")
    groups: dict[tuple[str, str, tuple], list[tuple[CacheEntry, VariantRequest]]] = {}
    skipped = []
    entries = [e for e in capture.entries if kernel is None or e.name == kernel]
    order = _candidates(capture)
    if kernel is not None and not entries:
        names = ", ".join(sorted({e.name for e in capture.entries}))
        raise UsageError(f"-k {kernel}: no kernel of that name in {capture.folder}. Kernels there: {names}")
    for entry in entries:
        try:
            request = entry_request(entry, f"{capture.folder}/:{entry.name}")
        except KernelFileError as exc:
            skipped.append(f"{entry.name}: not compiled again: {exc.message}")
            continue
        # a matrix per specialization (its arguments as launched): its rows are the configs that compete
        # for one launch; a launch at another size or dtype is a matrix of its own, not a row to rank
        # (a constexpr the autotuner's configs do not set is a size too: liger's dyt at N=4096 and 1024, h20a)
        fields = config_fields(entry.specialization or {}) | {k for c in order.get(entry.name, []) for k in c}
        sized = tuple((n, format_value(v)) for n, v in request.constexprs if fields and n not in fields)
        arguments = tuple((n, format_value(v)) for n, v in request.args) + sized
        groups.setdefault((entry.name, request.file, arguments), []).append((entry, request))
    ran = launched(capture)
    plans = [
        _plan(capture.folder, name, _in_order(compiles, order.get(name, [])), ran, arguments)
        for (name, _, arguments), compiles in groups.items()
    ]
    return plans, tuple(dict.fromkeys(skipped))


def _candidates(capture: Capture) -> dict[str, list[dict[str, str]]]:
    """Each autotuned kernel's candidates in its autotuner's order (autotune.jsonl, trace --target), so
    that a row's number is the `chosen_index` the capture gives the one launched."""
    from ..captures.logs import simulation_records

    found: dict[str, list[dict[str, str]]] = {}
    for record in simulation_records(capture.folder)[0]:
        known = found.setdefault(record["kernel"], [])
        known += [c for c in map(_settings, map(str, record.get("candidates", []))) if c not in known]
    return found


def _in_order(
    compiles: list[tuple[CacheEntry, VariantRequest]], candidates: list[dict[str, str]]
) -> list[tuple[CacheEntry, VariantRequest]]:
    """The compiles in their candidates' order (those no candidate names after them, as they came)."""

    def place(pair: tuple[CacheEntry, VariantRequest]) -> int:
        values = _values(pair[1])
        return next((i for i, config in enumerate(candidates) if _matches(values, config)), len(candidates))

    return sorted(compiles, key=place)


def _plan(
    folder: Path, name: str, compiles: list[tuple[CacheEntry, VariantRequest]], ran: set[str], arguments: tuple
) -> Plan:
    """One kernel's compiles as rows: told apart by the constexprs and options that differ among them."""
    unique: dict[VariantRequest, bool] = {}  # the request (any target) -> launched
    recorded: dict[VariantRequest, tuple[dict, ...]] = {}  # its launches, for --rank's grid
    for entry, request in compiles:
        key = replace(request, target="auto")
        unique[key] = unique.get(key, False) or entry.metadata["hash"] in ran
        recorded[key] = recorded.get(key) or tuple(entry.launches[:1])
    values = [_values(r) for r in unique]
    differing = [n for n in values[0] if len({format_value(v.get(n)) for v in values}) > 1]
    shown = differing or [n for n in ("num_warps", "num_stages") if n in values[0]]
    rows = tuple(
        ConfigRow({n: format_value(v[n]) for n in shown if n in v}, {n: v[n] for n in shown if n in v}, None, launched)
        for v, launched in zip(values, unique.values(), strict=True)
    )
    specialization = " ".join(f"{k}={v}" for k, v in arguments)  # its arguments, and its sizes' constexprs
    return Plan(name, f"{folder}/:{name}", specialization, rows, tuple(unique), tuple(recorded.values()))


def _values(request: VariantRequest) -> dict[str, Any]:
    options = {"num_warps": request.num_warps, "num_stages": request.num_stages}
    return {**dict(request.constexprs), **{k: v for k, v in options.items() if v is not None}}


def launched(capture: Capture) -> set[str]:
    """The hashes of the compiles the program launched: those with a recorded launch (every compile,
    where the capture recorded none). An autotuned kernel's candidates are each launched to be timed:
    where the launches say which were (`timing`), a compile launched only so does not count; where
    autotune.jsonl (trace --target) names the one it kept, that one alone counts."""
    from ..captures.logs import simulation_records

    recorded = any(e.launches for e in capture.entries)
    told = any("timing" in launch for e in capture.entries for launch in e.launches)
    chosen = {r["kernel"]: _settings(str(r.get("chosen", ""))) for r in simulation_records(capture.folder)[0]}
    found = set()
    for entry in capture.entries:
        if recorded and not entry.launches:
            continue
        if told and all(launch.get("timing") for launch in entry.launches):
            continue
        if entry.name in chosen and not _is_chosen(capture, entry, chosen[entry.name]):
            continue
        found.add(entry.metadata["hash"])
    return found


def _settings(text: str) -> dict[str, str]:
    """A config as its autotuner prints it (`BLOCK: 128, num_warps: 4, ...`), by setting."""
    pairs = (item.partition(": ") for item in text.split(", "))
    return {name.strip(): value.strip() for name, sep, value in pairs if sep}


def _is_chosen(capture: Capture, entry: CacheEntry, chosen: dict[str, str]) -> bool:
    try:
        values = _values(entry_request(entry, f"{capture.folder}/:{entry.name}"))
    except KernelFileError:
        return True  # cannot be told apart from the others: held to the limits as launched
    return _matches(values, chosen)


def _matches(values: dict[str, Any], settings: dict[str, str]) -> bool:
    """Whether a compile's values are those of a config as its autotuner prints it."""
    return all(str(values[name]) == value for name, value in settings.items() if name in values)


def launched_fits(
    capture: Capture, targets: tuple[str, ...], jobs: int, timeout: float
) -> tuple[dict[str, list[tuple[str, Cell]]], tuple[str, ...]]:
    """check --fit: each launched compile compiled for each target, by its hash: [(target, Cell)]; and
    a note for each one with no source file to rebuild it from."""
    plans, hashes, notes = [], [], []
    chosen = launched(capture)
    for entry in capture.entries:
        if entry.metadata["hash"] not in chosen:
            continue
        try:
            request = entry_request(entry, f"{capture.folder}/:{entry.name}")
        except KernelFileError as exc:
            notes.append(f"--fit: {entry.name} not compiled again: {exc.message}")
            continue
        plans.append(Plan(entry.name, request.file, "", (ConfigRow({}, {}),), (request,)))
        hashes.append(entry.metadata["hash"])
    with pool(jobs=jobs, timeout=timeout) as workers:
        found: tuple[KernelFit, ...] = matrices(plans, targets, (), workers)
    if any(cell.verdict == NOT_COMPILED for kernel in found for cell in kernel.cells[0]):
        raise KeyboardInterrupt  # Ctrl-C: a gate is not judged on the compiles that ended before it
    fits = {h: list(zip(targets, k.cells[0], strict=True)) for h, k in zip(hashes, found, strict=True)}
    return fits, tuple(notes)
