"""Unaligned matmuls Inductor's pad_mm weighs: an MLP whose widths are not multiples of 8, large
enough to be compute-bound on an H100 (pad_mm benchmarks padded against unpadded only then),
compiled, under bf16 autocast, forward and backward, twice."""

import corpus
import torch


class MLP(torch.nn.Module):
    def __init__(self, width: int = 1030, hidden: int = 2050):
        super().__init__()
        self.up = torch.nn.Linear(width, hidden)
        self.down = torch.nn.Linear(hidden, width)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


def main() -> None:
    corpus.start()
    model = MLP().to(corpus.DEVICE)
    forward = corpus.compiled(model)
    x = torch.randn(1022, 1030, device=corpus.DEVICE)
    for _ in range(2):
        with torch.autocast(corpus.DEVICE, dtype=torch.bfloat16):
            loss = forward(x).float().square().mean()
        loss.backward()
    corpus.finish("unaligned_matmul")


if __name__ == "__main__":
    main()
