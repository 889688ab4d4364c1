"""The few lines an answer starts with: what the document says, read from it as it is (nothing is
computed here), and what was cut, with the cursor that goes on. One function per document kind.
The facts are read from the whole document, so that none is lost to a cut; what was cut, from the
cut one's `page`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.quantities import count, percentage, size

Document = dict[str, Any]


def summary(doc: Document, whole: Document | None = None) -> str:
    """The summary of a (cut) document, its facts read from `whole` where given; the kinds without
    their own say their kind and size."""
    facts = whole if whole is not None else doc
    if doc.get("changed_only"):  # passes: a choice of rows (said so), not a page of them
        facts = {**facts, "passes": [p for p in facts["passes"] if p["changed"]]}
    lines = _SUMMARIES.get(facts["kind"], _generic)(facts)
    return "\n".join([*lines, *_cuts(doc.get("page", {}))])


def _resources(r: dict[str, Any]) -> str:
    occupancy = r["occupancy"]
    return (
        f"{count(r['registers'], 'register')}, {count(r['spills'], 'spill')}, {size(r['shared_bytes'])} shared, "
        f"occupancy {_percentage(occupancy.get('percent'))} ({count(occupancy['blocks_per_sm'], 'block')} per SM, "
        f"limited by {occupancy['limited_by']})"
    )


def _percentage(value: Any) -> str:
    return percentage(value) if isinstance(value, (int, float)) else "?%"


def _dump(doc: Document) -> list[str]:
    variant = doc["variant"]
    head = f"{variant['kernel']} on {variant['target']}, Triton {doc['triton_version']}: {_resources(doc['resources'])}"
    stages = ", ".join(f"{name} {count(len(text.splitlines()), 'line')}" for name, text in doc["stages"].items())
    found = [head, f"stages: {stages}"]
    if "selected_lines" in doc:
        found.append(f"showing what Python lines {_span(doc['selected_lines'])} became")
    return found + [f"notice: {notice}" for notice in doc["notices"]]


MOST = 8  # findings or entries named in a summary; the document holds them all


def _explain(doc: Document) -> list[str]:
    head = f"{doc['kernel']} on {doc['target']}: {_resources(doc['resources'])}"
    found = doc["findings"]
    named = [f"- {_where(f['line'])}: {f['kind']}: {f['message']}" for f in found[:MOST]]
    more = [f"... and {len(found) - MOST} more in findings"] if len(found) > MOST else []
    return [head, count(len(found), "finding") + (":" if found else ""), *named, *more]


def _where(line: int | None) -> str:
    """A finding's line, or the whole kernel for a finding of no one line (its occupancy, its shared memory)."""
    return "kernel-wide" if line is None else f"line {line}"


def _check(doc: Document) -> list[str]:
    failed = [entry for entry in doc["entries"] if not entry["ok"]]
    found = [f"all budgets hold ({len(doc['entries'])} checked)" if doc["ok"] else f"{len(failed)} failed"]
    for entry in failed[:MOST]:
        found.append(f"- {entry['name']}: {entry['error'] or 'broken'}")
        found += [f"  {b['figure']} = {b['value']} ({b['limit']}) {b['finding']}".rstrip() for b in entry["broken"]]
    return found + ([f"... and {len(failed) - MOST} more in entries"] if len(failed) > MOST else [])


def _diff(doc: Document) -> list[str]:
    found = []
    for v in doc["variants"]:
        label = ", ".join(f"{k}={val}" for k, val in v["label"].items()) if isinstance(v["label"], dict) else v["label"]
        found.append(f"- {label}: " + (_resources(v["resources"]) if v["ok"] else f"failed: {v['error']}"))
    changed = [f"{d['stage']} {d['old']}->{d['new']}" for d in doc["diffs"] if d["changed"]]
    return [*found, "changed: " + (", ".join(changed) or "nothing in the stages diffed")]


def _passes(doc: Document) -> list[str]:
    rows = doc["passes"]
    shown = [p for p in rows if "diff" in p]  # `show`: what those passes changed leads, not the pipeline's start
    if shown:
        head = f"Triton {doc['triton_version']}: {count(len(rows), 'MLIR pass', 'MLIR passes')}; shown:"
        return [head, *(f"- pass {p['index']} {p['name']}: {_change(p)}" for p in shown[:MOST])]
    return [f"Triton {doc['triton_version']}: passes {_names(rows)}"]


def _change(row: dict) -> str:
    if not row["changed"]:
        return "changed nothing" if row["changed"] is not None else "change unknown"
    return f"+{row.get('added', '?')} -{row.get('removed', '?')} lines, in its diff"


def _passes_compare(doc: Document) -> list[str]:
    labels = " and ".join(str(v["label"]) for v in doc["variants"])
    divergence = doc["divergence"]
    where = [f"{side}: pass {p['index']} {p['name']}" for side in ("first", "second") if (p := divergence[side])]
    return [f"{labels}: the pipelines part: {divergence['kind']}", *where]


def _capture_diff(doc: Document) -> list[str]:
    counts = ", ".join(f"{n} {what}" for what, n in doc["counts"].items())
    regressed = [k["name"] for k in doc["kernels"] if k["regression"]]
    return [
        f"{doc['before']} -> {doc['after']}: {counts}",
        *(f"regressed: {name}" for name in regressed),
        *doc["notes"],
    ]


def _trace(doc: Document) -> list[str]:
    found = [f"captured {count(len(doc['kernels']), 'kernel')} into {doc['out']}: {', '.join(doc['kernels'])}"]
    found.append(
        f"the program exited with {doc['returncode']}; {count(doc['launches'], 'launch', 'launches')} recorded"
    )
    return found + ([f"stopped at {doc['stopped']}"] if doc["stopped"] else [])


def _layout(doc: Document) -> list[str]:
    shape = "x".join(map(str, doc["shape"]))
    spread = f"{count(doc['warps'], 'warp')} of {doc['lanes']} lanes: {count(doc['registers'], 'value')} per thread"
    return [f"layout: {doc['layout']}", f"{shape} over {spread}", doc["origin"].splitlines()[0]]


def _shared_layout(doc: Document) -> list[str]:
    shape = "x".join(map(str, doc["shape"]))
    return [f"shared layout: {doc['layout']}", f"{shape} of {doc['bits']}-bit elements", doc["origin"].splitlines()[0]]


def _generic(doc: Document) -> list[str]:
    sizes = [f"{len(value)} {key}" for key, value in doc.items() if isinstance(value, list) and key != "notes"]
    return [f"{doc['kind']}: " + (", ".join(sizes) or "see the document")]


def _names(rows: list[dict]) -> str:
    shown = ", ".join(f"{p['index']} {p['name']}" + (" (changed)" if p["changed"] else "") for p in rows[:12])
    return shown + (", ..." if len(rows) > 12 else "")


def _span(numbers: list[int]) -> str:
    return f"{numbers[0]}-{numbers[-1]}" if len(numbers) > 1 else str(numbers[0])


def _cuts(page: dict[str, Any]) -> list[str]:
    """One line per part that was cut, with its cursor."""
    found = []
    for part, info in _parts(page):
        total = info.get("total_lines", info.get("total"))
        unit = "lines" if "total_lines" in info else "items"
        shown = f"{len(info['shown_lines'])} selected lines" if "shown_lines" in info else _shown(info["shown"], unit)
        if info.get("next_cursor"):
            found.append(f"{part}: {shown} of {total}, more with cursor {info['next_cursor']!r}")
        elif "how" in info and "shown" in info:
            found.append(f"{part}: {shown} of {total} ({info['how']})")
        elif "how" in info:
            found.append(f"{part}: {total} entries left out ({info['how']})")
    return found


def _parts(page: dict[str, Any]):
    for part, info in page.items():
        if isinstance(info, dict) and "next_cursor" not in info and "how" not in info:
            yield from ((f"{part}.{name}", sub) for name, sub in info.items())
        else:
            yield part, info


def _shown(shown: Any, unit: str) -> str:
    """A page's [first, last] (lines from 1, items from 0) as `unit first-last` (none: nothing)."""
    return f"{unit} {shown[0]}-{shown[1]}" if isinstance(shown, list) and len(shown) == 2 else "nothing"


_SUMMARIES: dict[str, Callable[[Document], list[str]]] = {
    "dump": _dump,
    "explain": _explain,
    "check": _check,
    "diff": _diff,
    "passes": _passes,
    "passes-compare": _passes_compare,
    "capture diff": _capture_diff,
    "trace": _trace,
    "layout": _layout,
    "shared_layout": _shared_layout,
}
