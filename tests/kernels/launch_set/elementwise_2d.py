"""A bias and GELU over a bf16 matrix, out = gelu(x + bias[col]), in 2-D tiles of BLOCK_M rows by
BLOCK_N columns, one per program. DRAM-bound; its configs differ by the width of the tile's rows
(BLOCK_N bf16: 16 columns are 32-byte segments, 512 full 1-KiB runs), so by the vector width and
the sectors each warp touches, by rows per tile and by warps. At 1000 columns a row is 2000 bytes:
no row after the first starts on a 16-byte boundary, so Triton cannot prove 16-byte accesses
there (the stride is not divisible by 16) whatever the tile."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "elementwise, 2-D tiles",
    "held_out": False,
    "kernel": "bias_gelu_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "65536x4096": {"n_rows": 65536, "n_cols": 4096},
        "262144x1000": {"n_rows": 262144, "n_cols": 1000},
        "512x4096": {"n_rows": 512, "n_cols": 4096},
    },
    "cpu_sizes": {"tiny": {"n_rows": 37, "n_cols": 50}},
    "work": {"flops": "10 * n_rows * n_cols", "bytes": "(2 * n_rows * n_cols + n_cols) * itemsize"},
    "grid": ["cdiv(n_rows, BLOCK_M)", "cdiv(n_cols, BLOCK_N)", "1"],
    "configs": [
        {"BLOCK_M": 1, "BLOCK_N": 4096, "num_warps": 8, "num_stages": 1, "why": "a row a program, 16 a thread"},
        {"BLOCK_M": 16, "BLOCK_N": 256, "num_warps": 4, "num_stages": 1, "why": "512-byte row segments"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4, "num_stages": 1, "why": "128-byte row segments"},
        {"BLOCK_M": 128, "BLOCK_N": 16, "num_warps": 4, "num_stages": 1, "why": "32-byte row segments: narrow"},
        {"BLOCK_M": 256, "BLOCK_N": 8, "num_warps": 4, "num_stages": 1, "why": "16-byte row segments: narrowest"},
        {"BLOCK_M": 32, "BLOCK_N": 128, "num_warps": 4, "num_stages": 1, "why": "256-byte row segments"},
        {"BLOCK_M": 8, "BLOCK_N": 512, "num_warps": 4, "num_stages": 1, "why": "1-KiB row segments"},
        {"BLOCK_M": 4, "BLOCK_N": 1024, "num_warps": 8, "num_stages": 1, "why": "2-KiB row segments, 8 warps"},
        {"BLOCK_M": 2, "BLOCK_N": 2048, "num_warps": 2, "num_stages": 1, "why": "two warps, 64 a thread"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_rows", "n_cols"])
@triton.jit
def bias_gelu_kernel(
    x_ptr, bias_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None] * stride_row + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    x += tl.load(bias_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)[None, :]
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


tritonscope_defaults = {
    "x_ptr": "*bf16", "bias_ptr": "*bf16", "out_ptr": "*bf16", "n_rows": 65536, "n_cols": 4096, "stride_row": 4096,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="65536x4096", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims, dtype = dimensions(LAUNCH_SET, size), dtype_of(LAUNCH_SET, size)
    x = torch.randn(dims["n_rows"], dims["n_cols"], device=device, dtype=dtype)
    return x, torch.randn(dims["n_cols"], device=device, dtype=dtype)


def launcher(x, bias, **config) -> Launch:
    import torch

    out = torch.empty_like(x)
    scalars = {"n_rows": x.shape[0], "n_cols": x.shape[1], "stride_row": x.stride(0)}
    launch_grid = grid({**scalars, **config})
    run = lambda: bias_gelu_kernel.fn[launch_grid](x, bias, out, **scalars, **config)  # noqa: E731
    return Launch(run, out, launch_grid, scalars)


def launch(x, bias, **config):
    return run_once(LAUNCH_SET, launcher, (x, bias), config)


def reference(x, bias):
    import torch

    return torch.nn.functional.gelu(x.float() + bias.float())


def work(x, bias):
    from launch_set import declared_work

    return declared_work(LAUNCH_SET, {"n_rows": x.shape[0], "n_cols": x.shape[1]}, x.element_size())
