"""A persistent matmul's configs ranked by `fit --rank` against a GPU's timings: the loop over tiles runs
as many trips as the grid gives (`range(pid, num_tiles, tl.num_programs(0))`), which the estimate
assumed to be 16 before 2026-12-02 (tests/kernels/persistent_autotuned.py, M = N = K = 4096, fp16, a
grid of 132 programs).

    python benchmarks/persistent_ranking.py --measure OUT.json     (on the GPU: do_bench of each config)
    python benchmarks/persistent_ranking.py OUT.json [--target h200]

Scored: each config's estimate and measure, the Spearman correlation and the regret of the pick.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "kernels" / "persistent_autotuned.py"
SIZE, GRID = 4096, 132


def measure(out: Path) -> None:
    import importlib.util

    import torch
    import triton

    spec = importlib.util.spec_from_file_location("persistent_autotuned", KERNEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    b, c = torch.randn_like(a), torch.empty_like(a)
    rows = []
    for index, config in enumerate(module.persistent_matmul.configs):

        def launch(config=config):
            module.persistent_matmul.fn[(GRID,)](
                a, b, c, SIZE, SIZE, SIZE, SIZE, 1, SIZE, 1, SIZE, 1,
                num_warps=config.num_warps, num_stages=config.num_stages, **config.kwargs,
            )  # fmt: skip

        try:
            us = triton.testing.do_bench(launch, warmup=25, rep=100, return_mode="median") * 1000
        except Exception as exc:  # noqa: BLE001 - a config this GPU refuses (shared memory): said, not timed
            print(f"#{index}: {type(exc).__name__}: {exc}", flush=True)
            continue
        rows.append({"config": index, "us": us})
        print(f"#{index} {config.kwargs} {config.num_warps}w {config.num_stages}s: {us:9.1f} us", flush=True)
    out.write_text(json.dumps({"gpu": torch.cuda.get_device_name(), "grid": GRID, "cases": rows}, indent=1) + "\n")


def score(measured: Path, target: str) -> None:
    rows = {row["config"]: row["us"] for row in json.loads(measured.read_text())["cases"]}
    command = [sys.executable, "-m", "tritonscope", "fit", str(KERNEL), "--rank", "-t", target, "--grid", str(GRID),
               "--json"]  # fmt: skip
    document = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    configs = document["kernels"][0]["configs"]
    estimated = {i: c["cells"][target]["estimate"]["kernel_us"] for i, c in enumerate(configs) if i in rows and
                 c["cells"][target].get("estimate")}  # fmt: skip
    for index in sorted(estimated):
        print(f"#{index}: measured {rows[index]:9.1f} us, estimated {estimated[index]:9.1f} us "
              f"({estimated[index] / rows[index]:.2f}x)")  # fmt: skip
    shared = sorted(estimated)
    rank = lambda values: {k: sorted(values, key=values.get).index(k) for k in values}  # noqa: E731
    by_measure, by_estimate = rank({k: rows[k] for k in shared}), rank(estimated)
    n = len(shared)
    rho = 1 - 6 * sum((by_measure[k] - by_estimate[k]) ** 2 for k in shared) / (n * (n * n - 1)) if n > 1 else 1.0
    pick = min(estimated, key=estimated.get)
    print(f"Spearman {rho:.2f}; the pick #{pick} is {rows[pick] / min(rows[k] for k in shared):.3f}x the fastest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("measured", type=Path, nargs="?")
    parser.add_argument("--measure", type=Path, metavar="OUT")
    parser.add_argument("--target", default="h200")
    given = parser.parse_args()
    if given.measure:
        measure(given.measure)
    elif given.measured:
        score(given.measured, given.target)
    else:
        parser.error("give OUT.json to score, or --measure OUT.json on a GPU")


if __name__ == "__main__":
    main()
