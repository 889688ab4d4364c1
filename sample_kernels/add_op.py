"""Vector addition exposed to PyTorch as a custom operator with torch.library.triton_op."""

import functools

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@functools.cache
def add_op():
    """Registers and returns the operator `tritonscope::add`.

    Registered on first use rather than at import, so that inspecting this file with
    tritonscope never imports torch.
    """
    import torch
    from torch.library import triton_op, wrap_triton

    @triton_op("tritonscope::add", mutates_args=())
    def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        output = torch.empty_like(x)
        n_elements = output.numel()
        # wrap_triton makes the launch traceable by torch.compile and friends.
        wrap_triton(add_kernel)[(triton.cdiv(n_elements, 1024),)](x, y, output, n_elements, BLOCK_SIZE=1024)
        return output

    return add


tritonscope_defaults = {"n_elements": 98432, "BLOCK_SIZE": 1024}


def grid(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


def make_inputs(size=2**26, device="cuda"):  # 256 MiB a vector: enough to fill a GPU
    import torch

    return torch.rand(size, device=device), torch.rand(size, device=device)


def launch(x, y):
    return add_op()(x, y)


def reference(x, y):
    return x + y


def torch_op(x, y):
    return x + y


def work(x, y):
    return {"flops": x.numel(), "bytes": 3 * x.numel() * x.element_size()}
