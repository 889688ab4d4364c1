"""liger-kernel's GEGLU forward (`_geglu_tanh_forward_kernel`): gelu(a, tanh approximation) * b
over (tokens, 14336) bf16, one program per row; the tanh is computed from exponentials."""


def make_inputs(size=8192, device="cuda", hidden=14336):
    import torch

    return tuple(torch.randn(size, hidden, device=device, dtype=torch.bfloat16) for _ in range(2))


def launch(a, b):
    from liger_kernel.ops.geglu import geglu_forward

    return geglu_forward(a, b)[2]


def reference(a, b):
    import torch

    return (torch.nn.functional.gelu(a.float(), approximate="tanh") * b.float()).to(a.dtype)
