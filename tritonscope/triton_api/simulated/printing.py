"""A device tensor printed with its host value, as torch prints it on the GPU: `tensor([...],
device='cuda:0', grad_fn=<...>)`: the host value's own text, with the device's suffix after the
numbers and the autograd suffix at the end, where torch puts them."""

from __future__ import annotations

PREFIX = "tensor("


def printed(tensor, value) -> str:
    """TENSOR's text (repr and str are one in torch), its numbers those of VALUE (a host tensor)."""
    from torch import _tensor_str

    text = _tensor_str._str(value)
    if not text.startswith(PREFIX) or value.numel() == 0:
        return text
    numbers = _tensor_str._tensor_str(value, len(PREFIX))
    rest = text[len(PREFIX) + len(numbers) : -1]
    grad = getattr(tensor, "grad_fn", None)
    if grad is not None:
        rest += f", grad_fn=<{type(grad).__name__}>"
    elif tensor.requires_grad:
        rest += ", requires_grad=True"
    return f"{PREFIX}{numbers}, device='{tensor.device}'{rest})"
