"""A row-wise kernel whose row length is a constexpr, as Liger's swiglu declares it: launched at two
row lengths, it compiles twice. The length is compared against in the mask, so bucketing it (as a
block size is bucketed) would read and write past each row; its stride, a constexpr as unsloth's
are, bucketed would address other rows: tests/test_recompiles.py."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, stride: tl.constexpr, n_cols: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK)
    mask = col_offsets < n_cols
    x = tl.load(x_ptr + row * stride + col_offsets, mask=mask)
    tl.store(x_ptr + row * stride + col_offsets, x * 2, mask=mask)


def launch(cols: int) -> None:
    x = torch.ones(8, cols, device="cuda")
    scale_rows[(8,)](x, x.stride(0), x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))


if __name__ == "__main__":
    launch(4096)
    launch(4100)
