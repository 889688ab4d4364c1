"""A row softmax of a bf16 matrix, each row held whole in registers (BLOCK_N, the power of two
at or above the row's length, is set by the size, not by a config), ROWS rows a program one after
the other. DRAM-bound while the row fits in registers; a long row over few warps spills. Its
configs differ by warps per row (the elements and registers each thread holds: occupancy and
spills), rows per program (fewer blocks, more work each) and pipeline depth."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "softmax, rows",
    "held_out": True,
    "kernel": "softmax_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "32768x4096": {"n_rows": 32768, "n_cols": 4096},
        "4096x32768": {"n_rows": 4096, "n_cols": 32768},
        "65536x1000": {"n_rows": 65536, "n_cols": 1000},
    },
    "cpu_sizes": {"tiny": {"n_rows": 9, "n_cols": 100}},
    "work": {"flops": "5 * n_rows * n_cols", "bytes": "2 * n_rows * n_cols * itemsize"},
    "grid": ["cdiv(n_rows, ROWS)", "1", "1"],
    "configs": [
        {"ROWS": 1, "num_warps": 4, "num_stages": 1, "why": "4 warps a row"},
        {"ROWS": 1, "num_warps": 8, "num_stages": 1, "why": "8 warps a row"},
        {"ROWS": 1, "num_warps": 16, "num_stages": 1, "why": "16 warps a row: few elements a thread"},
        {"ROWS": 1, "num_warps": 32, "num_stages": 1, "why": "32 warps a row: one block fills an SM's threads"},
        {"ROWS": 1, "num_warps": 1, "num_stages": 1, "why": "one warp a row: 1024 a thread at 32768, spills"},
        {"ROWS": 1, "num_warps": 2, "num_stages": 1, "why": "two warps a row"},
        {"ROWS": 4, "num_warps": 8, "num_stages": 1, "why": "4 rows a program: a quarter of the blocks"},
        {"ROWS": 2, "num_warps": 8, "num_stages": 1, "why": "2 rows a program"},
        {"ROWS": 8, "num_warps": 16, "num_stages": 1, "why": "8 rows a program, 16 warps"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_rows", "n_cols"])
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.arange(0, BLOCK_N)
    for i in tl.static_range(ROWS):
        row = tl.program_id(0) * ROWS + i
        # the row's bound as one scalar: Triton 3.9's interpreter refuses the mask of a block `&` a
        # scalar comparison (`mask has unsupported dtype`); this is the same bound, one select earlier
        mask = cols < tl.where(row < n_rows, n_cols, 0)
        x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * stride_row + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


tritonscope_defaults = {
    "x_ptr": "*bf16", "out_ptr": "*bf16", "n_rows": 32768, "n_cols": 4096, "stride_row": 4096, "BLOCK_N": 4096,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="32768x4096", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims = dimensions(LAUNCH_SET, size)
    return (torch.randn(dims["n_rows"], dims["n_cols"], device=device, dtype=dtype_of(LAUNCH_SET, size)) * 4,)


def launcher(x, **config) -> Launch:
    import torch

    out = torch.empty_like(x)
    scalars = {"n_rows": x.shape[0], "n_cols": x.shape[1], "stride_row": x.stride(0)}
    block_n = triton.next_power_of_2(x.shape[1])
    launch_grid = grid({**scalars, **config})
    run = lambda: softmax_kernel.fn[launch_grid](x, out, **scalars, BLOCK_N=block_n, **config)  # noqa: E731
    return Launch(run, out, launch_grid, {**scalars, "BLOCK_N": block_n})


def launch(x, **config):
    return run_once(LAUNCH_SET, launcher, (x,), config)


def reference(x):
    return x.float().softmax(dim=-1)


def work(x):
    from launch_set import declared_work

    return declared_work(LAUNCH_SET, {"n_rows": x.shape[0], "n_cols": x.shape[1]}, x.element_size())
