"""liger-kernel's blocked RMSNorm forward (`_block_rms_norm_forward_kernel`): rows of 128 (a
per-head norm of queries, as Qwen3's), 16 rows per program, which liger picks for narrow rows
when there are at least 32768 of them."""


def make_inputs(size=2**18, device="cuda", hidden=128):
    import torch

    x = torch.randn(size, hidden, device=device, dtype=torch.bfloat16)
    return x, torch.rand(hidden, device=device, dtype=torch.bfloat16) + 0.5


def launch(x, w):
    from liger_kernel.ops.rms_norm import rms_norm_forward

    return rms_norm_forward(x, w, 1e-6, 0.0, "llama", None)[0]


def reference(x, w):
    import torch

    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
