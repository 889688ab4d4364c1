"""A helper module beside the kernel, imported relatively."""

BLOCK = 256
