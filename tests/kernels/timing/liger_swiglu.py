"""liger-kernel's SwiGLU forward (`_swiglu_forward_kernel`): silu(a) * b over a Llama-3 MLP's
(tokens, 14336) bf16 gate and up projections, one program per row."""


def make_inputs(size=8192, device="cuda", hidden=14336):
    import torch

    return tuple(torch.randn(size, hidden, device=device, dtype=torch.bfloat16) for _ in range(2))


def launch(a, b):
    from liger_kernel.ops.swiglu import swiglu_forward

    return swiglu_forward(a, b)[2]


def reference(a, b):
    import torch

    return (torch.nn.functional.silu(a.float()) * b.float()).to(a.dtype)
