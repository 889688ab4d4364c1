"""A gated activation over a flat bf16 tensor, out = silu(a) * b, one block of BLOCK elements per
program: two reads and a write, DRAM-bound at the large size; at the small size (6 MiB moved)
the launch, the tail and the few blocks per SM decide. Its configs differ by the elements each
thread holds (BLOCK over the block's threads: 2 bf16 is a 4-byte access, 8 a 16-byte one, 64 and
up need many registers), warps per block and the number of blocks."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "elementwise, flat",
    "held_out": False,
    "kernel": "silu_mul_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {"2^28": {"n_elements": 268435456}, "2^20": {"n_elements": 1048576}, "10^8+3": {"n_elements": 100000003}},
    "cpu_sizes": {"tiny": {"n_elements": 5000}},
    "work": {"flops": "4 * n_elements", "bytes": "3 * n_elements * itemsize"},
    "grid": ["cdiv(n_elements, BLOCK)", "1", "1"],
    "configs": [
        {"BLOCK": 1024, "num_warps": 4, "num_stages": 1, "why": "8 a thread: 16-byte accesses"},
        {"BLOCK": 4096, "num_warps": 4, "num_stages": 1, "why": "32 a thread: four 16-byte accesses each"},
        {"BLOCK": 256, "num_warps": 4, "num_stages": 1, "why": "2 a thread: 4-byte accesses"},
        {"BLOCK": 128, "num_warps": 1, "num_stages": 1, "why": "4 a thread, one warp: very many small blocks"},
        {"BLOCK": 512, "num_warps": 1, "num_stages": 1, "why": "16 a thread, one warp a block"},
        {"BLOCK": 8192, "num_warps": 8, "num_stages": 1, "why": "32 a thread, 8 warps"},
        {"BLOCK": 16384, "num_warps": 16, "num_stages": 1, "why": "32 a thread, 16 warps: few blocks at 2^20"},
        {"BLOCK": 2048, "num_warps": 8, "num_stages": 1, "why": "8 a thread, 8 warps"},
        {"BLOCK": 65536, "num_warps": 8, "num_stages": 1, "why": "256 a thread: registers spill, 16 blocks at 2^20"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["n_elements"])
@triton.jit
def silu_mul_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offsets, (a * tl.sigmoid(a) * b).to(out_ptr.dtype.element_ty), mask=mask)


tritonscope_defaults = {"a_ptr": "*bf16", "b_ptr": "*bf16", "out_ptr": "*bf16", "n_elements": 268435456}


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="2^28", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    n, dtype = dimensions(LAUNCH_SET, size)["n_elements"], dtype_of(LAUNCH_SET, size)
    return torch.randn(n, device=device, dtype=dtype), torch.randn(n, device=device, dtype=dtype)


def launcher(a, b, **config) -> Launch:
    import torch

    out = torch.empty_like(a)
    scalars = {"n_elements": a.numel()}
    launch_grid = grid({**scalars, **config})
    return Launch(lambda: silu_mul_kernel.fn[launch_grid](a, b, out, **scalars, **config), out, launch_grid, scalars)


def launch(a, b, **config):
    return run_once(LAUNCH_SET, launcher, (a, b), config)


def reference(a, b):
    import torch

    return torch.nn.functional.silu(a.float()) * b.float()


def work(a, b):
    from launch_set import declared_work

    return declared_work(LAUNCH_SET, {"n_elements": a.numel()}, a.element_size())
