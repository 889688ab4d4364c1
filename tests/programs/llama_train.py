"""A decoder LLM's training step: a 2-layer Llama (transformers, random weights) compiled whole,
on a right-padded batch (so SDPA runs with a padding mask), loss over the non-padded tokens,
backward and an AdamW step, twice."""

import corpus
import torch
from transformers import LlamaConfig, LlamaForCausalLM

VOCAB = 512


def main() -> None:
    corpus.start()
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(config).to(corpus.DEVICE)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = corpus.compiled(model)
    ids, mask = corpus.padded_batch(VOCAB, [64, 40, 17, 64], seq=64)
    labels = ids.masked_fill(mask == 0, -100)
    for _ in range(2):
        loss = step(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    corpus.finish("llama_train")


if __name__ == "__main__":
    main()
