"""A plain Triton program with several kinds of kernel, for `trace` on an H100 and `trace --target sm90`
on a CPU: their captures must agree (tests/test_trace_target.py). It reads no value back, so the
simulated run goes to the end. Kinds: elementwise (aligned and misaligned views, sizes divisible by
16 or not, the value 1), a row reduction, @triton.heuristics, @triton.autotune over a tl.dot matmul,
a None argument, a host TMA TensorDescriptor, and a torch.library.triton_op called eagerly."""

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

try:
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # an older Triton: no host descriptors
    TensorDescriptor = None


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * stride, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * scale)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


@triton.autotune(
    configs=[
        triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4, num_stages=3),
        triton.Config({"BM": 128, "BN": 64, "BK": 32}, num_warps=8, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(a, b)
    if bias_ptr is not None:
        acc += tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))


@triton.jit
def tma_copy_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    out_desc.store([m, n], in_desc.load([m, n]) * 2)


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


@triton_op("tritonscope_fidelity::double", mutates_args={})
def double(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(double_kernel)[(triton.cdiv(x.numel(), 512),)](x, out, x.numel(), BLOCK=512)
    return out


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(8192, device="cuda")
    y = torch.randn(8192, device="cuda")
    out = torch.empty_like(x)
    add_kernel[(8,)](x, y, out, 8192, 1, BLOCK=1024)  # aligned, n % 16 == 0, stride == 1
    add_kernel[(8,)](x[1:], y, out, 8191, 1, BLOCK=1024)  # a misaligned view, n not divisible
    add_kernel[(4,)](x, y, out, 4096, 2, BLOCK=1024)  # a stride of 2

    rows = torch.randn(300, 781, device="cuda")
    probabilities = torch.empty_like(rows)
    softmax_kernel[(300,)](probabilities, rows, rows.stride(0), probabilities.stride(0), 781, BLOCK=1024)

    scale_kernel[(16,)](x, out, 8192, 0.5, BLOCK=512)  # EVEN
    scale_kernel[(16,)](x, out, 8000, 0.5, BLOCK=512)  # not EVEN

    a = torch.randn(512, 256, device="cuda", dtype=torch.float16)
    b = torch.randn(256, 384, device="cuda", dtype=torch.float16)
    c = torch.empty(512, 384, device="cuda", dtype=torch.float16)
    bias = torch.randn(384, device="cuda", dtype=torch.float32)

    def grid(meta):
        return (triton.cdiv(512, meta["BM"]), triton.cdiv(384, meta["BN"]))

    matmul_kernel[grid](a, b, c, bias, 512, 384, 256, *a.stride(), *b.stride(), *c.stride())
    matmul_kernel[grid](a, b, c, None, 512, 384, 256, *a.stride(), *b.stride(), *c.stride())  # bias None

    if TensorDescriptor is not None and torch.cuda.get_device_capability()[0] >= 9:
        src = torch.randn(256, 128, device="cuda", dtype=torch.float16)
        dst = torch.empty_like(src)
        source, destination = (TensorDescriptor.from_tensor(t, [64, 64]) for t in (src, dst))
        tma_copy_kernel[(4, 2)](source, destination, BM=64, BN=64)

    double(torch.randn(4096, device="cuda"))
    torch.cuda.synchronize()
    print("fidelity triton program: done")


if __name__ == "__main__":
    main()
