"""An embedding lookup, out[i, :] = table[index[i], :], bf16 rows at random indices: each program
takes ROWS indices and copies their rows BLOCK_D columns at a time. DRAM-bound, each row one
contiguous run (1 KiB or 8 KiB) at an address no other block shares. Its configs differ by the
bytes each thread moves per access (BLOCK_D over the block's threads), rows per program (so bytes
in flight per block) and warps per block."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "gather",
    "held_out": False,
    "kernel": "gather_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.0,
    "sizes": {
        "1Mx512_131072": {"n_table": 1048576, "dim": 512, "n_index": 131072},
        "64Kx4096_16384": {"n_table": 65536, "dim": 4096, "n_index": 16384},
        "32Kx1024_2048": {"n_table": 32768, "dim": 1024, "n_index": 2048},
    },
    "cpu_sizes": {"tiny": {"n_table": 100, "dim": 40, "n_index": 30}},
    "work": {"flops": "0", "bytes": "2 * n_index * dim * itemsize + n_index * 8"},
    "grid": ["cdiv(n_index, ROWS)", "1", "1"],
    "configs": [
        {"ROWS": 1, "BLOCK_D": 512, "num_warps": 4, "num_stages": 1, "why": "a row a block: 8-byte accesses"},
        {"ROWS": 1, "BLOCK_D": 512, "num_warps": 1, "num_stages": 1, "why": "one warp a row: 16 a thread"},
        {"ROWS": 4, "BLOCK_D": 512, "num_warps": 4, "num_stages": 1, "why": "4 rows a block: 16 a thread"},
        {"ROWS": 16, "BLOCK_D": 512, "num_warps": 8, "num_stages": 1, "why": "16 rows a block: 32 a thread"},
        {"ROWS": 1, "BLOCK_D": 128, "num_warps": 1, "num_stages": 1, "why": "4 a thread, a loop over the row"},
        {"ROWS": 8, "BLOCK_D": 256, "num_warps": 4, "num_stages": 1, "why": "8 rows, 256 columns at a time"},
        {"ROWS": 1, "BLOCK_D": 4096, "num_warps": 8, "num_stages": 1, "why": "a whole long row at once: 16 a thread"},
        {"ROWS": 2, "BLOCK_D": 1024, "num_warps": 4, "num_stages": 1, "why": "2 rows, 16 a thread"},
        {"ROWS": 32, "BLOCK_D": 64, "num_warps": 4, "num_stages": 1, "why": "32 rows of 128-byte pieces"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_index", "dim"])
@triton.jit
def gather_kernel(table_ptr, index_ptr, out_ptr, n_index, dim, stride_table, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    index = tl.load(index_ptr + rows, mask=rows < n_index, other=0)
    cols = tl.arange(0, BLOCK_D)
    for start in range(0, dim, BLOCK_D):
        mask = (rows[:, None] < n_index) & (start + cols[None, :] < dim)
        values = tl.load(table_ptr + index[:, None] * stride_table + start + cols[None, :], mask=mask)
        tl.store(out_ptr + rows[:, None] * dim + start + cols[None, :], values, mask=mask)


tritonscope_defaults = {
    "table_ptr": "*bf16", "index_ptr": "*i64", "out_ptr": "*bf16", "n_index": 131072, "dim": 512, "stride_table": 512,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="1Mx512_131072", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims = dimensions(LAUNCH_SET, size)
    table = torch.randn(dims["n_table"], dims["dim"], device=device, dtype=dtype_of(LAUNCH_SET, size))
    generator = torch.Generator().manual_seed(52)  # drawn on the host: the same rows on every device
    index = torch.randint(0, dims["n_table"], (dims["n_index"],), generator=generator).to(device)
    return table, index


def launcher(table, index, **config) -> Launch:
    import torch

    out = torch.empty(index.numel(), table.shape[1], device=table.device, dtype=table.dtype)
    scalars = {"n_index": index.numel(), "dim": table.shape[1], "stride_table": table.stride(0)}
    launch_grid = grid({**scalars, **config})
    run = lambda: gather_kernel.fn[launch_grid](table, index, out, **scalars, **config)  # noqa: E731
    return Launch(run, out, launch_grid, scalars)


def launch(table, index, **config):
    return run_once(LAUNCH_SET, launcher, (table, index), config)


def reference(table, index):
    return table[index]


def work(table, index):
    from launch_set import declared_work

    sizes = {"n_table": table.shape[0], "dim": table.shape[1], "n_index": index.numel()}
    return declared_work(LAUNCH_SET, sizes, table.element_size())
