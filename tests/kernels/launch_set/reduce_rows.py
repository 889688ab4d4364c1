"""Sums along rows of a bf16 matrix, out[m] = sum_n x[m, n] in fp32: each program takes ROWS rows
and walks their columns BLOCK_N at a time, keeping a [ROWS, BLOCK_N] accumulator. DRAM-bound at
the large size; at the size of few long rows the grid has too few blocks and warps to keep the
memory busy. Its configs differ by the vector width of each thread's loads (BLOCK_N over the
block's threads: 2 bf16 is 4 bytes, 8 is 16), warps per block (occupancy), rows per program
(fewer, larger blocks) and the loop's pipeline depth."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "reduction along rows",
    "held_out": False,
    "kernel": "row_sum_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.001,
    "sizes": {
        "32768x8192": {"n_rows": 32768, "n_cols": 8192},
        "256x262144": {"n_rows": 256, "n_cols": 262144},
        "4096x1000": {"n_rows": 4096, "n_cols": 1000},
    },
    "cpu_sizes": {"tiny": {"n_rows": 13, "n_cols": 300}},
    "work": {"flops": "n_rows * n_cols", "bytes": "n_rows * n_cols * itemsize + n_rows * 4"},
    "grid": ["cdiv(n_rows, ROWS)", "1", "1"],
    "configs": [
        {"ROWS": 1, "BLOCK_N": 1024, "num_warps": 4, "num_stages": 1, "why": "8 bf16 a thread: 16-byte loads"},
        {"ROWS": 1, "BLOCK_N": 4096, "num_warps": 8, "num_stages": 1, "why": "16 a thread, 8 warps"},
        {"ROWS": 1, "BLOCK_N": 256, "num_warps": 1, "num_stages": 1, "why": "one warp a row: small blocks"},
        {"ROWS": 1, "BLOCK_N": 256, "num_warps": 4, "num_stages": 1, "why": "2 bf16 a thread: 4-byte loads"},
        {"ROWS": 4, "BLOCK_N": 1024, "num_warps": 4, "num_stages": 1, "why": "4 rows a program: fewer blocks"},
        {"ROWS": 8, "BLOCK_N": 512, "num_warps": 8, "num_stages": 1, "why": "8 rows a program, 8 warps"},
        {"ROWS": 1, "BLOCK_N": 2048, "num_warps": 16, "num_stages": 1, "why": "16 warps a block: 4 a thread"},
        {"ROWS": 1, "BLOCK_N": 1024, "num_warps": 4, "num_stages": 4, "why": "the first config, loop pipelined 4 deep"},
        {"ROWS": 2, "BLOCK_N": 8192, "num_warps": 8, "num_stages": 1, "why": "a large accumulator: registers"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_rows", "n_cols"])
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        mask = (rows[:, None] < n_rows) & (start + cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride_row + start + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


tritonscope_defaults = {"x_ptr": "*bf16", "out_ptr": "*fp32", "n_rows": 32768, "n_cols": 8192, "stride_row": 8192}


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="32768x8192", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims = dimensions(LAUNCH_SET, size)
    return (torch.randn(dims["n_rows"], dims["n_cols"], device=device, dtype=dtype_of(LAUNCH_SET, size)),)


def launcher(x, **config) -> Launch:
    import torch

    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    scalars = {"n_rows": x.shape[0], "n_cols": x.shape[1], "stride_row": x.stride(0)}
    launch_grid = grid({**scalars, **config})
    return Launch(lambda: row_sum_kernel.fn[launch_grid](x, out, **scalars, **config), out, launch_grid, scalars)


def launch(x, **config):
    return run_once(LAUNCH_SET, launcher, (x,), config)


def reference(x):
    return x.float().sum(dim=1)


def work(x):
    from launch_set import declared_work

    return declared_work(LAUNCH_SET, {"n_rows": x.shape[0], "n_cols": x.shape[1]}, x.element_size())
