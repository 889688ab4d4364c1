"""A small training program, for `trace` on an H100 and `trace --target sm90` on a CPU
(tests/test_train_target.py): one step of each kind a training loop takes.

1. eager: an MLP whose activation is a custom autograd.Function calling a Triton kernel forward and
   another backward, `loss.backward()`, and AdamW (foreach off);
2. torch.compile of a pre-norm block whose parameters require grad: AOTAutograd splits forward and
   backward, and Inductor writes kernels for both; `loss.backward()` outside the compiled function,
   SGD with momentum (foreach on);
3. `loss.backward()` inside a compiled function (a graph break: the backward runs the compiled
   forward's backward graph), and a fused AdamW step;
4. a compiled optimizer step: `torch.compile` of Adam's `step()` (foreach), whose state
   torch._dynamo initialises and whose constants Inductor folds before it writes the kernels.
It reads no value back."""

import torch
import triton
import triton.language as tl


@triton.jit
def silu_forward_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(out_ptr + offsets, x * tl.sigmoid(x), mask=mask)


@triton.jit
def silu_backward_kernel(x_ptr, grad_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    grad = tl.load(grad_ptr + offsets, mask=mask).to(tl.float32)
    s = tl.sigmoid(x)
    tl.store(out_ptr + offsets, grad * s * (1 + x * (1 - s)), mask=mask)


class TritonSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        silu_forward_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        grad = grad.contiguous()
        out = torch.empty_like(x)
        silu_backward_kernel[(triton.cdiv(x.numel(), 512),)](x, grad, out, x.numel(), BLOCK=512)
        return out


class MLP(torch.nn.Module):
    def __init__(self, width: int = 256, hidden: int = 768):
        super().__init__()
        self.up = torch.nn.Linear(width, hidden)
        self.down = torch.nn.Linear(hidden, width)

    def forward(self, x):
        return self.down(TritonSiLU.apply(self.up(x)))


class Block(torch.nn.Module):
    def __init__(self, width: int = 256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def eager_step() -> None:
    model = MLP().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)
    x, target = torch.randn(48, 256, device="cuda"), torch.randn(48, 256, device="cuda")
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def compiled_step() -> None:
    model = Block().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, foreach=True)
    compiled = torch.compile(model)
    loss = compiled(torch.randn(8, 64, 256, device="cuda")).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def backward_inside_compile() -> None:
    model = MLP().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)

    @torch.compile
    def step(x):
        loss = model(x).square().mean()
        loss.backward()
        return loss

    step(torch.randn(32, 256, device="cuda"))
    optimizer.step()


def compiled_optimizer_step() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 128)).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.01)
    model(torch.randn(16, 256, device="cuda")).square().mean().backward()

    @torch.compile
    def step():
        optimizer.step()

    step()


def main() -> None:
    torch.manual_seed(0)
    eager_step()
    compiled_step()
    backward_inside_compile()
    compiled_optimizer_step()
    torch.cuda.synchronize()
    print("fidelity train program: done")


if __name__ == "__main__":
    main()
