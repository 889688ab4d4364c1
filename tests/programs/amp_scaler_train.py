"""Mixed-precision training as the AMP recipe writes it: a small pre-norm MLP classifier compiled
whole, under fp16 autocast, with torch.amp.GradScaler, four steps, printing the loss, the scale
and whether the step was taken every step. The scaler starts at 2**30, so the first backward
overflows fp16 by far on any device: GradScaler's finite check finds inf, skips that step and backs
the scale off to 2**10 (backoff_factor 2**-20), where the next steps are finite. Each step reads
values on the host: the loss printed, the scaler's found-inf check, its scale."""

import corpus
import torch


class Classifier(torch.nn.Module):
    def __init__(self, width: int = 256, classes: int = 32):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.head = torch.nn.Linear(width, classes)

    def forward(self, x, target):
        x = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return torch.nn.functional.cross_entropy(self.head(x), target)


def main() -> None:
    corpus.start()
    model = Classifier().to(corpus.DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler(corpus.DEVICE, init_scale=2.0**30, backoff_factor=2.0**-20, growth_interval=1000)
    loss_of = corpus.compiled(model)
    x = corpus.host_normal((64, 256), seed=8)
    target = corpus.host_ids(35, (64,), seed=9) - 3
    for step in range(4):
        with torch.autocast(corpus.DEVICE, dtype=torch.float16):
            loss = loss_of(x, target)
        scale = scaler.get_scale()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        taken = scaler.get_scale() >= scale
        print(f"step {step}: loss {loss.item():.4f}, scale {scale:.0f}, {'taken' if taken else 'skipped'}")
    corpus.finish("amp_scaler_train")


if __name__ == "__main__":
    main()
