"""An encoder's inference: a 2-layer BERT (transformers, random weights) compiled whole, on a
right-padded batch (SDPA with a padding mask, not causal), two forward passes."""

import corpus
import torch
from transformers import BertConfig, BertModel

VOCAB = 512


def main() -> None:
    corpus.start()
    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=128,
        attn_implementation="sdpa",
    )
    model = BertModel(config).to(corpus.DEVICE).eval()
    forward = corpus.compiled(model)
    ids, mask = corpus.padded_batch(VOCAB, [32, 20, 9, 32], seq=32)
    with torch.no_grad():
        for _ in range(2):
            forward(input_ids=ids, attention_mask=mask)
    corpus.finish("bert_encoder")


if __name__ == "__main__":
    main()
