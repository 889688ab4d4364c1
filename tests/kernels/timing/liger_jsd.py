"""liger-kernel's Jensen-Shannon divergence (`_jsd_kernel`, its Triton implementation): loss and
gradient of (tokens, vocab) log-probabilities, one program per token, in blocks of the vocabulary."""


def make_inputs(size=8192, device="cuda", vocab=32000):
    import torch

    student = torch.randn(size, vocab, device=device).log_softmax(dim=-1)
    return student, torch.randn(size, vocab, device=device).log_softmax(dim=-1)


def launch(student, teacher):
    from liger_kernel.ops.backends._triton.jsd import jsd_loss_and_grad_triton

    loss, _ = jsd_loss_and_grad_triton(student.clone(), teacher, None, 0.5, -100, float(student.shape[0]))
    return loss.sum()


def reference(student, teacher):
    q, p = student.double().exp(), teacher.double().exp()
    m = 0.5 * (p + q)
    kl = lambda a, b: (a * (a.log() - b.log())).sum()  # noqa: E731
    return (0.5 * kl(p, m) + 0.5 * kl(q, m)).float() / student.shape[0]
