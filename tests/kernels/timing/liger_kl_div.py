"""liger-kernel's KL divergence forward (`_kldiv_kernel_forward`): batchmean reduction over
(tokens, vocab) log-probabilities, one program per token."""


def make_inputs(size=8192, device="cuda", vocab=32000):
    import torch

    y_pred = torch.randn(size, vocab, device=device).log_softmax(dim=-1)
    return y_pred, torch.randn(size, vocab, device=device).softmax(dim=-1)


def launch(y_pred, y_true):
    from liger_kernel.ops.kl_div import kldiv_forward_triton

    return kldiv_forward_triton(y_pred, y_true, False, "batchmean", 1e-10)


def reference(y_pred, y_true):
    import torch

    return torch.nn.functional.kl_div(y_pred, y_true, reduction="batchmean")
