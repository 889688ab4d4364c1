"""A convolutional network's inference: a ResNet of one BasicBlock per stage (torchvision, random
weights, a 10-class head: a matmul whose N is not a multiple of 8) compiled whole, under fp16
autocast, channels-last, two forward passes."""

import corpus
import torch
from torchvision.models.resnet import BasicBlock, ResNet


def main() -> None:
    corpus.start()
    model = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=10)
    model = model.to(corpus.DEVICE, memory_format=torch.channels_last).eval()
    forward = corpus.compiled(model)
    images = torch.randn(8, 3, 64, 64, device=corpus.DEVICE).to(memory_format=torch.channels_last)
    dtype = torch.float16 if corpus.ON_GPU else torch.bfloat16  # the CPU's autocast takes bf16
    with torch.no_grad(), torch.autocast(corpus.DEVICE, dtype=dtype):
        for _ in range(2):
            forward(images)
    corpus.finish("resnet_channels_last")


if __name__ == "__main__":
    main()
