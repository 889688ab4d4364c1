"""A `--json` document cut to what an agent asked for, so that an answer fits a context window.

The document keeps its schema: a cut stage is still its text (only some of its lines), a cut list
still a list (only some of its items). What was cut is said in one added field, `page`: for each
cut part its `shown` lines or items, its `total` and, where more follows, a `next_cursor`, which
the same tool takes back (`cursor`) to go on from there. Nothing here reads IR: a stage is cut by
line numbers, by those the document's own line map names for the Python lines asked for. The
document given is left as it is (a kept result's document serves many calls): each cut is a copy."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.errors import UsageError

Document = dict[str, Any]


def cursor_at(cursor: str | None, parts: Iterable[str]) -> tuple[str, int] | None:
    """A cursor ("PART:N", as a `next_cursor` gives it) as (part, N); None for none."""
    if not cursor:
        return None
    part, _, number = cursor.rpartition(":")
    known = list(parts)
    if part not in known or not number.isdigit():
        raise UsageError(
            f"cursor '{cursor}' is not one this tool gave: pass back a next_cursor unchanged",
            hint=f"cursors here look like {known[0] if known else 'lines'}:41",
        )
    return part, int(number)


def cut_text(text: str, part: str, start: int, count: int, numbers: list[int] | None = None) -> tuple[str, dict]:
    """Up to `count` lines of `text` from line `start` (1-based): all its lines, or only `numbers`
    (the lines a Python line became), with what was shown and the cursor to go on."""
    lines = text.splitlines()
    wanted = [n for n in (numbers if numbers is not None else range(1, len(lines) + 1)) if n >= start]
    shown = wanted[:count]
    rest = wanted[count:]
    info: dict[str, Any] = {"total_lines": len(lines), "next_cursor": f"{part}:{rest[0]}" if rest else None}
    if numbers is None:
        info["shown"] = [shown[0], shown[-1]] if shown else []
    else:
        info["shown_lines"] = shown
    return "\n".join(lines[n - 1] for n in shown if 0 < n <= len(lines)), info


def cut_list(items: list, part: str, start: int, count: int) -> tuple[list, dict]:
    """Up to `count` items from index `start` (0-based), with what was shown and the cursor to go on."""
    shown = items[start : start + count]
    more = start + len(shown) < len(items)
    info = {
        "shown": [start, start + len(shown) - 1] if shown else [],
        "total": len(items),
        "next_cursor": f"{part}:{start + len(shown)}" if more else None,
    }
    return shown, info


def paged_list(doc: Document, key: str, count: int, cursor: str | None, parts: Iterable[str] = ()) -> Document:
    """The document with its list `key` cut to a page (`cursor` naming where, for this key)."""
    at = cursor_at(cursor, [key, *parts])
    start = at[1] if at is not None and at[0] == key else 0
    shown, info = cut_list(doc[key], key, start, count)
    return {**doc, key: shown, "page": {**doc.get("page", {}), key: info}}


def dump(doc: Document, count: int, cursor: str | None, first_line: int = 1) -> Document:
    """A dump document with each stage cut to `count` lines (from `first_line`, or where the cursor
    says, that stage alone); with Python lines selected (the document's `selected_lines`), each stage
    cut to the lines they became. The line map is kept only for selected lines."""
    at = cursor_at(cursor, doc["stages"])
    stages = {at[0]: doc["stages"][at[0]]} if at is not None else doc["stages"]
    first_line = at[1] if at is not None else first_line
    selected = "selected_lines" in doc
    cut: dict[str, str] = {}
    page: dict[str, Any] = {"stages": {}}
    for name, text in stages.items():
        numbers = _mapped(doc["line_map"], name) if selected else None
        cut[name], page["stages"][name] = cut_text(text, name, first_line, count, numbers)
    if selected:
        return {**doc, "stages": cut, "page": page}
    page["line_map"] = {"shown": [], "total": len(doc["line_map"]), "how": "give line or lines"}
    return {**doc, "stages": cut, "line_map": [], "page": page}


def _mapped(line_map: list[dict], stage: str) -> list[int]:
    """The lines of a stage that the line map's (selected) Python lines became, in order."""
    return sorted({n for entry in line_map for n in entry["stages"].get(stage, ())})


def explain(doc: Document, lines: tuple[int, int] | None, count: int, cursor: str | None) -> Document:
    """An explain document with the per-line costs of the Python lines asked for, a page of them."""
    if lines is not None:
        low, high = lines
        costs = [cost for cost in doc["lines"] if low <= cost["line"] <= high]
        found = [f for f in doc["findings"] if any(low <= n <= high for n in f["lines"])]
        doc = {**doc, "lines": costs, "findings": found}
    return paged_list(doc, "lines", count, cursor)


def diff(doc: Document, count: int, cursor: str | None) -> Document:
    """A diff document with each stage's unified diff cut to `count` lines."""
    parts = [f"diffs.{i}" for i in range(len(doc["diffs"]))]
    at = cursor_at(cursor, parts)
    page, diffs = {}, []
    for part, entry in zip(parts, doc["diffs"], strict=True):
        start = at[1] if at is not None and at[0] == part else 0
        wanted = count if at is None or at[0] == part else 0  # a cursor goes on with its own diff alone
        unified, page[part] = cut_list(entry["unified"], part, start, wanted)
        if not wanted:
            page[part]["next_cursor"] = f"{part}:0"
        diffs.append({**entry, "unified": unified})
    return {**doc, "diffs": diffs, "page": page}


def passes(doc: Document, changed_only: bool, count: int, cursor: str | None) -> Document:
    """A passes document: a page of the table (only the passes that changed the IR, if asked); with
    `show`, only the passes it names, each with its diff cut to `count` lines."""
    rows = [p for p in doc["passes"] if p["changed"] or not changed_only]
    if any("diff" in p for p in rows):  # `show`: the passes asked for, with what each changed
        rows = [p for p in rows if "diff" in p]
    diffs = [f"diff.{p['index']}" for p in rows if "diff" in p]
    doc = paged_list({**doc, "passes": rows}, "passes", count, cursor, diffs)
    at = cursor_at(cursor, ["passes", *diffs])
    shown = []
    for entry in doc["passes"]:
        part = f"diff.{entry['index']}"
        if "diff" in entry:
            start = at[1] if at is not None and at[0] == part else 0
            entry = {**entry}
            entry["diff"], doc["page"][part] = cut_list(entry["diff"], part, start, count)
        shown.append(entry)
    return {**doc, "passes": shown}


def mapping(doc: Document, key: str, count: int, cursor: str | None) -> Document:
    """A document whose object `key` (a drawing's owners of each element) is cut to `count` entries."""
    at = cursor_at(cursor, [key])
    items, info = cut_list(list(doc[key].items()), key, at[1] if at else 0, count)
    return {**doc, key: dict(items), "page": {**doc.get("page", {}), key: info}}
