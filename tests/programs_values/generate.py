"""Hugging Face's `generate()` on a small random Llama: greedy and beam search with the dynamic
cache, then greedy with the static cache and a compiled forward; the loop checks its token ids on
the device each step (`torch.isin(eos, pad).any()`, stopping criteria). On the device (the simulated
GPU under `trace --target`) or on the CPU (DEV=cpu, eagerly) for comparison."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs"))
import corpus  # noqa: E402, F401  (torchvision's import beside a CPU torch)
import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=128,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    eos_token_id=5,
    pad_token_id=0,
)
model = LlamaForCausalLM(config).to(DEV).eval()
ids = torch.tensor([[1, 7, 9, 12]], device=DEV)
print("greedy", model.generate(ids, max_new_tokens=12, do_sample=False).tolist())
print("beam", model.generate(ids, max_new_tokens=6, do_sample=False, num_beams=2).tolist())
if DEV == "cuda":
    model.forward = torch.compile(model.forward)
out = model.generate(ids, max_new_tokens=8, do_sample=False, cache_implementation="static")
print("static cache, compiled", out.tolist())
