"""The launch set (tests/kernels/launch_set/): the kernels issue 52's launch-time model is measured
on. Each file declares its kinds, sizes, configs and grid as the model and the GPU script read
them; each config computes what torch computes (on Triton's interpreter, through the GPU script's
--cpu mode); and a case compiled ahead in a worker, as benchmarks/launch_precompile.py does before
the timing, is the compile the launch then finds in Triton's cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from launch_precompile import LAUNCH_SET, load_kernel_file  # noqa: E402

sys.path.insert(0, str(LAUNCH_SET))
import launch_set  # noqa: E402

DECLARED = {path.stem: launch_set.declaration(path) for path in launch_set.kernel_files()}


def test_the_set_holds_the_kinds_the_issue_names_with_a_third_held_out():
    kinds = {declared["kind"] for declared in DECLARED.values()}
    assert len(DECLARED) >= 8
    assert {"matmul", "matmul, skinny", "reduction along rows", "reduction along columns"} <= kinds
    assert {"elementwise, flat", "elementwise, 2-D tiles", "attention, forward", "gather"} <= kinds
    held_out = sorted(name for name, declared in DECLARED.items() if declared["held_out"])
    assert held_out == ["matmul_skinny", "moe_matmul", "reduce_cols", "softmax_rows"]


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_kernel_has_distinct_explained_configs_and_sizes(name):
    declared = DECLARED[name]
    configs = declared["configs"]
    assert 6 <= len(configs) <= 12
    assert all(config["why"] and {"num_warps", "num_stages"} <= set(config) for config in configs)
    settings = {json.dumps({k: v for k, v in c.items() if k != "why"}, sort_keys=True) for c in configs}
    assert len(settings) == len(configs)
    assert len(declared["sizes"]) >= 2 and declared["cpu_sizes"]
    for size in declared["sizes"]:
        work = launch_set.declared_work(declared, launch_set.dimensions(declared, size), 2)
        assert work["bytes"] > 2**20 and work["flops"] >= 0


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_launch_uses_the_grid_its_file_declares(name):
    """The launcher's grid (from the file's grid hook over the launch's own arguments) is the one
    LAUNCH_SET's expressions give from the size, for every GPU size and config: inputs on torch's
    meta device, nothing launched."""
    module, declared = load_kernel_file(LAUNCH_SET / f"{name}.py"), DECLARED[name]
    for size in declared["sizes"]:
        inputs = module.make_inputs(size, device="meta")
        dims = launch_set.dimensions(declared, size)
        for config in declared["configs"]:
            setting = {k: v for k, v in config.items() if k != "why"}
            grid = module.launcher(*inputs, **setting).grid
            assert grid == launch_set.declared_grid(declared, dims, config)
            assert all(g >= 1 for g in grid) and len(grid) == 3


def test_a_grid_expression_is_arithmetic_alone():
    assert launch_set.evaluate("cdiv(M, BLOCK_M) * min(N, 4)", {"M": 100, "BLOCK_M": 32, "N": 9}) == 16
    with pytest.raises(ValueError, match="unknown name 'open'"):
        launch_set.evaluate("open(M)", {"M": 1})
    with pytest.raises(ValueError, match="only arithmetic"):
        launch_set.evaluate("M.bit_length()", {"M": 1})


def test_every_config_computes_what_torch_computes_on_the_interpreter(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "launch_ground_truth.py"), "--cpu", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=1200, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    truth = json.loads((tmp_path / "launch_truth.json").read_text())
    assert set(truth["kernels"]) == set(DECLARED)
    for name, record in truth["kernels"].items():
        declared = DECLARED[name]
        assert len(record["cases"]) == len(declared["configs"]) * len(declared["cpu_sizes"])
        for case in record["cases"]:
            assert case["status"] == "checked" and case["error"] <= declared["tolerance"] + 1e-6, case
            assert case["grid"] == case["declared_grid"]


PRECOMPILE_CHECK = """
import sys
sys.path.insert(0, {benchmarks!r})
import launch_ground_truth as truth
from launch_precompile import compile_all, load_kernel_file, use_target_only_driver
import launch_set


def main():
    target = use_target_only_driver(90)
    files = truth.kernel_files(["reduce_rows"])
    summary = compile_all(truth.capture(files, device="meta"), target, 2)
    from triton import knobs

    heard = []
    knobs.compilation.listener = lambda *, cache_hit, src, **_: heard.append(cache_hit)
    module, declared = load_kernel_file(files[0]), launch_set.declaration(files[0])
    for size in declared["sizes"]:
        inputs = module.make_inputs(size, device="meta")
        for _, config in truth.configs_of(declared):
            try:
                module.launcher(*inputs, **config).run()
            except AttributeError as error:  # compiled or found; then no GPU to launch on
                assert "launcher_cls" in str(error), error
    print(summary["specializations"], summary["compiled"], len(heard), sum(heard))


if __name__ == "__main__":
    main()
"""


def test_a_case_compiled_ahead_in_a_worker_is_what_its_launch_finds_in_the_cache(tmp_path):
    """reduce_rows for sm90: 9 configs at two sizes of the same specialization and one whose rows
    are 1000 long (not divisible by 16): 18 compiles in the workers, and each of the 18 launches
    that follow finds its kernel in the cache (the worker rebuilt Triton's specialization data
    exactly: any difference is another cache key)."""
    script = tmp_path / "precompile_check.py"
    script.write_text(PRECOMPILE_CHECK.format(benchmarks=str(BENCHMARKS)))
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["18", "18", "18", "18"]
