"""liger-kernel's LayerNorm forward (`_layer_norm_forward_kernel`): one program per row of a
(tokens, hidden) bf16 activation, mean and 1/std kept in fp32."""


def make_inputs(size=16384, device="cuda", hidden=4096):
    import torch

    x = torch.randn(size, hidden, device=device, dtype=torch.bfloat16)
    w = torch.rand(hidden, device=device, dtype=torch.bfloat16) + 0.5
    return x, w, torch.randn(hidden, device=device, dtype=torch.bfloat16)


def launch(x, w, b):
    from liger_kernel.ops.layer_norm import layer_norm_forward

    return layer_norm_forward(x, w, b, 1e-6)[0]


def reference(x, w, b):
    import torch

    return torch.nn.functional.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), 1e-6).to(x.dtype)
