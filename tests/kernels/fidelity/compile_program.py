"""A small torch.compile inference program, for `trace` on an H100 and `trace --target sm90` on a
CPU (tests/test_trace_target.py): a pre-norm MLP block with a residual, and a user triton_op
called from the compiled function. It reads no value back."""

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def square_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * x, mask=mask)


@triton_op("tritonscope_fidelity::square", mutates_args={})
def square(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(square_kernel)[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


class Block(torch.nn.Module):
    def __init__(self, width: int = 256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return torch.softmax(square(x + h), dim=-1)


def main() -> None:
    """`--mode MODE` compiles the block in another torch.compile mode: benchmarks/trace_target.py
    takes max-autotune-no-cudagraphs, whose matmul templates make Triton's compiles most of the
    work. (Imported here: a line added above the kernel would move the PTX's line numbers away
    from the H100 fixture's.)"""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default=None, help="torch.compile's mode (default: its own default)")
    mode = parser.parse_args().mode
    torch.manual_seed(0)
    model = Block().cuda().eval()
    compiled = torch.compile(model, mode=mode)
    with torch.no_grad():
        compiled(torch.randn(4, 64, 256, device="cuda"))
    torch.cuda.synchronize()
    print("fidelity compile program: done")


if __name__ == "__main__":
    main()
