"""How well a per-line model ranks a kernel's lines, against Nsight Compute's warp-stall samples
(issue 41), offline: from saved profiles, with no GPU.

    python benchmarks/time_model.py DATA [--set tests/kernels/timing/eval_set.json] [--json]

DATA is what benchmarks/ground_truth.py brought back (ground_truth.tar.gz, or the folder it
unpacks to: one folder per kernel with ncu.csv and capture/), or any folder of ncu source pages
(*.csv, as `ncu --csv --page source` prints them) beside the Triton cache that holds their
binaries (tests/data/ncu). Each page is matched to the cache entry whose SASS is the one ncu
measured (offset by offset, as `profile` checks it), and its counters are put on Python lines
through that binary's line map (analysis/measured.py).

Per kernel and per model: the Spearman rank correlation between the model's figure per line and
ncu's samples per line, over the lines holding at least 1% of either (ties share their mean rank;
undefined where either side is constant or fewer than 2 lines remain), and whether the model's
top line (the earliest of equals) is the line with the most samples. Then, for the tuning set,
the held-out set (by eval_set.json's `held_out`) and all: the median Spearman and the share of
top lines right. The models: `counts`, each line's SASS instructions as `explain` counts them
(analysis/cost.py). A new model is one entry of MODELS.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tritonscope.analysis import cost  # noqa: E402 - after the repository is put on the path
from tritonscope.analysis.measured import Measured, file_lines, lines_by_address, measure  # noqa: E402
from tritonscope.app.capture import compiled, entries  # noqa: E402
from tritonscope.core.errors import TritonscopeError  # noqa: E402
from tritonscope.core.model import Compilation  # noqa: E402
from tritonscope.parsers.ncu_source import SourcePage, parse  # noqa: E402

EVAL_SET = ROOT / "tests" / "kernels" / "timing" / "eval_set.json"
SHARE = 0.01  # a line counts where it holds at least this share of the samples or of the model's figure


class NoData(Exception):
    """A kernel whose saved profile holds no counters (ncu failed, or was stopped)."""


@dataclass(frozen=True)
class Kernel:
    name: str
    page: SourcePage
    compilation: Compilation | None  # the binary ncu measured, where a cache entry matches it
    measured: Measured


def counts(kernel: Kernel) -> dict[int, float]:
    """explain's figure: each line's SASS instructions (analysis/cost.py)."""
    if kernel.compilation is None:
        return {}
    return {c.line: float(c.instructions.total) for c in cost.line_costs(kernel.compilation)}


MODELS: dict[str, Callable[[Kernel], dict[int, float]]] = {"counts": counts}


# ---------------------------------------------------------------- reading saved profiles


def load_kernel(folder: Path) -> Kernel:
    """One kernel of ground_truth.py's output: FOLDER/ncu.csv, binaries in FOLDER/capture."""
    return load_page(folder.name, folder / "ncu.csv", [folder / "capture"])


def load_page(name: str, csv: Path, caches: list[Path]) -> Kernel:
    """A source page and the binary among `caches` that ncu measured (None where none matches)."""
    try:
        page = parse(csv.read_text(errors="replace"))
    except OSError as exc:
        raise NoData(f"{csv}: {exc.strerror or exc}") from None
    if not page.instructions:
        raise NoData("")
    compilation = matching_binary(page, caches)
    if compilation is None:
        files = Counter(i.file for i in page.instructions if i.file)
        kernel_file = files.most_common(1)[0][0] if files else ""
        return Kernel(name, page, None, measure(page, None, kernel_file, {}))
    return Kernel(name, page, compilation, measure(page, compilation, compilation.kernel.file, file_lines(compilation)))


def matching_binary(page: SourcePage, caches: list[Path]) -> Compilation | None:
    for root in caches:
        if not root.is_dir():
            continue
        for entry in entries.entries(root):
            if entry.name != page.kernel:
                continue
            try:
                compilation = compiled.entry_compilation(entry, f"{root}/:{entry.name}")
            except TritonscopeError:
                continue
            if lines_by_address(page, compilation) is not None:
                return compilation
    return None


def units(data: Path) -> list[tuple[str, Path, list[Path]]]:
    """(name, source page, caches to look in) for every profile under DATA."""
    found = []
    folders = sorted(p.parent for p in data.rglob("ncu.csv") if (p.parent / "capture").is_dir())
    for folder in folders:
        found.append((folder.name, folder / "ncu.csv", [folder / "capture"]))
    roots = sorted({p.parent.parent for p in data.rglob("__grp__*.json")} - {f / "capture" / "cache" for f in folders})
    for csv in sorted(data.rglob("*.csv")):
        if csv.parent not in folders and not any(f in csv.parents for f in folders):
            found.append((csv.stem, csv, roots))
    return found


# ---------------------------------------------------------------- figures


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, equal values sharing the mean of their places."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            result[i] = (start + end) / 2 + 1
        start = end + 1
    return result


def spearman(a: list[float], b: list[float]) -> float | None:
    """Spearman's rho (Pearson's on ranks); None for fewer than 2 points or a constant side."""
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else None


def top(figures: dict[int, float]) -> int | None:
    """The line with the greatest figure, the earliest of equals; None when every figure is 0."""
    best = max(figures.values(), default=0)
    return min(line for line, value in figures.items() if value == best) if best > 0 else None


def compare(samples: dict[int, float], model: dict[int, float]) -> dict:
    """The model against the samples: Spearman over the lines with >= 1% of either, top line agreement."""
    total_s, total_m = sum(samples.values()) or 1, sum(model.values()) or 1
    lines = sorted(
        n
        for n in set(samples) | set(model)
        if samples.get(n, 0) / total_s >= SHARE or model.get(n, 0) / total_m >= SHARE
    )
    rho = spearman([samples.get(n, 0) for n in lines], [model.get(n, 0) for n in lines]) if model else None
    return {
        "spearman": rho,
        "top": top(model),
        "agrees": bool(model) and top(model) == top(samples),
        "lines": len(lines),
    }


def evaluate(kernel: Kernel) -> dict:
    """The kernel's samples and hottest line, and each model's comparison with them."""
    samples = {m.line: float(m.samples) for m in kernel.measured.lines}
    hottest = top(samples)
    line_total = sum(samples.values()) or 1
    models = {name: compare(samples, model(kernel)) for name, model in MODELS.items()}
    return {
        "samples": kernel.measured.samples,
        "mapped_by": kernel.measured.mapped_by,
        "top_line": f"L{hottest}" if hottest else None,
        "top_share": samples.get(hottest, 0) / line_total if hottest else 0.0,
        "top_code": next((m.code.strip() for m in kernel.measured.lines if m.line == hottest), ""),
        "spearman": models["counts"]["spearman"],
        "models": models,
    }


def held_out_names(manifest: Path) -> dict[str, bool]:
    try:
        return {c["name"]: bool(c.get("held_out")) for c in json.loads(manifest.read_text())["cases"]}
    except (OSError, ValueError, KeyError):
        return {}


def case_mark(record: Path) -> bool | None:
    """held_out as ground_truth.py recorded it beside the page, where it did."""
    try:
        return bool(json.loads(record.read_text()).get("held_out"))
    except (OSError, ValueError, AttributeError):
        return None


def medians(rows: list[dict], model: str) -> dict:
    rhos = [r["models"][model]["spearman"] for r in rows if r["models"][model]["spearman"] is not None]
    right = sum(r["models"][model]["agrees"] for r in rows)
    return {
        "kernels": len(rows),
        "median_spearman": statistics.median(rhos) if rhos else None,
        "spearman_defined": len(rhos),
        "top_right": right,
        "top_right_share": right / len(rows) if rows else None,
    }


# ---------------------------------------------------------------- output


def report(rows: list[dict]) -> str:
    names = list(MODELS)
    head = f"{'kernel':<30} {'set':<5} {'samples':>9} {'top':>5} " + " ".join(f"{n + ' rho/top':>18}" for n in names)
    lines = [head]
    for r in rows:
        cells = []
        for name in names:
            m = r["models"][name]
            rho = f"{m['spearman']:.2f}" if m["spearman"] is not None else "-"
            cells.append(f"{rho:>6} {'L' + str(m['top']) if m['top'] else '-':>6} {'ok' if m['agrees'] else 'no':>4}")
        lines.append(
            f"{r['name'][:30]:<30} {r['set']:<5} {r['samples']:>9} {r['top_line'] or '-':>5} " + " ".join(cells)
        )
    for label, group in groups(rows):
        for name in names:
            s = medians(group, name)
            rho = f"{s['median_spearman']:.2f}" if s["median_spearman"] is not None else "-"
            lines.append(
                f"{label}: {name}: median Spearman {rho} ({s['spearman_defined']} of {s['kernels']} defined), "
                f"top line right in {s['top_right']} of {s['kernels']}"
            )
    return "\n".join(lines)


def groups(rows: list[dict]) -> list[tuple[str, list[dict]]]:
    tuning = [r for r in rows if r["set"] == "tune"]
    held = [r for r in rows if r["set"] == "held"]
    found = [("tuning", tuning), ("held out", held)] if tuning and held else []
    return [*found, ("all", rows)]


def evaluate_all(data: Path, manifest: Path) -> tuple[list[dict], list[str]]:
    """(a row per kernel with counters, a line per profile that has none)."""
    held = held_out_names(manifest)
    rows, skipped = [], []
    for name, csv, caches in units(data):
        try:
            kernel = load_page(name, csv, caches)
        except NoData as exc:
            skipped.append(f"{name}: no counters{': ' + str(exc) if str(exc) else ''}")
            continue
        marked = case_mark(csv.parent / "case.json")
        marked = held.get(name) if marked is None else marked
        label = "-" if marked is None else ("held" if marked else "tune")
        rows.append({"name": name, "set": label, **evaluate(kernel)})
    return rows, skipped


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="ground_truth.tar.gz, its folder, or a folder of ncu pages beside a cache")
    parser.add_argument("--set", default=str(EVAL_SET), help="the evaluation set, for its held-out marks")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = parser.parse_args(argv)
    data = Path(args.data)
    if not data.exists():
        print(f"time_model: no such file or folder: {data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="time-model-") as scratch:
        if data.is_file():
            with tarfile.open(data) as tar:
                tar.extractall(scratch, filter="data")
            data = Path(scratch)
        rows, skipped = evaluate_all(data, Path(args.set))
    if args.json:
        summary = {label: {n: medians(g, n) for n in MODELS} for label, g in groups(rows)}
        print(json.dumps({"kernels": rows, "skipped": skipped, "summary": summary}, indent=1))
    else:
        print(report(rows) + "".join(f"\n{line}" for line in skipped))
    return 0 if rows else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
