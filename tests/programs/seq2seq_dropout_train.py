"""Encoder-decoder training with dropout in attention: a tiny BART (transformers, random weights,
fp32, dropout and attention_dropout 0.1) twice, each compiled whole and trained two AdamW steps on
a right-padded batch:

- as a user gets it, attention through SDPA: the dropout inside scaled_dot_product_attention,
  whose kernel torch picks for the GPU;
- with attn_implementation="eager": softmax then dropout written out, which Inductor fuses into
  its own kernels, with their random-number seeds.

The loss is printed each step. (T5 was the first choice: its forward does not compile under torch
2.13's Inductor for a CUDA device, "The argument '-1 + ((0))' is not comparable", in
merge_loops, with either attention and with or without dropout.)"""

import corpus
import torch
from transformers import BartConfig, BartForConditionalGeneration

VOCAB = 512


def bart(attention: str):
    config = BartConfig(
        vocab_size=VOCAB,
        d_model=64,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=64,
        dropout=0.1,
        attention_dropout=0.1,
        pad_token_id=0,
        decoder_start_token_id=2,
        attn_implementation=attention,
    )
    return BartForConditionalGeneration(config)


def train(name: str, model, ids, mask, labels) -> None:
    model = model.to(corpus.DEVICE)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = corpus.compiled(model)
    for number in range(2):
        loss = step(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"{name} step {number}: loss {loss.item():.4f}")


def main() -> None:
    corpus.start()
    ids, mask = corpus.padded_batch(VOCAB, [32, 20, 9, 32], seq=32)
    labels = corpus.host_ids(VOCAB, (4, 16), seed=11)
    train("bart, sdpa", bart("sdpa"), ids, mask, labels)
    train("bart, eager", bart("eager"), ids, mask, labels)
    corpus.finish("seq2seq_dropout_train")


if __name__ == "__main__":
    main()
