"""mode="max-autotune-no-cudagraphs" on a matmul with a fused epilogue: fp16 Linear + bias + GELU
+ residual, whose matmul Inductor tunes over its Triton templates (each candidate compiled and
benchmarked) and fuses the epilogue into the one it keeps. Two calls of the same shapes."""

import corpus
import torch


class Block(torch.nn.Module):
    def __init__(self, width: int = 512):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x):
        return x + torch.nn.functional.gelu(self.proj(x))


def main() -> None:
    corpus.start()
    dtype = torch.float16 if corpus.ON_GPU else torch.bfloat16
    model = Block().to(corpus.DEVICE, dtype=dtype).eval()
    forward = corpus.compiled(model, mode="max-autotune-no-cudagraphs")
    x = torch.randn(256, 512, device=corpus.DEVICE, dtype=dtype)
    with torch.no_grad():
        for _ in range(2):
            forward(x)
    corpus.finish("max_autotune_matmul")


if __name__ == "__main__":
    main()
