"""liger-kernel's rotary embedding (`_triton_rope`): queries and keys of a Llama-3-8B layer
(32 query heads, 8 key-value heads, 128 wide) rotated in place, one program per token."""


def make_inputs(size=4096, device="cuda", batch=4, heads=32, kv_heads=8, head_dim=128):
    import torch

    q = torch.randn(batch, heads, size, head_dim, device=device, dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, size, head_dim, device=device, dtype=torch.bfloat16)
    angle = torch.arange(size, device=device)[:, None] * torch.rand(head_dim // 2, device=device)
    angle = torch.cat([angle, angle], dim=-1)[None]
    return q, k, angle.cos().to(torch.bfloat16), angle.sin().to(torch.bfloat16)


def launch(q, k, cos, sin):
    from liger_kernel.ops.rope import rope_forward

    return rope_forward(q.clone(), k.clone(), cos, sin)[:2]


def reference(q, k, cos, sin):
    import torch

    def rotated(x):
        half = x.shape[-1] // 2
        return torch.cat([-x[..., half:], x[..., :half]], dim=-1)

    c, s = cos.float()[:, None], sin.float()[:, None]
    return tuple((x.float() * c + rotated(x.float()) * s).to(x.dtype) for x in (q, k))
