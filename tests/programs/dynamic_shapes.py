"""Dynamic shapes: a pre-norm MLP block compiled with dynamic=True, called at two batch sizes and
two sequence lengths (one graph, symbolic sizes), then a function whose input's first dimension is
marked dynamic with torch._dynamo.mark_dynamic, at two sizes."""

import corpus
import torch


class Block(torch.nn.Module):
    def __init__(self, width: int = 256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 2 * width)
        self.down = torch.nn.Linear(2 * width, width)

    def forward(self, x):
        return torch.softmax(x + self.down(torch.nn.functional.gelu(self.up(self.norm(x)))), dim=-1)


def scaled_cumsum(x, scale):
    return torch.cumsum(x * scale, dim=0).sum(dim=-1)


def main() -> None:
    corpus.start()
    model = Block().to(corpus.DEVICE).eval()
    forward = corpus.compiled(model, dynamic=True)
    with torch.no_grad():
        for batch, seq in ((4, 64), (6, 100)):
            forward(torch.randn(batch, seq, 256, device=corpus.DEVICE))
    marked = corpus.compiled(scaled_cumsum)
    for rows in (96, 200):
        x = torch.randn(rows, 128, device=corpus.DEVICE)
        torch._dynamo.mark_dynamic(x, 0)
        marked(x, torch.randn(128, device=corpus.DEVICE))
    corpus.finish("dynamic_shapes")


if __name__ == "__main__":
    main()
