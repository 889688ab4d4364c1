"""liger-kernel's RMSNorm backward (`_rms_norm_backward_kernel`): one program per multiprocessor,
each looping over its share of the rows and keeping its partial weight gradient in fp32."""


def make_inputs(size=16384, device="cuda", hidden=4096):
    import torch

    x = torch.randn(size, hidden, device=device, dtype=torch.bfloat16)
    w = torch.rand(hidden, device=device, dtype=torch.bfloat16) + 0.5
    return x, w, torch.randn(size, hidden, device=device, dtype=torch.bfloat16)


def launch(x, w, dy):
    from liger_kernel.ops.rms_norm import rms_norm_backward, rms_norm_forward

    _, x2, rstd, block, warps, casting = rms_norm_forward(x, w, 1e-6, 0.0, "llama", None)
    return rms_norm_backward(dy, x2, w, rstd, 0.0, casting, block, warps, False, None)


def reference(x, w, dy):
    import torch

    x = x.float().requires_grad_()
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
    y.backward(dy.float())
    return x.grad.to(dy.dtype), (dy.float() * (y / w.float())).sum(0).to(w.dtype)
