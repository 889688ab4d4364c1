"""A vision transformer's inference: a 2-block ViT-Tiny from timm (random weights, 64x64 images,
stochastic depth set, which timm's constructor spaces with torch.linspace on the host) compiled
whole, under bf16 autocast, fed channels-last images, two forward passes."""

import corpus
import timm
import torch


def main() -> None:
    corpus.start()
    model = timm.create_model(
        "vit_tiny_patch16_224", pretrained=False, img_size=64, depth=2, num_classes=10, drop_path_rate=0.1
    )
    model = model.to(corpus.DEVICE, memory_format=torch.channels_last).eval()
    forward = corpus.compiled(model)
    images = torch.randn(8, 3, 64, 64, device=corpus.DEVICE).to(memory_format=torch.channels_last)
    with torch.no_grad(), torch.autocast(corpus.DEVICE, dtype=torch.bfloat16):
        for _ in range(2):
            forward(images)
    corpus.finish("vit_timm")


if __name__ == "__main__":
    main()
