"""How long the HTML report of a large kernel takes to render (fused attention, every stage).

Compiling is left out: it is timed once to warm Triton's cache, then only the rendering
of the page is measured, the median of several runs (target: under 2 s).

Run: python benchmarks/report.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from tritonscope.app.walk.prepare import compile_request
from tritonscope.core.model import VariantRequest
from tritonscope.render.html import compilation_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    compilation = compile_request(VariantRequest(file="sample:fused_attention", target="sm90"))
    stages = list(compilation.stages)
    times, size = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        size = len(compilation_report(compilation, stages))
        times.append(time.perf_counter() - started)
    lines = sum(text.count("\n") for text in compilation.stages.values())
    print(
        f"fused_attention sm90, {len(stages)} stages, {lines} lines: report rendered in "
        f"{statistics.median(times):.2f} s (median of {runs}; target < 2 s), {size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
