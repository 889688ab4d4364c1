"""The host's values of operators that exist only for CUDA: torch's fused attention (flash,
memory-efficient, cuDNN), forward and backward, and cuDNN's batch norm, each computed by its
definition in float32 (softmax(q k^T * scale + mask) v, and its gradients by autograd); the outputs a
CUDA kernel keeps for itself (random-number state, sequence offsets) are zeros of their shape.
Dropout inside a fused attention kernel is not applied: its mask is the kernel's own random draw."""

from __future__ import annotations


def _scores(q, k, mask, causal: bool, scale):
    import torch

    if k.shape[1] != q.shape[1]:  # grouped-query attention: each key head serves several query heads
        k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if causal:
        keep = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(k.shape[-2] - q.shape[-2])
        scores = scores.masked_fill(~keep, float("-inf"))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask.float()
    return scores


def _attend(q, k, v, mask, causal, scale):
    """(output in float32, log-sum-exp of each query's scores)."""
    import torch

    scores = _scores(q, k, mask, causal, scale)
    if v.shape[1] != q.shape[1]:
        v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
    lse = torch.logsumexp(scores, dim=-1)
    return torch.matmul(torch.softmax(scores, dim=-1).nan_to_num(0.0), v), lse


def _forward(q, k, v, mask=None, causal=False, scale=None):
    import torch

    with torch.no_grad():
        out, lse = _attend(q.float(), k.float(), v.float(), mask, causal, scale)
    return out.to(q.dtype), lse


def _backward(grad, q, k, v, mask=None, causal=False, scale=None):
    import torch

    with torch.enable_grad():
        leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
        bias = mask.detach().float().requires_grad_() if mask is not None and mask.is_floating_point() else None
        out, _ = _attend(*leaves, bias if bias is not None else mask, causal, scale)
        wanted = leaves + ([bias] if bias is not None else [])
        grads = torch.autograd.grad(out, wanted, grad.float(), allow_unused=True)
    dq, dk, dv = (g.to(t.dtype) for g, t in zip(grads[:3], (q, k, v), strict=True))
    return dq, dk, dv, (grads[3].to(mask.dtype) if bias is not None else None)


def _zeros(*shape, dtype=None):
    import torch

    return torch.zeros(shape, dtype=dtype or torch.float32)


def flash(query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None):
    out, lse = _forward(query, key, value, None, is_causal, scale)
    empty = _zeros(0, dtype=query.dtype)
    return out, lse, empty, empty, query.shape[-2], key.shape[-2], _zeros(2, dtype=_int64()), empty, empty


def efficient(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale=None):
    out, lse = _forward(query, key, value, attn_bias, is_causal, scale)
    return out, lse, _zeros(dtype=_int64()), _zeros(dtype=_int64())


def cudnn(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, debug=False, *, scale=None):
    out, lse = _forward(query, key, value, attn_bias, is_causal, scale)
    empty = _zeros(0, dtype=query.dtype)
    seeds = _zeros(dtype=_int64())
    return out, lse.unsqueeze(-1), empty, empty, query.shape[-2], key.shape[-2], seeds, seeds, empty


def flash_backward(
    grad_out, query, key, value, out, lse, cq, ck, mq, mk, dropout_p, is_causal, seed, offset, *, scale=None
):
    return _backward(grad_out, query, key, value, None, is_causal, scale)[:3]


def efficient_backward(
    grad_out, query, key, value, attn_bias, out, lse, seed, offset, dropout_p, mask, is_causal=False, *, scale=None
):
    return _backward(grad_out, query, key, value, attn_bias, is_causal, scale)


def cudnn_backward(
    grad_out, query, key, value, out, lse, seed, offset, attn_bias, cq, ck, mq, mk, dropout_p, is_causal, *, scale=None
):
    return _backward(grad_out, query, key, value, attn_bias, is_causal, scale)[:3]


def _int64():
    import torch

    return torch.int64


def batch_norm(input, weight, bias, running_mean, running_var, training, factor, epsilon):
    import torch

    out, mean, invstd = torch.ops.aten.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, factor, epsilon
    )
    return out, mean, invstd, _zeros(0, dtype=torch.uint8)


def batch_norm_backward(input, grad_output, weight, running_mean, running_var, save_mean, save_var, epsilon, reserve):
    import torch

    return torch.ops.aten.native_batch_norm_backward(
        grad_output, input, weight, running_mean, running_var, save_mean, save_var, True, epsilon, [True, True, True]
    )


SUBSTITUTES = {
    "_scaled_dot_product_flash_attention": flash,
    "_scaled_dot_product_efficient_attention": efficient,
    "_scaled_dot_product_cudnn_attention": cudnn,
    "_scaled_dot_product_flash_attention_backward": flash_backward,
    "_scaled_dot_product_efficient_attention_backward": efficient_backward,
    "_scaled_dot_product_cudnn_attention_backward": cudnn_backward,
    "cudnn_batch_norm": batch_norm,
    "cudnn_batch_norm_backward": batch_norm_backward,
}
