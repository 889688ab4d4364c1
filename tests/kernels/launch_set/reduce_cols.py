"""Sums along columns of a bf16 matrix, out[n] = sum_m x[m, n] in fp32: a program takes BLOCK_N
columns and one of SPLIT_M slices of the rows, walks them BLOCK_M rows at a time and adds its
partial sums into the output atomically (the launcher zeroes it). Its configs differ by the bytes
each row segment spans (BLOCK_N bf16: 64 bytes is two sectors, 512 is a full line's worth four
times), the number of blocks (column blocks times SPLIT_M, against 132 SMs: 64 column blocks
alone leave half the SMs idle) and the tile in registers."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "reduction along columns",
    "held_out": True,
    "kernel": "col_sum_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.001,
    "sizes": {
        "16384x16384": {"n_rows": 16384, "n_cols": 16384},
        "65536x1024": {"n_rows": 65536, "n_cols": 1024},
        "2048x4096": {"n_rows": 2048, "n_cols": 4096},
    },
    "cpu_sizes": {"tiny": {"n_rows": 50, "n_cols": 70}},
    "work": {"flops": "n_rows * n_cols", "bytes": "n_rows * n_cols * itemsize + n_cols * 4"},
    "grid": ["cdiv(n_cols, BLOCK_N)", "SPLIT_M", "1"],
    "configs": [
        {"BLOCK_M": 32, "BLOCK_N": 256, "SPLIT_M": 1, "num_warps": 4, "num_stages": 1,
         "why": "no split: one block per 256 columns"},
        {"BLOCK_M": 16, "BLOCK_N": 512, "SPLIT_M": 1, "num_warps": 4, "num_stages": 1,
         "why": "no split, wider segments: half the blocks"},
        {"BLOCK_M": 32, "BLOCK_N": 128, "SPLIT_M": 4, "num_warps": 4, "num_stages": 1,
         "why": "rows split in 4: more blocks"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "SPLIT_M": 8, "num_warps": 4, "num_stages": 1,
         "why": "128-byte row segments, split in 8"},
        {"BLOCK_M": 32, "BLOCK_N": 32, "SPLIT_M": 16, "num_warps": 4, "num_stages": 1,
         "why": "64-byte row segments: half of each 128-byte line fetched per load"},
        {"BLOCK_M": 8, "BLOCK_N": 1024, "SPLIT_M": 4, "num_warps": 8, "num_stages": 1, "why": "wide rows, short tile"},
        {"BLOCK_M": 32, "BLOCK_N": 256, "SPLIT_M": 8, "num_warps": 8, "num_stages": 1,
         "why": "the first config split in 8"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "SPLIT_M": 16, "num_warps": 8, "num_stages": 1,
         "why": "a large tile: 64 fp32 a thread"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_rows", "n_cols"], reset_to_zero=["out_ptr"])
@triton.jit
def col_sum_kernel(
    x_ptr, out_ptr, n_rows, n_cols, stride_row,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, SPLIT_M: tl.constexpr,
):  # fmt: skip
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_per_split = tl.cdiv(tl.cdiv(n_rows, SPLIT_M), BLOCK_M) * BLOCK_M
    first = tl.program_id(1) * rows_per_split
    rows = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(first, tl.minimum(first + rows_per_split, n_rows), BLOCK_M):
        mask = (start + rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + (start + rows[:, None]) * stride_row + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < n_cols)


tritonscope_defaults = {"x_ptr": "*bf16", "out_ptr": "*fp32", "n_rows": 16384, "n_cols": 16384, "stride_row": 16384}


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="16384x16384", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims = dimensions(LAUNCH_SET, size)
    return (torch.randn(dims["n_rows"], dims["n_cols"], device=device, dtype=dtype_of(LAUNCH_SET, size)),)


def launcher(x, **config) -> Launch:
    """The output is zeroed here, once: a benchmark's repeated runs add into it (the first run's
    output is the sum; the time of each is the kernel's alone)."""
    import torch

    out = torch.zeros(x.shape[1], device=x.device, dtype=torch.float32)
    scalars = {"n_rows": x.shape[0], "n_cols": x.shape[1], "stride_row": x.stride(0)}
    launch_grid = grid({**scalars, **config})
    return Launch(lambda: col_sum_kernel.fn[launch_grid](x, out, **scalars, **config), out, launch_grid, scalars)


def launch(x, **config):
    return run_once(LAUNCH_SET, launcher, (x,), config)


def reference(x):
    return x.float().sum(dim=0)


def work(x):
    from launch_set import declared_work

    return declared_work(LAUNCH_SET, {"n_rows": x.shape[0], "n_cols": x.shape[1]}, x.element_size())
