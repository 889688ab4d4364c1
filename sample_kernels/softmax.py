"""Row-wise softmax: one program loads a whole row into registers and normalizes it."""

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(
    output_ptr,
    input_ptr,
    input_row_stride,  # elements between the starts of two rows
    output_row_stride,
    n_cols,
    BLOCK_SIZE: tl.constexpr,  # the smallest power of two >= n_cols
):
    # Rows are independent, so each program instance normalizes one row.
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    # BLOCK_SIZE may exceed n_cols: pad with -inf, which exp() turns into 0.
    row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float("inf"))
    # Subtract the maximum for numerical stability.
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


tritonscope_defaults = {"input_row_stride": 781, "output_row_stride": 781, "n_cols": 781, "BLOCK_SIZE": 1024}


def make_inputs(size=2**17, device="cuda"):  # 400 MB: enough to fill a GPU
    """A (size, 781) matrix: the tutorial's shape, whose row length is no power of two."""
    import torch

    return (torch.randn(size, 781, device=device),)


def launch(x, num_warps=4):
    import torch

    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    block_size = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=block_size, num_warps=num_warps)
    return y


def reference(x):
    import torch

    return torch.softmax(x, dim=1)


def torch_op(x):
    import torch

    return torch.softmax(x, dim=1)


def work(x):
    return {"flops": 5 * x.numel(), "bytes": 2 * x.numel() * x.element_size()}
