"""Launches its kernels only where a learner finds them by running the file's tests and benchmarks,
as Triton's fused-attention tutorial does; one more only in a function nothing calls."""

import pytest
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


class Square:
    """An operation given to a kernel as a class (as Gluon's tutorials give their MMA abstraction)."""

    @staticmethod
    @triton.jit
    def apply(x):
        return x * x


@triton.jit
def square_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, OP.apply(x), mask=mask)


@triton.jit
def negate_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def scale(x, factor):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), factor, BLOCK=256)
    return out


@pytest.mark.parametrize("n", [98432, 4096, 1000])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_scale(n, dtype):
    x = torch.randn(n, device=DEVICE, dtype=dtype)
    torch.testing.assert_close(scale(x, 0.5), x * 0.5)


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["size"],
        x_vals=[2**i for i in range(16, 11, -1)],
        line_arg="provider",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        plot_name="square-performance",
        args={"dtype": torch.bfloat16},
    )
)
def bench_square(size, provider, dtype):
    x = torch.randn(size, device=DEVICE, dtype=dtype)
    out = torch.empty_like(x)
    if provider == "torch":
        return triton.testing.do_bench(lambda: x * x)
    return triton.testing.do_bench(lambda: square_kernel[(triton.cdiv(size, 512),)](x, out, size, OP=Square, BLOCK=512))


def negate_in_place(x):
    negate_kernel[(triton.cdiv(x.numel(), 128),)](x, x.numel(), BLOCK=128)
