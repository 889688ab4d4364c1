"""FlexAttention, compiled: a causal sliding-window block mask and a relative-position score_mod
(a learned per-head bias, so the backward has a gradient for it too), forward and backward."""

import corpus
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

HEADS, SEQ, DIM, WINDOW = 4, 256, 64, 64


def sliding_causal(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx <= WINDOW)


def main() -> None:
    corpus.start()
    dtype = torch.bfloat16 if corpus.ON_GPU else torch.float32
    train = corpus.ON_GPU  # FlexAttention has no backward on the CPU: its check runs the forward
    bias = torch.zeros(HEADS, device=corpus.DEVICE, requires_grad=train)

    def relative_bias(score, b, h, q_idx, kv_idx):
        return score + bias[h] * (q_idx - kv_idx)

    block_mask = create_block_mask(sliding_causal, B=None, H=None, Q_LEN=SEQ, KV_LEN=SEQ, device=corpus.DEVICE)
    attention = corpus.compiled(flex_attention)
    q, k, v = (
        torch.randn(2, HEADS, SEQ, DIM, device=corpus.DEVICE, dtype=dtype, requires_grad=train) for _ in range(3)
    )
    for _ in range(2):
        out = attention(q, k, v, score_mod=relative_bias, block_mask=block_mask)
        if train:
            out.float().square().mean().backward()
    corpus.finish("flex_attention")


if __name__ == "__main__":
    main()
