"""`module.cuda()`, `.to("cuda")`, `.half()` on the simulated GPU keep each parameter the same object,
as torch does on a real GPU, so that a weight tied to another (a language model's input embedding and
output projection) stays one tensor, and an optimizer made before the move holds the moved weights.

On a GPU, torch's `Module._apply` swaps a parameter's data in place (`param.data = moved`). A fake
tensor refuses that (torch falls back to a new Parameter per module, untying tied weights), and
`swap_tensors` refuses a tensor that a fake-tensor mode holds a weak reference to (the host tensor
it converted). So each distinct parameter is converted once, from an alias of it (the mode's weak
reference goes to the alias), and the result is swapped into the parameter's own object; where a
swap is refused, the one converted Parameter takes the place of every use of the old one.
"""

from __future__ import annotations


def _is_fake(tensor) -> bool:
    return "Fake" in type(tensor).__name__


def _converted(torch, fn, param, memo: dict):
    """PARAM converted by FN once (tied parameters are one object), kept the same object if it can be."""
    if id(param) in memo:
        return memo[id(param)]
    grad = param.grad
    with torch.no_grad():
        # a host parameter converted from a copy of its own: the swap below exchanges the parameter's
        # version counter too, which the host values' record of the copy checks (a 4 MiB weight read as
        # "changed afterwards", every later value read stopped)
        applied = fn(param.detach() if _is_fake(param) else param.detach().clone())
        grad_applied = fn(grad.detach()) if grad is not None else None
    if not (_is_fake(param) or _is_fake(applied)):
        memo[id(param)] = param
        param.data = applied  # a host-to-host conversion, as torch does it
        if grad_applied is not None:
            param.grad = grad_applied
        return param
    result = _swapped(torch, param, applied)
    if result is None:
        result = torch.nn.Parameter(applied, param.requires_grad)
    if grad_applied is not None:
        result.grad = grad_applied
    memo[id(param)] = result
    return result


def _swapped(torch, param, applied):
    """PARAM's object made to hold APPLIED (a fake tensor), or None where torch refuses the swap."""
    applied.requires_grad_(param.requires_grad)
    applied._is_param = True  # what isinstance(x, Parameter) reads of a tensor subclass
    grad = param.grad
    param.grad = None  # a gradient held makes the tensor's use count 2, which swap_tensors refuses
    try:
        torch.utils.swap_tensors(param, applied)
    except RuntimeError:
        param.grad = grad
        return None
    return param


def install(torch) -> None:
    original = torch.nn.Module._apply

    def _apply(self, fn, recurse=True):
        modules = list(self.modules()) if recurse else [self]
        tensors = [t for m in modules for t in (*m._parameters.values(), *m._buffers.values()) if t is not None]
        if not tensors or not (any(_is_fake(t) for t in tensors) or _moves_to_the_device(torch, fn, tensors[0])):
            return original(self, fn, recurse)
        memo: dict = {}
        for module in modules:
            for key, param in module._parameters.items():
                if param is not None:
                    module._parameters[key] = _converted(torch, fn, param, memo)
            for key, buffer in module._buffers.items():
                if buffer is not None:
                    if id(buffer) not in memo:
                        memo[id(buffer)] = fn(buffer)
                    module._buffers[key] = memo[id(buffer)]
        return self

    torch.nn.Module._apply = _apply


def _moves_to_the_device(torch, fn, tensor) -> bool:
    """Whether FN puts a host tensor on the simulated GPU (tried on an empty tensor like it)."""
    with torch.no_grad():
        probe = fn(torch.empty((0,), dtype=tensor.dtype, device=tensor.device))
    return _is_fake(probe)
