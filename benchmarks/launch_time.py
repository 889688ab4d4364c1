"""The whole launch's time against a GPU's (issue 52), scored offline: how well `fit --rank`'s estimates
order and pick each kernel's configs, and how close they come.

Input: the JSON benchmarks/launch_ground_truth.py wrote on the GPU (every case of the launch set,
tests/kernels/launch_set/: a kernel, a size, a config, the grid it launched, its scalar arguments,
do_bench's median). Each timed case is compiled here for the GPU's target (`--target`, default
h200), as its launch specialized (the kernel file's pointer types, the case's scalars, the config's
constexprs and options), and estimated through `fit --rank`'s own path for the grid it launched
(app/fit.py: `matrices`, in parallel workers).

Per kernel and size: the Spearman rank correlation between estimated and measured times over its
configs, the regret (the measured time of the config the model picks over the fastest measured)
and the median absolute error of the estimate; per kernel, those over its sizes (Spearman's mean,
the worst regret, the errors' median). Kernels declared `held_out` were not looked at while the
model was tuned and are reported apart. Goals: median Spearman >= 0.9; regret <= 1.05x for every
kernel, geometric mean <= 1.02x; median absolute error <= 15%.

    python benchmarks/launch_time.py TRUTH.json [--target h200] [--markdown] [--notes NOTES.json]

`--notes` names a JSON file {kernel: why the model misses there} shown in the table.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tritonscope.app.fit import Plan, matrices  # noqa: E402
from tritonscope.app.fit_rank import Ranking  # noqa: E402
from tritonscope.app.walk.load import load_file  # noqa: E402
from tritonscope.core.model import ParamKind, VariantRequest  # noqa: E402
from tritonscope.isolate import pool  # noqa: E402
from tritonscope.results.fit import ConfigRow  # noqa: E402


@dataclass
class Case:
    kernel: str
    size: str
    config: int
    measured_us: float
    estimated_us: float | None = None
    bound: str = ""
    note: str = ""


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("truth", type=Path, help="launch_truth.json from benchmarks/launch_ground_truth.py")
    parser.add_argument("--target", default="h200", help="the GPU's target (default h200)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--notes", type=Path, help="JSON {kernel: why the model misses there}")
    parser.add_argument("--jobs", type=int, default=2, help="compiles at once (default 2)")
    parser.add_argument("--cases", type=Path, help="also write every case's estimate and measurement here")
    return parser.parse_args()


def plans(truth: dict) -> tuple[list[Plan], list[Case]]:
    """One plan per kernel, a row per timed case, each with the grid it launched."""
    found, cases = [], []
    for name, record in truth["kernels"].items():
        timed = [c for c in record["cases"] if c.get("status") == "ok"]
        if not timed:
            continue
        requests, launches, rows = [], [], []
        file = str(ROOT / record["file"])
        constant = {p.name for p in load_file(file).pick(record["kernel"]).spec.params if p.kind is ParamKind.CONSTEXPR}
        for case in timed:
            ints = [(k, v) for k, v in case["scalars"].items() if isinstance(v, int)]
            scalars = tuple((k, v) for k, v in ints if k not in constant)
            fixed = tuple((k, v) for k, v in ints if k in constant)  # a size the kernel takes as a constexpr
            kernel, config = record["kernel"], case["config_index"]
            requests.append(VariantRequest(file, kernel=kernel, config=config, args=scalars, constexprs=fixed))
            launches.append(({"grid": [*case["grid"], 1, 1][:3]},))
            rows.append(ConfigRow({"size": case["size"], "config": str(case["config_index"])}, {}))
            cases.append(Case(name, case["size"], case["config_index"], case["ms"] * 1000))
        found.append(Plan(name, record["file"], "", tuple(rows), tuple(requests), tuple(launches)))
    return found, cases


def estimate(truth: dict, target: str, jobs: int) -> list[Case]:
    found, cases = plans(truth)
    with pool(jobs=jobs, timeout=900) as workers:
        kernels = matrices(found, (target,), (), workers, ranking=Ranking())
    cells = [row[0] for k in kernels for row in k.cells]
    for case, cell in zip(cases, cells, strict=True):
        if cell.estimate is not None:
            case.estimated_us, case.bound = cell.estimate.kernel_us, cell.estimate.bound
        else:
            case.note = cell.estimate_note or cell.reason
    return cases


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation (ties take their mean rank); None under 3 points or no spread."""
    if len(xs) < 3:
        return None

    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        found = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                found[order[k]] = (i + j) / 2
            i = j + 1
        return found

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    spread = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return cov / spread if spread else None


@dataclass
class Score:
    kernel: str
    size: str  # a size's name, or "all" for the kernel's summary
    configs: int
    rho: float | None
    regret: float
    error: float  # median |estimate - measured| / measured
    picked: int
    fastest: int
    bound: str


def score_group(kernel: str, size: str, group: list[Case]) -> Score | None:
    timed = [c for c in group if c.estimated_us is not None]
    if not timed:
        return None
    measured = [c.measured_us for c in timed]
    estimated = [c.estimated_us for c in timed]
    picked = min(timed, key=lambda c: c.estimated_us)  # type: ignore[arg-type, return-value]
    fastest = min(timed, key=lambda c: c.measured_us)
    errors = [abs(c.estimated_us - c.measured_us) / c.measured_us for c in timed]  # type: ignore[operator]
    rho = spearman(estimated, measured)  # type: ignore[arg-type]
    regret = picked.measured_us / fastest.measured_us
    return Score(
        kernel, size, len(timed), rho, regret, statistics.median(errors), picked.config, fastest.config, picked.bound
    )


def scores(cases: list[Case]) -> list[Score]:
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        groups.setdefault((case.kernel, case.size), []).append(case)
    return [s for (kernel, size), group in groups.items() if (s := score_group(kernel, size, group)) is not None]


def summary(rows: list[Score], cases: list[Case], held: set[str], label: str) -> str:
    """One line: the median Spearman, the regrets, the median error, over some kernels' sizes."""
    rows = [r for r in rows if (r.kernel in held) == (label == "held out")] if label != "all" else rows
    kernels = {r.kernel for r in rows}
    mine = [c for c in cases if c.kernel in kernels and c.estimated_us is not None]
    rhos = [r.rho for r in rows if r.rho is not None]
    worst = {k: max(r.regret for r in rows if r.kernel == k) for k in kernels}
    geomean = math.exp(statistics.fmean(math.log(r.regret) for r in rows)) if rows else float("nan")
    errors = [abs(c.estimated_us - c.measured_us) / c.measured_us for c in mine]  # type: ignore[operator]
    rho = statistics.median(rhos) if rhos else float("nan")
    held_to = sum(v <= 1.05 for v in worst.values())
    error = statistics.median(errors) if errors else float("nan")
    return (
        f"{label}: {len(kernels)} kernels, {len(rows)} sizes, {len(mine)} configs timed: median Spearman {rho:.2f}; "
        f"regret at most 1.05x in {held_to} of {len(worst)} kernels (worst {max(worst.values(), default=0):.2f}x), "
        f"geometric mean {geomean:.3f}x; median absolute error {error:.0%}"
    )


def table(rows: list[Score], held: set[str], notes: dict[str, str], markdown: bool) -> list[str]:
    head = ["kernel", "set", "size", "configs", "rho", "regret", "error", "pick", "fastest", "bound", "why it misses"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"] if markdown else []
    if not markdown:
        lines.append(
            f"{'kernel':<18} {'set':<5} {'size':<18} {'n':>2} {'rho':>5} {'regret':>6} {'error':>5} pick fast bound"
        )
    for r in sorted(rows, key=lambda r: (r.kernel in held, r.kernel, r.size)):
        rho = f"{r.rho:.2f}" if r.rho is not None else "-"
        kind = "held" if r.kernel in held else "tune"
        if markdown:
            cells = [r.kernel, kind, r.size, str(r.configs), rho, f"{r.regret:.3f}x", f"{r.error:.0%}", f"#{r.picked}",
                     f"#{r.fastest}", r.bound, notes.get(f"{r.kernel} {r.size}", notes.get(r.kernel, ""))]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(
                f"{r.kernel:<18} {kind:<5} {r.size:<18} {r.configs:>2} {rho:>5} {r.regret:>5.3f}x {r.error:>5.0%} "
                f"#{r.picked:<3} #{r.fastest:<3} {r.bound}"
            )
    return lines


def main() -> int:
    args = arguments()
    truth = json.loads(args.truth.read_text())
    held = {name for name, record in truth["kernels"].items() if record.get("held_out")}
    notes = json.loads(args.notes.read_text()) if args.notes else {}
    cases = estimate(truth, args.target, args.jobs)
    rows = scores(cases)
    print("\n".join(table(rows, held, notes, args.markdown)))
    print()
    for label in ("tuning", "held out", "all"):
        print(("- " if args.markdown else "") + summary(rows, cases, held, label))
    missing = [c for c in cases if c.estimated_us is None]
    for case in missing:
        print(f"not estimated: {case.kernel} {case.size} config {case.config}: {case.note}")
    if args.cases:
        args.cases.write_text(json.dumps([vars(c) for c in cases], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
