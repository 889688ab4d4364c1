"""liger-kernel's softmax forward (`_softmax_single_block_forward_kernel`): rows of a 32000-wide
vocabulary held whole in one 32-warp program each."""


def make_inputs(size=4096, device="cuda", vocab=32000):
    import torch

    return (torch.randn(size, vocab, device=device, dtype=torch.float32),)


def launch(x):
    from liger_kernel.ops.softmax import _softmax_forward

    return _softmax_forward(x)[0]


def reference(x):
    return x.softmax(dim=-1)
