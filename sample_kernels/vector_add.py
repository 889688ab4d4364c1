"""Vector addition: each program adds one BLOCK_SIZE-wide slice of two vectors."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(
    x_ptr,  # pointer to the first input vector
    y_ptr,  # pointer to the second input vector
    output_ptr,  # pointer to the output vector
    n_elements,  # size of the vectors
    BLOCK_SIZE: tl.constexpr,  # elements each program handles; a power of two
):
    # Programs are laid out on a 1-D grid of cdiv(n_elements, BLOCK_SIZE) instances.
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # The last program may run past the end of the vectors: mask those lanes off.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


# What `tritonscope dump sample:vector_add` compiles when given no flags.
tritonscope_defaults = {"n_elements": 98432, "BLOCK_SIZE": 1024}


def grid(meta):
    """The launch grid for given argument and constexpr values (used by `tritonscope grid`)."""
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


def make_inputs(size=2**26, device="cuda"):  # 256 MiB a vector: enough to fill a GPU
    import torch

    return torch.rand(size, device=device), torch.rand(size, device=device)


def launch(x, y, BLOCK_SIZE=1024):
    import torch

    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return output


def reference(x, y):
    return x + y


def torch_op(x, y):
    """What one would write in torch: the speed to compare with."""
    return x + y


def work(x, y):
    """Floating-point operations and bytes moved by one launch."""
    return {"flops": x.numel(), "bytes": 3 * x.numel() * x.element_size()}
