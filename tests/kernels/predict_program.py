"""A small server for `recompiles DIR/ --shapes` (tests/test_recompiles_predict.py): its warmup runs
batches 4 and 64 at sequences 32 and 1, then `tritonscope.mark("warmup")`; no request follows. Per
request: `divisible_kernel` takes n = batch * seq (1 only at batch 1, seq 1, which the warmup never
met), `row_kernel` takes seq and BLOCK_SIZE = triton.next_power_of_2(seq) (a variant per power of
two, and per seq divisible by 16 or not; `strided_row_kernel` the same, its row's stride, equal
to seq, passed before it), `one_kernel` takes a count that is no function of the
sizes (the request's number)."""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompile_kernels as k  # noqa: E402

x = torch.randn(8192, device="cuda")
out = torch.empty_like(x)


def request(step: int, batch: int, seq: int) -> None:
    n = batch * seq
    k.divisible_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    rows = torch.randn(batch, seq, device="cuda")
    k.row_kernel[(batch,)](rows, rows, seq, BLOCK_SIZE=triton.next_power_of_2(seq))
    k.strided_row_kernel[(batch,)](rows, rows, rows.stride(0), seq, BLOCK_SIZE=triton.next_power_of_2(seq))
    k.one_kernel[(1,)](x, out, step + 3, BLOCK=128)


for step, (batch, seq) in enumerate([(4, 32), (4, 1), (64, 32), (64, 1)]):
    request(step, batch, seq)

import tritonscope  # noqa: E402

tritonscope.mark("warmup")
