"""copy.deepcopy of a simulated GPU's tensor, its `.data`, and `t.data = other`, with their values on the
host (host_values.py): each goes through operators the log sees, or shares the other's token.

torch deep-copies a tensor by its storage and then its `__dict__` (the fake tensor's mode among it: the
copy then belongs to a mode of its own, and the program's mode makes it a new tensor with no value);
`.data` wraps the tensor's data in a new object without its `__dict__`; `t.data = other` swaps the data
where no operator is seen. Their values were an allocation's (an EMA model's weights 1e+21, h19b), or
the old one kept (`vector_to_parameters`). Here a device tensor's deep copy is its clone, its `.data`
its detach, and `t.data = other` gives t other's token: they share one value, as they share memory.
"""

from __future__ import annotations


def install(torch) -> None:
    from torch._subclasses.fake_tensor import FakeTensor

    from .host_values import KEY, LOG

    original_deepcopy = torch.Tensor.__deepcopy__
    data = torch.Tensor.data

    def __deepcopy__(self, memo):
        if not isinstance(self, FakeTensor) or not self.is_leaf or id(self) in memo:
            return original_deepcopy(self, memo)  # a non-leaf: torch's own refusal
        with torch.no_grad():
            copy = self.clone()
        copy.requires_grad_(self.requires_grad)
        if self.grad is not None:
            copy.grad = __deepcopy__(self.grad, memo)
        memo[id(self)] = copy
        return copy

    def get_data(self):
        if isinstance(self, FakeTensor):
            with torch.no_grad():
                return self.detach()
        return data.__get__(self)

    def set_data(self, value) -> None:
        data.__set__(self, value)
        if isinstance(self, FakeTensor) and isinstance(value, FakeTensor):
            self.__dict__[KEY] = LOG.token_of(value)

    torch.Tensor.__deepcopy__ = __deepcopy__
    torch.Tensor.data = property(get_data, set_data, doc=data.__doc__)
