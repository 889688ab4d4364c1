"""Launches from a thread of its own, as a data loader or a server does."""

import threading

import torch
from scale import DEVICE, scale


def work():
    x = torch.randn(4096, device=DEVICE)
    print(scale(x, 2.0)[:4])


if __name__ == "__main__":
    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
