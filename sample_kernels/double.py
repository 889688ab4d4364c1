"""Doubling: y = 2 * x, the smallest kernel to read the generated code of."""

import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x * 2, mask=mask)


tritonscope_defaults = {"n_elements": 4096, "BLOCK_SIZE": 1024}


def grid(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


def make_inputs(size=2**26, device="cuda"):  # 256 MiB: enough to fill a GPU
    import torch

    return (torch.randn(size, device=device),)


def launch(x, BLOCK_SIZE=1024):
    import torch

    output = torch.empty_like(x)
    n_elements = output.numel()
    double_kernel[(triton.cdiv(n_elements, BLOCK_SIZE),)](x, output, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return output


def reference(x):
    return 2 * x


def torch_op(x):
    return 2 * x


def work(x):
    return {"flops": x.numel(), "bytes": 2 * x.numel() * x.element_size()}
