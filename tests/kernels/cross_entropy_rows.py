"""A row's cross-entropy gradient in passes over it, as Liger's cross-entropy computes it: a loop
that zeroes an ignored row, then the row's max and sum, then each element written. Three loops in a
row, the last one's store read-scoreboard waited for at the top of its next iteration. Its time
model test: tests/test_line_time.py."""

import triton
import triton.language as tl


@triton.jit
def cross_entropy_rows(x_ptr, stride, y_ptr, loss_ptr, n_cols, n_non_ignore, ignore_index, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    y = tl.load(y_ptr + pid)
    x_ptr += pid * stride
    if y == ignore_index:
        for i in range(0, n_cols, BLOCK):
            o = i + tl.arange(0, BLOCK)
            tl.store(x_ptr + o, 0.0, mask=o < n_cols)
        return
    m = float("-inf")
    d = 0.0
    ori = tl.load(x_ptr + y).cast(tl.float32)
    for i in range(0, n_cols, BLOCK):
        o = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + o, mask=o < n_cols, other=float("-inf")).cast(tl.float32)
        mn = tl.maximum(m, tl.max(x))
        d = d * tl.exp2((m - mn) * 1.4426950408889634) + tl.sum(tl.exp2((x - mn) * 1.4426950408889634))
        m = mn
    lse = m + tl.log(d)
    for i in range(0, n_cols, BLOCK):
        o = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + o, mask=o < n_cols, other=float("-inf")).cast(tl.float32)
        tl.store(x_ptr + o, tl.exp2((x - m) * 1.4426950408889634) / d / n_non_ignore, mask=o < n_cols)
    tl.store(x_ptr + y, (tl.exp2((ori - m) * 1.4426950408889634) / d - 1.0) / n_non_ignore)
    tl.store(loss_ptr + pid, (lse - ori) / n_non_ignore)


tritonscope_defaults = {
    "x_ptr": "*bf16", "stride": 128256, "y_ptr": "*i64", "loss_ptr": "*fp32", "n_cols": 128256,
    "n_non_ignore": 8192, "ignore_index": -100, "BLOCK": 32768, "num_warps": 32,
}  # fmt: skip
