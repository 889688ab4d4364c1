"""Atomics and lookups at addresses from data, against a GPU's timings: the launch estimate's `atomics`
limit and its tables (analysis/atomics.py, analysis/dram_reuse.py).

Histograms of 2^25 int32 values into 16 to 2^24 bins (tests/kernels/timing/histogram.py), lookups
into tables of 1 KB to 256 MB (tests/kernels/tables/lookup.py), and the atomics of
tests/kernels/tables/scatter.py: one counter, float and max histograms, split rows added into one.
The histograms and lookups set the constants (`set`); the scatter kernels were measured after
(`after`). On the GPU, `--measure OUT.json` times every case with triton.testing.do_bench (about
20 s on an H200); without one, the saved timings are scored: each case's estimate (`tritonscope
explain --grid`, for `--target`, default h200) over its measure.

    python benchmarks/atomics.py --measure OUT.json [--set clamped]   (on the GPU)
    python benchmarks/atomics.py docs/data/h200-atomics/measured.json [--markdown]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HISTOGRAM = ROOT / "tests" / "kernels" / "timing" / "histogram.py"
LOOKUP = ROOT / "tests" / "kernels" / "tables" / "lookup.py"
SCATTER = ROOT / "tests" / "kernels" / "tables" / "scatter.py"
CLAMPED = ROOT / "tests" / "kernels" / "tables" / "clamped_histogram.py"
N = 2**25
COLUMNS = 2**22


def cases() -> list[dict]:
    """Every case: its set, file, kernel, constexprs, argument types and grid."""
    found = []
    for bins in (16, 256, 4096, 65536, 2**20, 2**24):
        found.append(_case("set", HISTOGRAM, "histogram_kernel", {"N_BINS": bins, "BLOCK": 1024}, N // 1024))
    for block, warps in ((128, 1), (256, 2), (512, 4), (2048, 8), (4096, 8), (4096, 4), (1024, 1)):
        found.append(_case("set", HISTOGRAM, "histogram_kernel", {"N_BINS": 256, "BLOCK": block}, N // block, warps))
    for table in (256, 65536, 2**20, 2**22, 2**24, 2**26):
        found.append(_case("set", LOOKUP, "lookup_kernel", {"T": table, "BLOCK": 1024}, N // 1024))
    for block in (256, 1024, 4096):
        found.append(_case("after", SCATTER, "count_kernel", {"BLOCK": block}, N // block))
    for bins in (64, 1024, 32768, 2**21):
        found.append(_case("after", SCATTER, "weighted_hist_kernel", {"N_BINS": bins, "BLOCK": 1024}, N // 1024))
    for bins in (64, 8192, 2**20):
        constexprs, int_bins = {"N_BINS": bins, "BLOCK": 1024}, {"bins_ptr": "*i32"}
        found.append(_case("after", SCATTER, "max_hist_kernel", constexprs, N // 1024, 4, int_bins))
    for split in (2, 8, 32):
        grid = split * COLUMNS // 1024
        found.append(_case("after", SCATTER, "accumulate_kernel", {"SPLIT": split, "BLOCK": 1024}, grid))
    # bins clamped, not taken modulo (2026-12-02: they were taken as scattered addresses, or a float's as none)
    for bins in (256, 65536):
        found.append(_case("clamped", CLAMPED, "clamped_kernel", {"N_BINS": bins, "BLOCK": 1024}, N // 1024))
        floats = {"x_ptr": "*fp32", "num_bins": bins, "lo": 0.0, "hi": 1.0}
        found.append(_case("clamped", CLAMPED, "float_kernel", {"BLOCK": 1024}, N // 1024, 4, floats))
    return found


def _case(group: str, file: Path, kernel: str, constexprs: dict, grid: int, warps: int = 4, args=None) -> dict:
    values = {k: v for k, v in (args or {}).items() if not isinstance(v, str)}  # a runtime bin count, say
    name = ", ".join(f"{k}={v}" for k, v in {**constexprs, **values}.items()) + f", {warps} warps"
    return {"set": group, "file": str(file.relative_to(ROOT)), "kernel": kernel, "constexprs": constexprs,
            "args": args or {}, "grid": grid, "warps": warps, "case": f"{kernel}: {name}"}  # fmt: skip


def measure(out: Path, chosen: list[dict] | None = None) -> None:
    """Every case (or those `chosen`) timed on this GPU (inputs: random int32 values below 2^30, float
    weights; a clamped histogram's values spread over its bins and 16 past each end, a float one's
    uniform in [0, 1))."""
    import importlib.util

    import torch
    import triton

    x = torch.randint(0, 2**30, (N,), device="cuda", dtype=torch.int32)
    weights, rows = torch.rand(N, device="cuda"), []
    for case in chosen or cases():
        spec = importlib.util.spec_from_file_location(Path(case["file"]).stem, ROOT / case["file"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        launch = _launcher(case, getattr(module, case["kernel"]), x, weights, torch)
        ms = triton.testing.do_bench(launch, warmup=50, rep=200, return_mode="median")
        rows.append({**case, "us": ms * 1000})
        print(f"{case['case']:55s} {ms * 1000:9.1f} us", flush=True)
    out.write_text(json.dumps({"gpu": torch.cuda.get_device_name(), "cases": rows}, indent=1) + "\n")


def _launcher(case: dict, kernel, x, weights, torch):
    c, grid, warps = case["constexprs"], (case["grid"],), case["warps"]
    name = case["kernel"]
    if name == "histogram_kernel":
        bins = torch.zeros(c["N_BINS"], device="cuda", dtype=torch.int32)
        return lambda: kernel[grid](x, bins, N, num_warps=warps, **c)
    if name == "lookup_kernel":
        table, out = torch.randn(c["T"], device="cuda"), torch.empty(N, device="cuda")
        return lambda: kernel[grid](x, table, out, N, num_warps=warps, **c)
    if name == "count_kernel":
        count = torch.zeros(1, device="cuda", dtype=torch.int32)
        return lambda: kernel[grid](x, count, N, num_warps=warps, **c)
    if name == "weighted_hist_kernel":
        bins = torch.zeros(c["N_BINS"], device="cuda")
        return lambda: kernel[grid](x, weights, bins, N, num_warps=warps, **c)
    if name == "max_hist_kernel":
        bins = torch.zeros(c["N_BINS"], device="cuda", dtype=torch.int32)
        return lambda: kernel[grid](x, bins, N, num_warps=warps, **c)
    if name == "clamped_kernel":
        spread = torch.randint(-16, c["N_BINS"] + 16, (N,), device="cuda", dtype=torch.int32)
        bins = torch.zeros(c["N_BINS"], device="cuda", dtype=torch.int32)
        return lambda: kernel[grid](spread, bins, N, num_warps=warps, **c)
    if name == "float_kernel":
        count = case["args"]["num_bins"]
        values, bins = torch.rand(N, device="cuda"), torch.zeros(count, device="cuda", dtype=torch.int32)
        return lambda: kernel[grid](values, bins, N, count, 0.0, 1.0, num_warps=warps, **c)
    source, destination = torch.rand(c["SPLIT"], COLUMNS, device="cuda"), torch.zeros(COLUMNS, device="cuda")
    return lambda: kernel[grid](source, destination, COLUMNS, num_warps=warps, **c)


def estimate(case: dict, target: str) -> dict:
    """`tritonscope explain --grid` for the case: its launch estimate's JSON."""
    command = [sys.executable, "-m", "tritonscope", "explain", str(ROOT / case["file"]), "-k", case["kernel"], "-t",
               target, "--grid", str(case["grid"]), "-w", str(case["warps"]), "--no-what-if", "--json"]  # fmt: skip
    for name, value in case["constexprs"].items():
        command += ["-c", f"{name}={value}"]
    for name, value in case["args"].items():
        command += ["-a", f"{name}={value}"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["time"]["launch"]


def score(measured: Path, target: str, markdown: bool) -> None:
    rows = json.loads(measured.read_text())["cases"]
    with ThreadPoolExecutor(2) as runs:
        found = list(runs.map(lambda case: estimate(case, target), rows))
    ratios: dict[str, list[float]] = {}
    plain = "{:5s} {:52s} {:9,.0f} {:9,.0f} {:6.2f}x  {}"
    line = "| {} | {} | {:,.0f} | {:,.0f} | {:.2f}x | {} |" if markdown else plain
    if markdown:
        print("| set | case | measured us | estimated us | ratio | bound |\n| --- | --- | --- | --- | --- | --- |")
    for case, launch in zip(rows, found, strict=True):
        ratio = launch["kernel_us"] / case["us"]
        ratios.setdefault(case["set"], []).append(ratio)
        print(line.format(case["set"], case["case"], case["us"], launch["kernel_us"], ratio, launch["bound"]))
    print()
    for group, values in ratios.items():
        error = statistics.median(abs(math.log(r)) for r in values)
        worst = max(values, key=lambda r: abs(math.log(r)))
        print(f"{group}: {len(values)} cases, median error {math.exp(error) - 1:.0%}, worst {worst:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("measured", type=Path, nargs="?", help="measured.json from --measure")
    parser.add_argument("--measure", type=Path, metavar="OUT", help="time every case on this GPU into OUT")
    parser.add_argument("--target", default="h200", help="the GPU's target (default h200)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--set", action="append", help="with --measure: only the cases of this set (repeatable)")
    given = parser.parse_args()
    if given.measure:
        measure(given.measure, [c for c in cases() if c["set"] in given.set] if given.set else None)
    elif given.measured:
        score(given.measured, given.target, given.markdown)
    else:
        parser.error("give measured.json to score, or --measure OUT.json on a GPU")


if __name__ == "__main__":
    main()
