"""A mixture-of-experts LM trained with its router's load-balancing loss: a 2-layer Qwen2-MoE
(transformers, random weights, bf16, 4 experts of which 2 per token, a shared expert) with
output_router_logits=True and router_aux_loss_coef=0.02, compiled whole, two AdamW steps. No
attention mask is passed, so the auxiliary loss counts each expert's tokens with torch.bincount
(transformers' load_balancing_loss_func), a result whose shape depends on the values: torch.compile
breaks the graph there. The loss and the auxiliary loss are printed each step."""

import corpus
import torch
from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

VOCAB = 512


def main() -> None:
    corpus.start()
    config = Qwen2MoeConfig(
        vocab_size=VOCAB,
        hidden_size=128,
        intermediate_size=256,
        moe_intermediate_size=128,
        shared_expert_intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=256,
        output_router_logits=True,
        router_aux_loss_coef=0.02,
        attn_implementation="sdpa",
    )
    model = Qwen2MoeForCausalLM(config).to(corpus.DEVICE, dtype=torch.bfloat16)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = corpus.compiled(model)
    ids = corpus.host_ids(VOCAB, (4, 64), seed=3)
    for number in range(2):
        output = step(input_ids=ids, labels=ids)
        output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {number}: loss {output.loss.item():.4f}, router aux loss {output.aux_loss.item():.4f}")
    corpus.finish("moe_router_train")


if __name__ == "__main__":
    main()
