"""Decoding with the static cache and the forward transformers compiles itself: the 2-layer Llama
of generate_dynamic.py with generation_config.cache_implementation="static", so generate()
compiles the decoding step (transformers' CompileConfig: mode "reduce-overhead", CUDA graphs)
and runs the prefill eagerly. On the CPU check transformers compiles nothing (it compiles only
on an accelerator), as corpus.compiled would not.

- greedy, one prompt, stopping at its EOS at step 6 of 16 (the same token and step as with the
  dynamic cache; the smallest lead of the top logit is printed);
- sampling with a fixed seed on one prompt, then greedy on another prompt of the same length,
  each run to its 12 steps (min_new_tokens: no EOS can end them, so their values decide no
  shape).

generate() asks torch.isin(eos, pad).any() first, and reads the stopping criteria each step."""

import corpus
import torch


def main() -> None:
    corpus.start()
    model = corpus.decoding_llama()
    model.generation_config.cache_implementation = "static"
    prompt = corpus.decoding_prompt()
    greedy = model.generate(
        prompt, max_new_tokens=16, do_sample=False, return_dict_in_generate=True, output_logits=True
    )
    new = greedy.sequences[0, prompt.shape[1] :].tolist()
    print(f"greedy: {len(new)} new tokens {new}, smallest lead {corpus.smallest_lead(greedy.logits):.4f}")

    torch.manual_seed(1234)
    sampled = model.generate(prompt, do_sample=True, top_k=20, max_new_tokens=12, min_new_tokens=12)
    print(f"sampled: {sampled[0, prompt.shape[1] :].tolist()}")

    other = corpus.decoding_prompt(batch=2)[1:]
    again = model.generate(other, max_new_tokens=12, min_new_tokens=12, do_sample=False)
    print(f"greedy, another prompt: {again[0, other.shape[1] :].tolist()}")
    corpus.finish("generate_static")


if __name__ == "__main__":
    main()
