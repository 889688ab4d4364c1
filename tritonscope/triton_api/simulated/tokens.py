"""What the log of host_values.py holds for each tensor: a device tensor's token (its value on the
host once computed, or why it has none), a host tensor an operator took, and device memory nothing
logged wrote (an allocation: zeros of its layout, made when first needed)."""

from __future__ import annotations

SMALL_HOST_TENSOR = 1 << 20  # bytes: a host argument up to this size is copied into the log


class Unknown(Exception):
    """A value the host cannot compute (a Triton kernel of the program's own wrote it, an operator
    with no host kernel, a host tensor changed since the device copied it)."""


class Token:
    """A device tensor's place in the log: where its value comes from, and the value once computed."""

    __slots__ = ("value", "unknown", "stride", "__weakref__")

    def __init__(self, stride: tuple | None = None) -> None:
        self.value: object = None  # a host tensor, or a Blank not yet made
        self.unknown: str | None = None
        self.stride = stride  # the device tensor's strides, which its host value is given (a view's too)


class HostArg:
    """A host tensor an operator took: copied when small, else held with its version to check."""

    __slots__ = ("tensor", "version")

    def __init__(self, tensor) -> None:
        if tensor.numel() * tensor.element_size() <= SMALL_HOST_TENSOR:
            self.tensor, self.version = tensor.detach().clone(), None
        else:
            self.tensor, self.version = tensor.detach(), tensor._version

    def get(self):
        if self.version is not None and self.tensor._version != self.version:
            raise Unknown("a host tensor the program copied to the device was changed afterwards")
        return self.tensor


class Blank:
    """Device memory nothing the log saw wrote (an allocation): zeros of the tensor's layout."""

    __slots__ = ("size", "stride", "dtype", "offset")

    def __init__(self, tensor) -> None:
        self.size, self.stride = tuple(tensor.shape), tuple(tensor.stride())
        self.dtype, self.offset = tensor.dtype, tensor.storage_offset()

    def make(self):
        import torch

        extent = 1 + self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride, strict=True) if n)
        storage = torch.zeros(extent if all(self.size) else 0, dtype=self.dtype)
        return torch.as_strided(storage, self.size, self.stride, self.offset) if all(self.size) else storage[:0]
