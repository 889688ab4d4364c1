"""A `--json` document cut to what an agent asked for, so that an answer fits a context window.

The document keeps its schema: a cut stage is still its text (only some of its lines), a cut list
still a list (only some of its items). What was cut is said in one added field, `page`: for each
cut part its `shown` lines or items, its `total` and, where more follows, a `next_cursor`, which
the same tool takes back (`cursor`) to go on from there. Nothing here reads IR: a stage is cut by
line numbers, by those the document's own line map names for the Python lines asked for. The
document given is left as it is (a kept result's document serves many calls): each cut is a copy.

Every part is cut: a tool's own parts by its own function here (a dump's stages, explain's lines, a
diff's diffs), then every other list, text of several lines and object (`every_part`: explain's
`time.lines`, its findings, a dump's `kernel.source`, `metadata`). An answer asked for without
`max_lines` is held to a size (`fitted`): the parts that weigh most show fewer lines until it fits."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core.errors import UsageError

Document = dict[str, Any]


class Counts:
    """How many lines or items each part shows: `default`, but fewer for the parts in `fewer` (those
    cut further to fit an answer into its size). It notes each part it is asked about, with its length
    and the size of what it showed."""

    def __init__(self, default: int, fewer: Mapping[str, int] | None = None):
        self.default, self.fewer = default, dict(fewer or {})
        self.asked: dict[str, int] = {}  # part -> its length (lines or items), as the last cut met it
        self.sizes: dict[str, int] = {}  # part -> the characters of JSON its page took

    def of(self, part: str, total: int) -> int:
        self.asked[part] = total
        return self.fewer.get(part, self.default)

    def heaviest(self, last: Iterable[str] = ()) -> str | None:
        """The part whose page weighs most, of those that show more than one line or item and weigh
        enough that cutting them saves more than saying so costs; the parts `last` names only once no
        other is left to cut."""
        parts = [p for p in self.asked if self.sizes.get(p, 0) >= _WORTH_CUTTING and self.halved(p) is not None]
        first = [part for part in parts if part not in last] or parts
        return max(first, key=lambda part: self.sizes[part], default=None)

    def grown(self, part: str | None, more: int) -> Counts | None:
        """These counts with `part` showing `more` lines or items more; None where it shows all it has."""
        shown = self.fewer.get(part, self.default) if part is not None else 0
        return (
            Counts(self.default, {**self.fewer, part: shown + more})
            if part in self.asked and shown < self.asked[part]
            else None
        )

    def halved(self, part: str) -> Counts | None:
        """These counts with `part` showing half of what it shows; None where it shows one or none."""
        shown = min(self.fewer.get(part, self.default), self.asked[part])
        return Counts(self.default, {**self.fewer, part: shown // 2}) if shown > 1 else None


Count = int | Counts  # one count for every part, or each part's own
_WORTH_CUTTING = 300  # characters of JSON: a lighter part is left whole to fit an answer (its cursor would cost more)


def _count(count: Count, part: str, total: int) -> int:
    return count.of(part, total) if isinstance(count, Counts) else count


def _shown(count: Count, part: str, shown: Any) -> None:
    if isinstance(count, Counts):
        count.sizes[part] = len(json.dumps(shown))


@functools.lru_cache(maxsize=32)
def _lines(text: str) -> list[str]:
    """A text's lines, split once for the many cuts of one answer (a stage may have 10,000)."""
    return text.splitlines()


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


def cut_text(text: str, part: str, start: int, count: Count, numbers: list[int] | None = None) -> tuple[str, dict]:
    """Up to `count` lines of `text` from line `start` (1-based): all its lines, or only `numbers`
    (the lines a Python line became), with what was shown and the cursor to go on."""
    lines = _lines(text)
    every = numbers if numbers is not None else range(1, len(lines) + 1)
    wanted = [n for n in every if n >= start]
    many = _count(count, part, len(every))
    shown, rest = wanted[:many], wanted[many:]
    info: dict[str, Any] = {"total_lines": len(lines), "next_cursor": f"{part}:{rest[0]}" if rest else None}
    if numbers is None:
        info["shown"] = [shown[0], shown[-1]] if shown else []
    else:
        info["shown_lines"] = shown
    cut = "\n".join(lines[n - 1] for n in shown if 0 < n <= len(lines))
    _shown(count, part, cut)
    return cut, info


def cut_list(items: list, part: str, start: int, count: Count) -> tuple[list, dict]:
    """Up to `count` items from index `start` (0-based), with what was shown and the cursor to go on."""
    shown = items[start : start + _count(count, part, len(items))]
    _shown(count, part, shown)
    more = start + len(shown) < len(items)
    info = {
        "shown": [start, start + len(shown) - 1] if shown else [],
        "total": len(items),
        "next_cursor": f"{part}:{start + len(shown)}" if more else None,
    }
    return shown, info


def paged_list(doc: Document, key: str, count: Count, cursor: str | None, parts: Iterable[str] = ()) -> Document:
    """The document with its list `key` cut to a page (`cursor` naming where, for this key)."""
    at = cursor_at(cursor, [key, *parts])
    start = at[1] if at is not None and at[0] == key else 0
    shown, info = cut_list(doc[key], key, start, count)
    return {**doc, key: shown, "page": {**doc.get("page", {}), key: info}}


def dump(doc: Document, count: Count, cursor: str | None, first_line: int = 1) -> Document:
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


def explain(doc: Document, count: Count, cursor: str | None, lines: tuple[int, int] | None = None) -> Document:
    """An explain document with the per-line costs of the Python lines asked for, a page of them."""
    if lines is not None:
        low, high = lines
        costs = [cost for cost in doc["lines"] if low <= cost["line"] <= high]
        found = [f for f in doc["findings"] if any(low <= n <= high for n in f["lines"])]
        doc = {**doc, "lines": costs, "findings": found}
    return paged_list(doc, "lines", count, cursor)


def diff(doc: Document, count: Count, cursor: str | None) -> Document:
    """A diff document with each stage's unified diff cut to `count` lines."""
    parts = [f"diffs.{i}" for i in range(len(doc["diffs"]))]
    at = cursor_at(cursor, parts)
    page, diffs = {}, []
    for part, entry in zip(parts, doc["diffs"], strict=True):
        start = at[1] if at is not None and at[0] == part else 0
        wanted: Count = count if at is None or at[0] == part else 0  # a cursor goes on with its own diff alone
        unified, page[part] = cut_list(entry["unified"], part, start, wanted)
        if not wanted:
            page[part]["next_cursor"] = f"{part}:0"
        diffs.append({**entry, "unified": unified})
    return {**doc, "diffs": diffs, "page": page}


def passes(doc: Document, count: Count, cursor: str | None, changed_only: bool = False) -> Document:
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
    return {**doc, "passes": shown, **({"changed_only": True} if changed_only else {})}


def grid(doc: Document, count: Count, cursor: str | None) -> Document:
    """A grid document: a page of its programs, and each of their accesses' runs cut to `count` too (a
    program of a 128-row tile reads a run per row: one program was 67 KB), the page saying how many
    runs the longest access has; the command line's --json keeps them all."""
    paged = paged_list(doc, "programs", count, cursor)
    longest = max(
        (len(a.get("runs") or ()) for p in paged["programs"] for k in ("loads", "stores") for a in p[k]), default=0
    )
    if not longest:
        return paged
    keep = _count(count, "runs", longest)
    programs = [
        {**p, **{k: [{**a, "runs": (a.get("runs") or [])[:keep]} for a in p[k]] for k in ("loads", "stores")}}
        for p in paged["programs"]
    ]
    _shown(count, "runs", [a["runs"] for p in programs for k in ("loads", "stores") for a in p[k]])
    said = {
        "shown": [0, min(keep, longest) - 1],
        "total": longest,  # the longest access's
        "next_cursor": None,
        "how": "each access's first runs; max_lines sets how many, the command line's --json has all",
    }
    return {**paged, "programs": programs, "page": {**paged["page"], "runs": said}}


def mapping(doc: Document, key: str, count: Count, cursor: str | None) -> Document:
    """A document whose object `key` (a drawing's owners of each element) is cut to `count` entries."""
    at = cursor_at(cursor, [key])
    items, info = cut_list(list(doc[key].items()), key, at[1] if at else 0, count)
    return {**doc, key: dict(items), "page": {**doc.get("page", {}), key: info}}


Cut = Callable[[Document, Count, "str | None"], Document]  # a tool's own cut: the document, counts, cursor
_MANY_ENTRIES = 16  # an object of more entries is cut by its entries; a smaller one, each list or text it holds
_DEPTH = 3  # objects within objects looked into for parts
_ENVELOPE = ("schema", "tool", "kind", "page", "selected_lines")  # never cut


def every_part(doc: Document, count: Count, cursor: str | None = None) -> Document:
    """The document with every part that no cut has paged yet cut too: each list (by items), text of
    several lines (by lines) and object (by entries) at its top, or inside its smaller objects that
    hold such parts (`time.lines`, `kernel.source`, `divergence.first.diff`). The cursor goes on with
    its part."""
    found = other_parts(doc)
    at = cursor_at(cursor, found) if cursor else None
    cut, page = {**doc}, {**doc.get("page", {})}
    for part, path in found.items():
        value = _at(doc, path)
        start = at[1] if at is not None and at[0] == part else 0
        if isinstance(value, str):
            value, page[part] = cut_text(value, part, max(start, 1), count)
        elif isinstance(value, dict):
            items, page[part] = cut_list(list(value.items()), part, start, count)
            value = dict(items)
        else:
            value, page[part] = cut_list(value, part, start, count)
        cut = _with(cut, path, value)
    return {**cut, "page": page} if page else cut


def other_parts(doc: Document) -> dict[str, tuple[str, ...]]:
    """The parts `every_part` cuts, by name (`key`, `key.inner`...), each with its path."""
    paged = {name.split(".")[0] for name in doc.get("page", {})}
    found: dict[str, tuple[str, ...]] = {}
    for key, value in doc.items():
        if key not in _ENVELOPE and key not in paged:
            _collect(value, (key,), found)
    return found


def _collect(value: Any, path: tuple[str, ...], found: dict[str, tuple[str, ...]]) -> None:
    """`value` as a part, or, an object of few entries holding parts, the parts inside it."""
    if not _container(value) or not value:
        return
    holds = isinstance(value, dict) and len(value) <= _MANY_ENTRIES and any(_container(v) for v in value.values())
    if holds and len(path) < _DEPTH:
        for inner, item in value.items():
            _collect(item, (*path, inner), found)
    else:
        found[".".join(path)] = path


def _at(doc: Document, path: tuple[str, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _with(doc: Document, path: tuple[str, ...], value: Any) -> Document:
    """A copy of `doc` with `value` at `path` (each object on the way copied, the rest shared)."""
    head, *rest = path
    return {**doc, head: _with(doc[head], tuple(rest), value) if rest else value}


def _container(value: Any) -> bool:
    return isinstance(value, (list, dict)) or (isinstance(value, str) and "\n" in value)


def own_parts(key: str | None = None) -> Cut:
    """A tool's own cut of its one list `key` (a page of it, `paged_list`); with none, a cut that
    pages nothing itself and takes no cursor but those of the parts `every_part` cuts."""

    def cut(doc: Document, count: Count, cursor: str | None) -> Document:
        if key is not None and isinstance(doc.get(key), list):
            return paged_list(doc, key, count, cursor)
        if cursor:
            cursor_at(cursor, [key] if key else [])  # not a cursor this tool gave: said so
        return doc

    return cut


def cut_whole(doc: Document, own: Cut, count: Count, cursor: str | None) -> Document:
    """Every part of the document cut: the tool's own parts by `own`, then every other (`every_part`);
    the cursor goes to whichever names its part."""
    first = own(doc, count, None)
    if cursor and cursor.rpartition(":")[0] in other_parts(first):
        return every_part(first, count, cursor)
    return every_part(own(doc, count, cursor) if cursor else first, count)


def fitted(
    doc: Document,
    own: Cut,
    count: int | None,
    default: int,
    cursor: str | None,
    size: Callable[[Document], int],
    most: int,
    last: tuple[str, ...] = (),
) -> Document:
    """The document cut to `count` lines or items per part; with no count asked for, to `default`,
    and then the parts that weigh most halved, one at a time (those `last` names after every other),
    until `size` of the answer is at most `most` (or every part shows one line or item)."""
    if count is not None:
        return cut_whole(doc, own, count, cursor)
    counts = Counts(default)
    cut = cut_whole(doc, own, counts, cursor)
    going_on = cursor.rpartition(":")[0] if cursor else None
    if going_on is not None:  # a later page carries the part it goes on with, not the first page's again
        counts = Counts(default, {part: 0 for part in counts.asked if part != going_on})
        cut = cut_whole(doc, own, counts, cursor)
    while size(cut) > most and (part := counts.heaviest(last)) is not None:
        counts = counts.halved(part) or counts
        cut = cut_whole(doc, own, counts, cursor)
    step = counts.fewer.get(going_on, default) if going_on is not None else 0
    while step >= 1 and (more := counts.grown(going_on, step)) is not None:  # filled up to `most`
        tried = cut_whole(doc, own, more, cursor)
        if size(tried) > most:
            step //= 2
            continue
        counts, cut = more, tried
    return cut
