"""A mixture-of-experts decoder's inference: a 2-layer Mixtral (transformers, random weights, 4
experts, 2 per token, in bf16, so its experts run through grouped_mm as MoE models are served)
compiled whole, on a right-padded batch (SDPA with a padding mask), two forward passes of the same
shapes."""

import corpus
import torch
from transformers import MixtralConfig, MixtralForCausalLM

VOCAB = 512


def main() -> None:
    corpus.start()
    config = MixtralConfig(
        vocab_size=VOCAB,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=256,
        attn_implementation="sdpa",
    )
    model = MixtralForCausalLM(config).to(corpus.DEVICE, dtype=torch.bfloat16).eval()
    forward = corpus.compiled(model)
    ids, mask = corpus.padded_batch(VOCAB, [48, 31, 48], seq=48)
    with torch.no_grad():
        for _ in range(2):
            forward(input_ids=ids, attention_mask=mask)
    corpus.finish("mixtral_moe")


if __name__ == "__main__":
    main()
