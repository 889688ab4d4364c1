"""No kernels here."""

x = 1
