"""A capture's logs, read back: the traced program wrote them (capture_hook/, triton_api/capture.py,
the simulated GPU; their names are capture_hook/tritonscope_contract.py's). Each line is checked
against its record's shape (core/schemas.py); a line that is not one is named, never fatal.
"""

from __future__ import annotations

from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..core import fileio, schemas


def compile_records(folder: Path) -> tuple[dict[str, dict], list[str]]:
    """The capture's records by compile hash, and a line per record that could not be read."""
    records: dict[str, dict] = {}
    lines, problems = _log_records(folder / contract.CAPTURE_LOG, schemas.COMPILE_RECORD, "compile record")
    for record in lines:
        records[record["hash"]] = record
    return records, problems


def _log_records(log: Path, shape: dict, what: str) -> tuple[list[dict], list[str]]:
    """The records of a capture's log that have the shape they should, and a line naming the file,
    line and field of each that has not (a line cut short when the traced program was killed, say)."""
    if not log.exists() and not log.is_symlink():
        return [], []
    try:
        text = fileio.read_input(log).decode(errors="replace")
    except OSError as exc:
        return [], [f"{log}: not readable ({exc.strerror or exc}), skipped"]
    records, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = schemas.parse(line)
            wrong = schemas.problem(record, shape)
        except schemas.Invalid as exc:
            wrong = str(exc)
        if wrong is None:
            records.append(record)
        else:
            problems.append(f"{log}:{number}: not a {what} ({wrong}), skipped")
    return records, problems


def launch_records(folder: Path) -> tuple[dict[str, list[dict]], list[str]]:
    """The capture's recorded launches by compile hash, and a line per record that could not be read."""
    launches: dict[str, list[dict]] = {}
    records, problems = _log_records(folder / contract.LAUNCH_LOG, schemas.LAUNCH_RECORD, "launch record")
    for record in records:
        launches.setdefault(record["hash"], []).append(record)
    return launches, problems


def simulation_records(folder: Path) -> tuple[tuple[dict, ...], dict | None]:
    """(each autotune choice a simulated run made, the simulated GPU), read from a capture made
    with trace --target; nothing for other captures and caches. Unreadable lines are skipped."""
    choices = []
    try:  # only a regular file is read: a named pipe there would never end the read
        lines = fileio.read_input(folder / contract.AUTOTUNE_LOG).decode(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            record = schemas.parse(line)
        except schemas.Invalid:
            continue
        if isinstance(record, dict) and isinstance(record.get("kernel"), str):
            choices.append(record)
    device = _json_file(folder / contract.SIMULATED_RECORD)
    return tuple(choices), device if isinstance(device, dict) else None


def _json_file(path: Path):
    """A small JSON file of a capture, or None when it is missing, not a regular file, or not JSON."""
    try:
        return schemas.parse(fileio.read_input_text(path))
    except (OSError, UnicodeDecodeError, schemas.Invalid):
        return None


def answered_reads(folder: Path) -> tuple[str, ...]:
    """Each value read answered (--values), as "FILE:LINE: what was asked" (reads.jsonl)."""
    try:
        lines = fileio.read_input(folder / contract.READ_LOG).decode(errors="replace").splitlines()
    except OSError:
        return ()
    found = []
    for line in lines:
        try:
            record = schemas.parse(line)
        except schemas.Invalid:
            continue
        if isinstance(record, dict):
            found.append(f"{record.get('where')}: {record.get('asked')}")
    return tuple(found)


def stop_record(folder: Path) -> str | None:
    """The line saying where a simulated run stopped the program, or None if it was not stopped."""
    record = _json_file(folder / contract.STOP_RECORD)
    if not isinstance(record, dict):
        return None
    reason = record.get("reason")
    said = f"{record.get('where')}: the program asked for {record.get('asked')}"
    return f"{said}; {reason}" if isinstance(reason, str) else said
