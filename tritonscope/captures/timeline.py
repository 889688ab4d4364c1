"""A capture's records in the order the program made them: every compile (a hash compiled twice
kept twice), every recorded launch, the marks the program passed and torch.compile's frame compiles.
What `recompiles` and check's `compiles_after_MARK` budget read; only the logs are needed (a capture
whose cache/ was left out still answers), Triton's metadata read where a record lacks its options.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..core import fileio, schemas
from ..core.errors import UsageError
from .logs import compile_log, launch_log, mark_log, simulation_records, torch_compile_log

_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclass(frozen=True)
class Timeline:
    folder: Path
    compiles: tuple[dict, ...]  # compile records (kernels.jsonl), in order, each with its options
    launches: tuple[dict, ...]  # launch records (launches.jsonl), in order
    marks: tuple[dict, ...]  # marks.jsonl
    torch_compiles: tuple[dict, ...]  # torch_compiles.jsonl
    autotune: tuple[dict, ...]  # autotune.jsonl (trace --target): each autotuned kernel's candidates
    problems: tuple[str, ...]  # lines of the logs that could not be read
    eager_calls: tuple[dict, ...] = ()  # calls past torch._dynamo's recompile_limit: not compiled, run eagerly

    @property
    def timed(self) -> bool:
        """Whether every record carries its time (captures made before tritonscope recorded it do not)."""
        return all(isinstance(r.get("time"), (int, float)) for r in self.compiles)

    def torch_compile_before(self, when: float) -> dict | None:
        """The last torch.compile frame compile (in the log's order) that began at or before WHEN: the
        one a generated kernel compiled at WHEN belongs to (Inductor may compile in its workers)."""
        times, last = self._torch_compile_times
        at = bisect.bisect_right(times, when)
        return self.torch_compiles[last[at - 1]] if at else None

    @cached_property
    def _torch_compile_times(self) -> tuple[list[float], list[int]]:
        """The frame compiles' times, sorted, and beside each the latest log place among those so far:
        a lookup is a bisection, not a scan (a long generate()'s thousands of records, each looked up)."""
        order = sorted(range(len(self.torch_compiles)), key=lambda i: (self.torch_compiles[i]["time"], i))
        latest, running = [], -1
        for index in order:
            running = max(running, index)
            latest.append(running)
        return [self.torch_compiles[i]["time"] for i in order], latest

    def launches_by_hash(self) -> dict[str, list[dict]]:
        found: dict[str, list[dict]] = {}
        for launch in self.launches:
            found.setdefault(str(launch["hash"]), []).append(launch)
        return found

    def mark(self, name: str) -> dict | None:
        """The first time the program passed the mark NAME."""
        return next((m for m in self.marks if m["mark"] == name), None)

    def passed(self, name: str) -> dict:
        """mark(NAME), or the error naming the marks the program did pass (the nearest as the hint)."""
        import difflib

        found = self.mark(name)
        if found is not None:
            return found
        names = sorted({m["mark"] for m in self.marks})
        unread = [p for p in self.problems if f"{contract.MARK_LOG}:" in p]
        if unread:  # the mark may be the line that cannot be read: not "it marked nothing"
            raise UsageError(
                f"{self.folder}: no mark named '{name}' can be read, and {unread[0].removesuffix(', skipped')}: "
                "it may be that line",
                hint="make the capture again with `tritonscope trace -o DIR -- python prog.py`",
            )
        where = f"{self.folder}: the program never passed a mark named '{name}'"
        if not names:
            how = f'call tritonscope.mark("{name}") where the warmup ends (or set ${contract.ENV_MARK}={name} there)'
            raise UsageError(f"{where} (it marked nothing)", hint=how)
        by_lower = {n.lower(): n for n in names}
        near = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.5)
        hint = f"did you mean '{by_lower[near[0]]}'?" if near else "give one of its marks"
        raise UsageError(f"{where} (its marks: {', '.join(names)})", hint=hint)

    def marks_before(self, record: dict) -> tuple[str, ...]:
        """The marks the program had passed when RECORD was written (by the time both carry)."""
        when = record.get("time")
        if not isinstance(when, (int, float)):
            return ()
        return tuple(dict.fromkeys(m["mark"] for m in self.marks if m["time"] <= when))

    def candidates(self, kernel: str) -> tuple[str, ...]:
        """The autotuner's candidates a simulated run logged for KERNEL ("BLOCK: 512, num_warps: 4, ...")."""
        return tuple(c for r in self.autotune if r.get("kernel") == kernel for c in r.get("candidates") or ())


def read_timeline(folder: Path) -> Timeline:
    """The capture's logs, in order; a folder that is not a capture made by `trace` is refused."""
    if folder.is_file():  # the program itself (h20b: "no such directory")
        raise UsageError(
            f"{folder}: a file, where a capture of a run is read",
            hint=f"trace the program first: tritonscope trace --target h100 -o run -- python {folder}; then give run/",
        )
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such directory", hint="give a folder made by `tritonscope trace -o DIR`")
    log = folder / contract.CAPTURE_LOG
    if log.exists() and not log.is_file():  # a folder, a named pipe: not what trace writes
        raise UsageError(
            f"{folder}: a damaged capture: its {contract.CAPTURE_LOG} is not a regular file",
            hint="make the capture again with `tritonscope trace -o DIR -- python prog.py`",
        )
    if not log.is_file():
        raise UsageError(
            f"{folder}: not a capture made by `tritonscope trace` (it has no {contract.CAPTURE_LOG}): a Triton "
            "cache alone does not say in which order, or from which line, its kernels were compiled",
            hint="make one with `tritonscope trace -o DIR -- python prog.py`",
        )
    compiles, problems = compile_log(folder)
    launches, more = launch_log(folder)
    marks, marks_problems = mark_log(folder)
    torch_compiles, torch_problems = torch_compile_log(folder)
    choices, _ = simulation_records(folder)
    records = tuple(_with_options(folder, r) for r in compiles)
    every = (*problems, *more, *marks_problems, *torch_problems)
    compiled = tuple(r for r in torch_compiles if "recompile_limit" not in r)
    eager = tuple(r for r in torch_compiles if "recompile_limit" in r)
    return Timeline(folder, records, tuple(launches), tuple(marks), compiled, choices, every, eager)


def _with_options(folder: Path, record: dict) -> dict:
    """A record with its launch options: its own (captures from now on), else its cache entry's metadata."""
    if record.get("options") or not record.get("name"):
        return record
    meta = folder / contract.CACHE_FOLDER / str(record["hash"]) / f"{record['name']}.json"
    try:
        metadata = schemas.parse(fileio.read_input_text(meta))
    except (OSError, UnicodeDecodeError, schemas.Invalid):
        return record
    options = {k: metadata[k] for k in _OPTIONS if isinstance(metadata, dict) and isinstance(metadata.get(k), int)}
    return {**record, "options": options}
