"""A program shaped like an inference server (issue 54): a warmup over a few batch sizes, then
REQUESTS requests of random sizes (seeded), each through plain Triton kernels that take sizes as
arguments and a torch.compile'd block with dynamic=None. After the warmup a GPU compiles again,
for Triton's specialization rules and torch.compile's guards:

- `seq_softmax_kernel`: `seq_len` divisible by 16 or not, or equal to 1, and its BLOCK constexpr
  is `triton.next_power_of_2(seq_len)`: each new power of two is a new variant;
- `log_softmax_kernel`: a request asking for log-probabilities gets them in fp32, a new dtype
  for `x_ptr` and `out_ptr` (the warmup ran bf16 only);
- `token_scale_kernel`: `n_tokens` (batch times sequence) divisible by 16, not, or 1, all three
  met in the warmup already: it should not compile again;
- `bias_gelu_kernel`: autotuned (two configs, key `n_cols`, a constant): its configs are compiled
  in the warmup, and its `n_elements` is always a multiple of 16: no compile after;
- `rms_norm_kernel`: sizes constant: no compile after;
- `block`, compiled with dynamic=None: the warmup's batch sizes made the batch dynamic, at one
  sequence length and at 1; a new length, then a batch of 1 at a new length, fail its guards.

The end of the warmup is marked three ways, for whoever watches: `tritonscope.mark("warmup")`
where tritonscope has it, the environment variable SERVE_PHASE set to "serving" (read by
benchmarks/recompile_ground_truth.py's compile hooks, in this process), and one launch of
`end_of_warmup_kernel`, compiled and launched there and nowhere else, so that in a capture's
logs (kernels.jsonl, launches.jsonl, in the order they happened) it divides what came before the
mark from what came after. A line is printed too. Each request's sizes are printed, one line
each, so that what a GPU compiled can be set against the sizes that made it.

    python tests/programs/serve_after_warmup.py [--requests N] [--max-batch B] [--max-seq S]
"""

import argparse
import math
import os
import random

import corpus
import torch
import triton
import triton.language as tl

HIDDEN = 256
VOCAB = 1000
PHASE_VARIABLE = "SERVE_PHASE"
SEED = 54


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps) * w
    tl.store(out_ptr + row * row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.autotune(
    configs=[triton.Config({"BLOCK": 512}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)],
    key=["n_cols"],
    do_bench=corpus.AUTOTUNE_BENCH,
)
@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    x += tl.load(b_ptr + offsets % n_cols, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def token_scale_kernel(x_ptr, out_ptr, n_tokens, scale, H: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.arange(0, H)
    offsets = rows[:, None] * H + cols[None, :]
    mask = rows[:, None] < n_tokens
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, (x.to(tl.float32) * scale).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def seq_softmax_kernel(scores_ptr, out_ptr, seq_len, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < seq_len
    x = tl.load(scores_ptr + row * row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * row_stride + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def log_softmax_kernel(x_ptr, out_ptr, vocab, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < vocab
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=0)
    out = shifted - tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(out_ptr + row * row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def end_of_warmup_kernel(flag_ptr):
    tl.store(flag_ptr, 1)


class Server:
    """The model's weights, and one request's work: the kernels above in order."""

    def __init__(self):
        device, dtype = corpus.DEVICE, torch.bfloat16
        self.norm_weight = torch.ones(HIDDEN, device=device, dtype=dtype)
        self.bias = corpus.host_normal((HIDDEN,), seed=1).to(dtype)
        self.up = (corpus.host_normal((HIDDEN, 2 * HIDDEN), seed=2) / 16).to(dtype)
        self.down = (corpus.host_normal((2 * HIDDEN, HIDDEN), seed=3) / 16).to(dtype)
        self.head = (corpus.host_normal((HIDDEN, VOCAB), seed=4) / 16).to(dtype)
        self.block = corpus.compiled(self.mlp, dynamic=None)

    def mlp(self, h):
        return h + torch.nn.functional.silu(h @ self.up) @ self.down

    def request(self, batch: int, seq: int, logprobs: bool) -> torch.Tensor:
        x = torch.randn(batch * seq, HIDDEN, device=corpus.DEVICE, dtype=torch.bfloat16)
        h = torch.empty_like(x)
        rms_norm_kernel[(batch * seq,)](x, self.norm_weight, h, x.stride(0), HIDDEN, 1e-6, BLOCK=HIDDEN)
        gelu = torch.empty_like(h)
        n = h.numel()
        bias_gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](h, self.bias, gelu, n, HIDDEN)
        scaled = torch.empty_like(gelu)
        token_scale_kernel[(triton.cdiv(batch * seq, 16),)](gelu, scaled, batch * seq, 0.5, H=HIDDEN, BLOCK_T=16)
        h = self.block(scaled.view(batch, seq, HIDDEN))
        scores = torch.einsum("bsh,bh->bs", h, h[:, -1]).contiguous()
        weights = torch.empty_like(scores)
        block = triton.next_power_of_2(seq)
        seq_softmax_kernel[(batch,)](scores, weights, seq, scores.stride(0), BLOCK=block)
        logits = torch.einsum("bs,bsh->bh", weights, h) @ self.head
        if logprobs:  # asked for log-probabilities: computed in fp32
            logits = logits.float()
        out = torch.empty_like(logits)
        log_softmax_kernel[(batch,)](logits, out, VOCAB, logits.stride(0), BLOCK=triton.next_power_of_2(VOCAB))
        return out


def end_of_warmup() -> None:
    """Marks the end of the warmup where each watcher can see it (the module's docstring)."""
    try:
        import tritonscope
    except ImportError:
        tritonscope = None
    if hasattr(tritonscope, "mark"):
        tritonscope.mark("warmup")
    os.environ[PHASE_VARIABLE] = "serving"
    end_of_warmup_kernel[(1,)](torch.zeros(1, device=corpus.DEVICE, dtype=torch.int32))
    print("serve_after_warmup: warmup done", flush=True)


def request_sizes(count: int, max_batch: int, max_seq: int) -> list[tuple[int, int, bool]]:
    """(batch, seq, logprobs) of each request: a third decode steps (seq 1, batch 1..max_batch),
    the rest prefills (batch 1..max_batch/4, seq log-uniform in 2..max_seq); one in ten asks for
    log-probabilities."""
    draw = random.Random(SEED)
    sizes = []
    for _ in range(count):
        if draw.random() < 1 / 3:
            batch, seq = draw.randint(1, max_batch), 1
        else:
            batch = draw.randint(1, max(1, max_batch // 4))
            seq = min(max_seq, max(2, int(2 ** draw.uniform(1, math.log2(max_seq) + 1))))
        sizes.append((batch, seq, draw.random() < 0.1))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description="A server-shaped program: warmup, then requests.")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--max-batch", type=int, default=32)
    parser.add_argument("--max-seq", type=int, default=512)
    args = parser.parse_args()
    corpus.start()
    server = Server()
    warmup_batches = sorted({1, max(1, args.max_batch // 4), args.max_batch})
    warmup_seq = max(2, args.max_seq // 4)
    for batch in warmup_batches:
        for seq in (warmup_seq, 1):
            server.request(batch, seq, logprobs=False)
            print(f"warmup batch={batch} seq={seq} logprobs=False", flush=True)
    end_of_warmup()
    for number, (batch, seq, logprobs) in enumerate(request_sizes(args.requests, args.max_batch, args.max_seq)):
        server.request(batch, seq, logprobs)
        print(f"request {number} batch={batch} seq={seq} logprobs={logprobs}", flush=True)
    corpus.finish("serve_after_warmup")


if __name__ == "__main__":
    main()
