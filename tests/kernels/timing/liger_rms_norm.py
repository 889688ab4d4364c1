"""liger-kernel's RMSNorm forward (`_rms_norm_forward_kernel`), launched as liger launches it:
one program per row of a (tokens, hidden) bf16 activation, Llama casting (fp32 inside)."""


def make_inputs(size=16384, device="cuda", hidden=4096):
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
