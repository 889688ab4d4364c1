"""Tied weights through .to(device): a one-layer Llama (transformers, random weights) whose output
projection is its input embedding (tie_word_embeddings=True), moved to the device, then one
training step compiled whole (forward and backward, then an AdamW step). On a GPU the tied weight
stays one Parameter after the move (11 parameters before and after), so its gradient is the sum
of both uses, computed in one kernel. The program prints the count before and after the move and
whether the two modules still share the weight."""

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
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=True,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(config)
    before = len(list(model.parameters()))
    model = model.to(corpus.DEVICE)
    tied = model.lm_head.weight is model.model.embed_tokens.weight
    print(f"parameters: {before} before the move, {len(list(model.parameters()))} after; tied: {tied}")
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = corpus.compiled(model)
    ids = corpus.host_ids(VOCAB, (2, 64), seed=12)
    loss = step(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    print(f"loss {loss.item():.4f}")
    corpus.finish("tied_embeddings_train")


if __name__ == "__main__":
    main()
