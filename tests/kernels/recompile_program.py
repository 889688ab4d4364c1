"""A program whose kernels compile again after its warmup, each for one of Triton's specialization
rules (tests/test_recompiles.py): the warmup launches each kernel once, `tritonscope.mark("warmup")`
(or, with --env-mark, $TRITONSCOPE_MARK) ends it, then each kernel is launched so that it compiles
again: n divisible by 16 then not, a 1, a view that is not 16-byte aligned, None for an optional
pointer, a new dtype, a BLOCK_SIZE = triton.next_power_of_2(n_cols) that grows, an n past 32 bits,
other num_warps; an autotuned kernel compiles its two configs. With --no-late the program launches
after the mark only what its warmup compiled. With --torch, a torch.compile'd function (dynamic=None)
is called with a second sequence length after the mark: its guard on the size fails."""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompile_kernels as k  # noqa: E402

late = "--no-late" not in sys.argv
x = torch.randn(8192, device="cuda")
out = torch.empty_like(x)


def mark() -> None:
    if "--env-mark" in sys.argv:  # as a program that cannot call tritonscope.mark would
        from tritonscope.capture_hook.tritonscope_contract import ENV_MARK

        os.environ[ENV_MARK] = "warmup"
    else:
        import tritonscope

        tritonscope.mark("warmup")


def row_softmax(n_cols: int) -> None:
    rows = torch.randn(4, n_cols, device="cuda")
    k.row_kernel[(4,)](rows, rows, n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols))


def launches(n: int, rows: int, view: torch.Tensor, bias, dtype, cols: int, wide: int, warps: int) -> None:
    k.divisible_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    k.one_kernel[(1,)](x, out, rows, BLOCK=128)
    k.aligned_kernel[(1,)](view, out, 100, BLOCK=128)
    k.bias_kernel[(1,)](x, bias, out, 100, BLOCK=128)
    typed = x.to(dtype)
    k.dtype_kernel[(8,)](typed, torch.empty_like(typed), 1000, BLOCK=128)
    row_softmax(cols)
    k.wide_kernel[(1,)](x, wide, BLOCK=128)
    k.warps_kernel[(8,)](x, out, 1000, BLOCK=128, num_warps=warps)
    k.tuned_kernel[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](x, out, 4096)


launches(4096, 8, x, x, torch.float32, 1000, 100, 4)
if "--torch" in sys.argv:
    compiled_torch = torch.compile(lambda h: h * 2.0 + 1.0, dynamic=None)
    compiled_torch(torch.randn(4, 16, 32, device="cuda"))
mark()
if late:
    launches(4099, 1, x[1:], None, torch.float16, 1500, 2**31 + 5, 8)
    if "--torch" in sys.argv:
        compiled_torch(torch.randn(4, 48, 32, device="cuda"))
        # another function of the same body: its generated kernel has the same name, and is another kernel
        torch.compile(lambda h, a: h * a + 1.0, dynamic=False)(torch.randn(4, 24, 32, device="cuda"), 2.0)
else:
    launches(4096, 8, x, x, torch.float32, 1000, 100, 4)
print("recompile_program: done")
