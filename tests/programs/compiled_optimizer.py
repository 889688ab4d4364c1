"""A training step with a compiled optimizer: an eager MLP's forward and backward, then AdamW's
step under torch.compile (two parameter groups, one without weight decay), two steps."""

import corpus
import torch


def main() -> None:
    corpus.start()
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.LayerNorm(512), torch.nn.GELU(), torch.nn.Linear(512, 64)
    ).to(corpus.DEVICE)
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3
    )

    def adamw_step():
        optimizer.step()

    step = corpus.compiled(adamw_step)
    x, target = torch.randn(32, 256, device=corpus.DEVICE), torch.randn(32, 64, device=corpus.DEVICE)
    for _ in range(2):
        torch.nn.functional.mse_loss(model(x), target).backward()
        step()
        optimizer.zero_grad()
    corpus.finish("compiled_optimizer")


if __name__ == "__main__":
    main()
