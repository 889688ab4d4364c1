"""On a real GPU (marked gpu: skipped where none is visible, as in CI; run on the device machine).

The figures tritonscope computes without a GPU must equal what the CUDA driver reports.
"""

from __future__ import annotations

import ctypes

import pytest

from tritonscope.app.walk.prepare import compile_request
from tritonscope.core.model import VariantRequest
from tritonscope.core.samples import all_samples, samples_dir
from tritonscope.core.targets import local_target
from tritonscope.core.values import TypeName

pytestmark = pytest.mark.gpu
SAMPLES = [s.name for s in all_samples()]


def _driver_figures(compilation):
    """(registers, spills, max active blocks per SM) from the driver for the compiled binary."""
    from triton.runtime.driver import driver

    device = driver.active.get_current_device()
    shared = compilation.metadata["shared"]
    _, function, n_regs, n_spills, _ = driver.active.utils.load_binary(
        compilation.kernel.name, compilation.binary, shared, device
    )
    blocks = ctypes.c_int()
    cuda = ctypes.CDLL("libcuda.so.1")
    status = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(blocks), ctypes.c_void_p(function), compilation.metadata["num_warps"] * 32, ctypes.c_size_t(shared)
    )
    assert status == 0, f"cuOccupancyMaxActiveBlocksPerMultiprocessor failed: {status}"
    return n_regs, n_spills, blocks.value


@pytest.mark.parametrize("sample", SAMPLES)
def test_registers_spills_and_occupancy_equal_the_drivers(sample):
    c = compile_request(VariantRequest(file=f"sample:{sample}").resolved())  # auto: this GPU's target
    assert c.variant.target == local_target().name
    n_regs, n_spills, blocks = _driver_figures(c)
    print(
        f"{sample}: registers {c.resources.registers} (driver {n_regs}), spills {c.resources.spills} "
        f"(driver {n_spills}), blocks/SM {c.resources.occupancy.blocks_per_sm} (occupancy API {blocks})"
    )
    assert (c.resources.registers, c.resources.spills, c.resources.occupancy.blocks_per_sm) == (
        n_regs,
        n_spills,
        blocks,
    )


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_spills_equal_the_drivers_for_a_kernel_that_spills(dtype):
    """A softmax row of 32768 16-bit values needs more than 255 registers: ptxas spills into the stack
    frame, and the driver's local size (n_spills = bytes / 4) counts it."""
    request = VariantRequest(
        file="sample:softmax", constexprs=(("BLOCK_SIZE", 32768),), dtype=TypeName(dtype)
    ).resolved()  # auto: this GPU's target
    c = compile_request(request)
    n_regs, n_spills, blocks = _driver_figures(c)
    print(
        f"softmax BLOCK_SIZE=32768 {dtype}: registers {c.resources.registers} (driver {n_regs}), spills "
        f"{c.resources.spills} (driver {n_spills}), stack {c.resources.stack_bytes} B, ptxas spill stores "
        f"{c.resources.spill_store_bytes} B, loads {c.resources.spill_load_bytes} B"
    )
    assert n_spills > 0 and c.resources.spill_store_bytes > 0 and any("spill" in w for w in c.resources.warnings)
    assert (c.resources.registers, c.resources.spills, c.resources.occupancy.blocks_per_sm) == (
        n_regs,
        n_spills,
        blocks,
    )


GPU_SIZES = {
    "vector_add": [98432, 100003],
    "double": [4096, 1023],
    "softmax": [1823, 7],
    "matmul": [512, 1000],
    "matmul_grouped": [512, 777],
    "matmul_autotune": [512, 1000],
    "fused_attention": [1024, 1000],
    "layernorm": [8192, 1000],
    "add_op": [98432, 12345],
    "row_sum": [4096, 1000],
    "row_sum_gluon": [4096, 1000],
    "matmul_tma": [512, 1000],
    "fused_attention_tma": [1024, 1000],
    "fused_attention_gluon": [1024, 384],  # N_CTX a multiple of its 128-row blocks
}


@pytest.mark.parametrize(("sample", "size"), [(s, n) for s in SAMPLES for n in GPU_SIZES[s]])
def test_sample_is_correct_on_the_gpu(sample, size):
    import importlib.util

    import torch

    torch.manual_seed(0)
    spec = importlib.util.spec_from_file_location(f"gpu_{sample}", samples_dir() / f"{sample}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    inputs = module.make_inputs(size, device="cuda")
    output = module.launch(*inputs).float()
    expected = module.reference(*inputs).float()
    error = ((output - expected).abs().max() / expected.abs().max()).item()
    print(f"{sample} size {size}: max relative error {error:.2e}")
    assert error < (2e-2 if inputs[0].dtype == torch.float16 else 1e-5)


def test_bench_checks_times_and_reads_the_driver(cli):
    import json

    doc = json.loads(
        cli(
            "bench",
            "sample:vector_add",
            "--size",
            "1000000",
            "--size",
            "1000003",
            "--vary",
            "BLOCK_SIZE=256,1024",
            "--json",
        ).stdout
    )
    assert doc["peak"]["copy_gbps"] > 100 and doc["peak"]["matmul_tflops"] > 10
    results = doc["results"]
    assert [(r["size"], r["label"]["BLOCK_SIZE"]) for r in results] == [
        (1000000, "256"),
        (1000000, "1024"),
        (1000003, "256"),
        (1000003, "1024"),
    ]
    for r in results:
        print(r)
        assert r["correct"] and r["ms"] > 0 and r["gbps"] > 0 and r["registers"] > 0 and r["occupancy"]


@pytest.mark.parametrize("sample", SAMPLES)
def test_bench_every_sample(cli, sample):
    import json

    doc = json.loads(cli("bench", f"sample:{sample}", "--json").stdout)
    (result,) = doc["results"]
    peak = doc["peak"]
    print(
        f"{sample}: {result['ms']:.3f} ms, {result['gbps']:.0f} GB/s ({100 * result['gbps'] / peak['copy_gbps']:.0f}% "
        f"of copy), {result['tflops']:.1f} TFLOP/s ({100 * result['tflops'] / peak['matmul_tflops']:.0f}% of matmul), "
        f"torch {result['torch_ms']:.3f} ms ({result['torch_ms'] / result['ms']:.2f}x)"
    )
    assert result["correct"]


def test_trace_captures_torch_compile_kernels(cli, tmp_path):
    import json
    import sys

    from conftest import KERNELS

    out = tmp_path / "run"
    result = cli("trace", "-o", out, "--", sys.executable, KERNELS / "torch_compile_program.py")
    print(result.stderr)
    rows = json.loads(cli("cache", "list", out, "--json").stdout)["kernels"]
    print([(r["name"], r["target"], r["stages"]) for r in rows])
    assert rows and all(r["captured"] for r in rows) and any(r["name"].startswith("triton_") for r in rows)
    doc = json.loads(cli("dump", f"{out}/:{rows[0]['name']}", "--json").stdout)
    assert doc["variant"]["cached"] and "sass" in doc["stages"] and doc["kernel"]["source"]
