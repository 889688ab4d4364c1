"""Asks how many elements to scale before it launches: under --from-run there is no one to answer."""

import torch
from scale import DEVICE, scale

if __name__ == "__main__":
    n = int(input("how many elements? "))
    print(scale(torch.randn(n, device=DEVICE), 2.0)[:4])
