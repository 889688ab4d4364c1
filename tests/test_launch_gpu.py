"""A whole launch's time against the GPU's (issue 52; marked gpu: run on the device machine).

Two kernels of the launch set (tests/kernels/launch_set/), each config launched as the launch set
launches it and timed with triton.testing.do_bench, against `fit --rank`'s estimates for this GPU's
target (an H200 is `h200`): the flat elementwise kernel at 2^28 elements (DRAM-bound but for its
smallest blocks) and the square matmul at 8192^3. What the H200 gave when the model was set is in
docs/data/h200-launch (benchmarks/launch_time.py scores the whole set offline); here, on the GPU at
hand, the order must hold: Spearman at least 0.7 (measures within 1% of each other taken as ties:
do_bench's noise), the pick within 1.1x of the fastest, the median error under 20%. Then atomics
and lookups by data (benchmarks/atomics.py's cases), each estimate within 1.75x of its measure.

    python -m pytest -m gpu tests/test_launch_gpu.py -s    (about a minute on an H200)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import pytest

from tritonscope.app.fit import Plan, matrices
from tritonscope.app.fit_rank import Ranking
from tritonscope.core.model import VariantRequest
from tritonscope.core.targets import local_target
from tritonscope.isolate import pool
from tritonscope.results.fit import ConfigRow

pytestmark = pytest.mark.gpu
LAUNCH_SET = Path(__file__).parent / "kernels" / "launch_set"
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))


def _measured(name: str, size: str) -> list[tuple[int, dict, float]]:
    """(the config's index, the launch's scalars and grid, do_bench's median in us) of every config that
    launches."""
    import triton
    from launch_precompile import load_kernel_file

    sys.path.insert(0, str(LAUNCH_SET))
    import launch_set

    module, declared = load_kernel_file(LAUNCH_SET / f"{name}.py"), launch_set.declaration(LAUNCH_SET / f"{name}.py")
    inputs = module.make_inputs(size, device="cuda")
    found = []
    for index, config in enumerate(declared["configs"]):
        config = {k: v for k, v in config.items() if k not in launch_set.NOTES}
        try:
            started = module.launcher(*inputs, **config)
            started.run()
        except Exception:  # noqa: BLE001 - a config over the GPU's shared memory: not timed
            continue
        ms = triton.testing.do_bench(started.run, warmup=25, rep=100)
        found.append((index, {"scalars": started.scalars, "grid": list(started.grid)}, ms * 1000))
    return found


def _estimated(name: str, kernel: str, cases: list[tuple[int, dict, float]]) -> list[float]:
    """fit --rank's estimate of each case, for this GPU's target and the grid the case launched."""
    target = local_target()
    requests, launches = [], []
    for index, launch, _ in cases:
        scalars = tuple((k, v) for k, v in launch["scalars"].items() if isinstance(v, int))
        requests.append(VariantRequest(str(LAUNCH_SET / f"{name}.py"), kernel=kernel, config=index, args=scalars))
        launches.append(({"grid": [*launch["grid"], 1, 1][:3]},))
    rows = tuple(ConfigRow({"config": str(index)}, {}) for index, _, _ in cases)
    plan = Plan(kernel, name, "", rows, tuple(requests), tuple(launches))
    with pool(jobs=4, timeout=600) as workers:
        (k,) = matrices([plan], (target.name,), (), workers, ranking=Ranking())
    return [row[0].estimate.kernel_us for row in k.cells]


def _within_noise(times: list[float], within: float = 0.01) -> list[float]:
    """Measures within 1% of the least of their group taken as that one (ties, ranked together):
    do_bench's run-to-run noise. The elementwise kernel's six DRAM-bound configs measure 370.8-372.9 us,
    in an order that changes from run to run (Spearman 0.63 to 0.82 in four runs on one H200)."""
    found, least = list(times), None
    for index in sorted(range(len(times)), key=times.__getitem__):
        if least is None or times[index] > least * (1 + within):
            least = times[index]
        found[index] = least
    return found


@pytest.mark.parametrize(("name", "kernel", "size"), [
    ("elementwise_wide", "silu_mul_kernel", "2^28"), ("matmul_square", "matmul_kernel", "8192^3"),
])  # fmt: skip
def test_the_estimates_order_the_configs_as_the_gpu_times_them(name, kernel, size):
    from launch_time import spearman

    cases = _measured(name, size)
    estimated = _estimated(name, kernel, cases)
    measured = [us for _, _, us in cases]
    rho = spearman(estimated, _within_noise(measured))
    pick = min(range(len(cases)), key=estimated.__getitem__)
    regret = measured[pick] / min(measured)
    error = statistics.median(abs(e - m) / m for e, m in zip(estimated, measured, strict=True))
    print(f"{name} {size}: Spearman {rho:.2f}, regret {regret:.3f}x, median error {error:.0%}")
    assert rho is not None and rho >= 0.7
    assert regret <= 1.1 and error < 0.2


def test_atomics_and_tables_take_the_time_the_gpu_gives_them():
    """benchmarks/atomics.py's cases at the far ends of sharing, timed here: a histogram of 256 bins (one
    L2 slice's rate) and of 2^20 (the GPU's), a max into 64 bins, one counter, and lookups into a table
    each SM's L1 holds and one past the L2. Each estimate within 1.75x of its measure: the 256 bins'
    histogram measured 4.1 and 8.6 ms on the H200, the same code on bins allocated elsewhere (the L2
    slices they fall in), and the estimate (6.8 ms) is between."""
    import atomics

    wanted = {("histogram_kernel", 256, 1024), ("histogram_kernel", 2**20, 1024), ("max_hist_kernel", 64, 1024),
              ("count_kernel", None, 256), ("lookup_kernel", 256, 1024), ("lookup_kernel", 2**26, 1024)}  # fmt: skip

    def key(case: dict) -> tuple:
        sizes = case["constexprs"]
        return case["kernel"], sizes.get("N_BINS", sizes.get("T")), sizes["BLOCK"]

    chosen = [case for case in atomics.cases() if key(case) in wanted and case["warps"] == 4]
    assert len(chosen) == len(wanted)
    out = Path(__file__).parent.parent / "test-artifacts" / "atomics-measured.json"
    out.parent.mkdir(exist_ok=True)
    atomics.measure(out, chosen)
    for case in json.loads(out.read_text())["cases"]:
        estimated = atomics.estimate(case, local_target().name)["kernel_us"]
        print(f"{case['case']}: measured {case['us']:,.0f} us, estimated {estimated:,.0f} us")
        assert 1 / 1.75 <= estimated / case["us"] <= 1.75
