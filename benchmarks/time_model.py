"""How well a per-line model ranks a kernel's lines, against Nsight Compute's warp-stall samples
(issue 41), offline: from saved profiles, with no GPU.

    python benchmarks/time_model.py DATA [--set tests/kernels/timing/eval_set.json] [--json]

DATA is what benchmarks/ground_truth.py brought back (ground_truth.tar.gz, or the folder it
unpacks to: one folder per kernel with ncu.csv and capture/), or any folder of ncu source pages
(*.csv, as `ncu --csv --page source` prints them) beside the Triton cache that holds their
binaries (tests/data/ncu). Each page is matched to the cache entry whose SASS is the one ncu
measured (offset by offset, as `profile` checks it), and its counters are put on Python lines
through that binary's line map (analysis/measured.py).

DATA may also be a folder this script saved with --save DIR: the per-line samples (samples.json:
each kernel's samples, stall reasons and instructions executed per Python line, as mapped above)
and the captures of the binaries that ran (captures.tar.gz: cubin, metadata, TTGIR, PTX and the
kernel's file per kernel), which is all the scoring needs (docs/data/h100-time-model/).

Per kernel and per model: the Spearman rank correlation between the model's figure per line and
ncu's samples per line, over the lines holding at least 1% of either (ties share their mean rank;
undefined where either side is constant or fewer than 2 lines remain), and whether the model's
top line (the earliest of equals) is the line with the most samples. Then, for the tuning set,
the held-out set (by eval_set.json's `held_out`) and all: the median Spearman and the share of
top lines right. The models: `counts`, each line's SASS instructions as `explain` counts them
(analysis/cost.py); `time`, each line's estimated cycles (analysis/line_time.py). A new model is
one entry of MODELS. A saved folder's notes.json says, per kernel, why a model misses there;
--markdown prints the table as docs/cli.md shows it.

    python benchmarks/time_model.py /work/data/h100-ncu-1/ground_truth.tar.gz --save docs/data/h100-time-model
    python benchmarks/time_model.py docs/data/h100-time-model [--json | --markdown]
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

from tritonscope.analysis import cost, line_time  # noqa: E402 - after the repository is put on the path
from tritonscope.analysis.measured import Measured, MeasuredLine, file_lines, lines_by_address, measure  # noqa: E402
from tritonscope.captures import compiled, entries  # noqa: E402
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
    page: SourcePage | None  # None: read back from a saved folder, already mapped to lines
    compilation: Compilation | None  # the binary ncu measured, where a cache entry matches it
    measured: Measured
    binary: str = ""  # its cache entry's hash


def counts(kernel: Kernel) -> dict[int, float]:
    """explain's figure: each line's SASS instructions (analysis/cost.py)."""
    if kernel.compilation is None:
        return {}
    return {c.line: float(c.instructions.total) for c in cost.line_costs(kernel.compilation)}


def estimated(kernel: Kernel) -> dict[int, float]:
    """explain's time estimate: each line's cycles (analysis/line_time.py)."""
    found = line_time.estimate(kernel.compilation) if kernel.compilation is not None else None
    return {t.line: t.cycles for t in found.lines} if found else {}


MODELS: dict[str, Callable[[Kernel], dict[int, float]]] = {"counts": counts, "time": estimated}


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
    found = matching_binary(page, caches)
    if found is None:
        files = Counter(i.file for i in page.instructions if i.file)
        kernel_file = files.most_common(1)[0][0] if files else ""
        return Kernel(name, page, None, measure(page, None, kernel_file, {}))
    c, binary = found
    return Kernel(name, page, c, measure(page, c, c.kernel.file, file_lines(c)), binary)


def matching_binary(page: SourcePage, caches: list[Path]) -> tuple[Compilation, str] | None:
    """The compilation ncu measured and its cache entry's hash."""
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
                return compilation, str(entry.metadata.get("hash", ""))
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


# ---------------------------------------------------------------- saved data

SAMPLES, CAPTURES, NOTES = "samples.json", "captures.tar.gz", "notes.json"
_KEPT = (".cubin", ".json", ".ttgir", ".ptx", ".source", ".jsonl")  # what rebuilding a compilation reads


def save(kernels: list[tuple[Kernel, str]], data: Path, out: Path) -> None:
    """OUT/samples.json (each kernel's samples per line) and OUT/captures.tar.gz (the captures they
    were measured on, the files a compilation is read back from), each written whole."""
    out.mkdir(parents=True, exist_ok=True)
    body = [_saved(kernel, label) for kernel, label in kernels]
    partial = out / (SAMPLES + ".partial")
    partial.write_text(json.dumps({"kernels": body}, indent=1) + "\n")
    partial.replace(out / SAMPLES)
    partial = out / (CAPTURES + ".partial")
    with tarfile.open(partial, "w:gz") as tar:
        for kernel, _ in kernels:
            capture = data / kernel.name / "capture"
            for path in sorted(capture.rglob("*")) if capture.is_dir() else ():
                if path.is_file() and path.name.endswith(_KEPT):
                    tar.add(path, arcname=str(path.relative_to(data)))
    partial.replace(out / CAPTURES)


def _saved(kernel: Kernel, label: str) -> dict:
    m = kernel.measured
    lines = [{k: v for k, v in vars(line).items() if k != "accesses"} for line in m.lines]
    return {
        "name": kernel.name,
        "set": label,
        "kernel": kernel.compilation.kernel.name if kernel.compilation else None,
        "binary": kernel.binary,
        "mapped_by": m.mapped_by,
        "samples": m.samples,
        "samples_not_issued": m.samples_not_issued,
        "executed": m.executed,
        "stalls": m.stalls,
        "unattributed_samples": m.unattributed_samples,
        "lines": lines,
    }


def load_saved(folder: Path, scratch: Path, only: tuple[str, ...] = ()) -> list[tuple[Kernel, str]]:
    """The kernels of a saved folder (`only` these, where named), each with its set label, its
    compilation read back from the captures."""
    with tarfile.open(folder / CAPTURES) as tar:
        tar.extractall(scratch, filter="data")
    found = []
    for saved in json.loads((folder / SAMPLES).read_text())["kernels"]:
        if only and saved["name"] not in only:
            continue
        lines = tuple(MeasuredLine(**{**x, "stalls": tuple(map(tuple, x["stalls"]))}) for x in saved["lines"])
        fields = ("samples", "samples_not_issued", "executed", "unattributed_samples")
        stalls = tuple(map(tuple, saved["stalls"]))
        measured = Measured(lines, saved["mapped_by"], stalls=stalls, **{k: saved[k] for k in fields})
        compilation = _saved_binary(scratch / saved["name"] / "capture", saved["kernel"], saved["binary"])
        found.append((Kernel(saved["name"], None, compilation, measured, saved["binary"]), saved["set"]))
    return found


def _saved_binary(capture: Path, kernel: str | None, binary: str) -> Compilation | None:
    for entry in entries.entries(capture) if capture.is_dir() else ():
        if entry.name == kernel and str(entry.metadata.get("hash", "")) == binary:
            return compiled.entry_compilation(entry, f"{capture}/:{entry.name}")
    return None


def notes_of(data: Path) -> dict[str, str]:
    try:
        return json.loads((data / NOTES).read_text())
    except (OSError, ValueError):
        return {}


# ---------------------------------------------------------------- output


def _cell(m: dict) -> tuple[str, str, str]:
    rho = f"{m['spearman']:.2f}" if m["spearman"] is not None else "-"
    return rho, f"L{m['top']}" if m["top"] else "-", "ok" if m["agrees"] else "no"


def report(rows: list[dict], notes: dict[str, str] | None = None) -> str:
    """80 columns: per kernel the measured top line, then per model its Spearman, top line, agreement."""
    names = list(MODELS)
    head = f"{'kernel':<23} {'set':<4} {'top':>5} " + " ".join(f"{n[:6] + ' rho':>10} {'top':>5}   " for n in names)
    lines = [head.rstrip()]
    for r in rows:
        cells = [f"{rho:>10} {top:>5} {ok:>2}" for rho, top, ok in (_cell(r["models"][n]) for n in names)]
        lines.append(f"{r['name'][:23]:<23} {r['set']:<4} {r['top_line'] or '-':>5} " + " ".join(cells))
    lines += [""] + summary_lines(rows)
    said = [(r["name"], (notes or {}).get(r["name"])) for r in rows if _missed(r)]
    lines += ["", "where the time model misses:"] + [f"  {n}: {why}" for n, why in said if why] if said else []
    return "\n".join(lines)


def summary_lines(rows: list[dict]) -> list[str]:
    found = []
    for label, group in groups(rows):
        for name in MODELS:
            s = medians(group, name)
            rho = f"{s['median_spearman']:.2f}" if s["median_spearman"] is not None else "-"
            found.append(
                f"{label}: {name}: median Spearman {rho} ({s['spearman_defined']} of {s['kernels']} defined), "
                f"top line right in {s['top_right']} of {s['kernels']}"
            )
    return found


def _missed(row: dict) -> bool:
    m = row["models"].get("time")
    return m is not None and (not m["agrees"] or m["spearman"] is None or m["spearman"] < 0.8)


def markdown(rows: list[dict], notes: dict[str, str] | None = None) -> str:
    """The table as docs/cli.md shows it: tuning kernels, then held-out ones, each with the note."""
    lines = [
        "| kernel | set | measured top line | counts: rho | counts: top | time: rho | time: top "
        "| why the time model misses |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in sorted(rows, key=lambda r: (r["set"] != "tune", r["name"])):
        (c_rho, c_top, c_ok), (t_rho, t_top, t_ok) = (_cell(r["models"][n]) for n in ("counts", "time"))
        share = f"{r['top_share']:.0%}"
        why = (notes or {}).get(r["name"], "") if _missed(r) else ""
        lines.append(
            f"| {r['name']} | {r['set']} | {r['top_line']} ({share}) | {c_rho} | {c_top} {c_ok} | "
            f"{t_rho} | {t_top} {t_ok} | {why} |"
        )
    return "\n".join(lines + [""] + [f"- {line}" for line in summary_lines(rows)])


def groups(rows: list[dict]) -> list[tuple[str, list[dict]]]:
    tuning = [r for r in rows if r["set"] == "tune"]
    held = [r for r in rows if r["set"] == "held"]
    found = [("tuning", tuning), ("held out", held)] if tuning and held else []
    return [*found, ("all", rows)]


def read_all(data: Path, manifest: Path) -> tuple[list[tuple[Kernel, str]], list[str]]:
    """(each kernel with counters and its set label, a line per profile that has none)."""
    held = held_out_names(manifest)
    found, skipped = [], []
    for name, csv, caches in units(data):
        try:
            kernel = load_page(name, csv, caches)
        except NoData as exc:
            skipped.append(f"{name}: no counters{': ' + str(exc) if str(exc) else ''}")
            continue
        marked = case_mark(csv.parent / "case.json")
        marked = held.get(name) if marked is None else marked
        found.append((kernel, "-" if marked is None else ("held" if marked else "tune")))
    return found, skipped


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", help="ground_truth.tar.gz, its folder, a folder of ncu pages beside a cache, or a saved folder"
    )
    parser.add_argument("--set", default=str(EVAL_SET), help="the evaluation set, for its held-out marks")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    shown.add_argument("--markdown", action="store_true", help="the table in Markdown, as docs/cli.md shows it")
    parser.add_argument("--save", metavar="DIR", help="save the per-line samples and the captures there")
    parser.add_argument("--only", nargs="*", default=(), help="these kernels alone (of a saved folder), by name")
    args = parser.parse_args(argv)
    data = Path(args.data)
    if not data.exists():
        print(f"time_model: no such file or folder: {data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="time-model-") as scratch:
        notes = notes_of(data) if data.is_dir() else {}
        if data.is_file():
            with tarfile.open(data) as tar:
                tar.extractall(scratch, filter="data")
            data = Path(scratch)
        if (data / SAMPLES).is_file():
            kernels, skipped = load_saved(data, Path(scratch), tuple(args.only)), []
        else:
            kernels, skipped = read_all(data, Path(args.set))
        if args.save:
            save(kernels, data, Path(args.save))
        rows = [{"name": k.name, "set": label, **evaluate(k)} for k, label in kernels]
    if args.json:
        summary = {label: {n: medians(g, n) for n in MODELS} for label, g in groups(rows)}
        print(json.dumps({"kernels": rows, "skipped": skipped, "summary": summary, "notes": notes}, indent=1))
    else:
        print((markdown if args.markdown else report)(rows, notes) + "".join(f"\n{line}" for line in skipped))
    return 0 if rows else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
