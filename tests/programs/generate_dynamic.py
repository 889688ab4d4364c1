"""Decoding with the dynamic cache and a compiled forward: a 2-layer Llama (transformers, random
weights, fp32) whose forward is wrapped in torch.compile by the user, as one does to speed up
generate() without a static cache. Three generate() calls on the dynamic cache, so the forward
recompiles as the cache grows and the batch changes:

- greedy, one prompt, stopping at its EOS at step 6 of 16 (corpus.DECODING_EOS says how that
  token was chosen; the smallest lead of the top logit over the runner-up is printed);
- sampling with a fixed seed (top-k 20, temperature 0.8) on a left-padded batch of two, made to
  run all 8 steps (min_new_tokens: the sampled values, which a CPU cannot reproduce, then decide
  no shape);
- beam search, 3 beams, all 8 steps.

Every step reads values on the host: the EOS check, the stopping criteria, the beam scores."""

import corpus
import torch


def main() -> None:
    corpus.start()
    model = corpus.decoding_llama()
    model.forward = corpus.compiled(model.forward)
    prompt = corpus.decoding_prompt()
    greedy = model.generate(
        prompt, max_new_tokens=16, do_sample=False, return_dict_in_generate=True, output_logits=True
    )
    new = greedy.sequences[0, prompt.shape[1] :].tolist()
    print(f"greedy: {len(new)} new tokens {new}, smallest lead {corpus.smallest_lead(greedy.logits):.4f}")

    batch = corpus.decoding_prompt(batch=2)
    mask = torch.ones_like(batch)
    batch[1, :3], mask[1, :3] = 0, 0  # the second prompt is 5 tokens, padded on the left
    torch.manual_seed(1234)
    sampled = model.generate(
        batch, attention_mask=mask, do_sample=True, top_k=20, temperature=0.8, max_new_tokens=8, min_new_tokens=8
    )
    print(f"sampled: {sampled[:, batch.shape[1] :].tolist()}")

    beams = model.generate(prompt, num_beams=3, do_sample=False, max_new_tokens=8, min_new_tokens=8)
    print(f"beam search: {beams[0, prompt.shape[1] :].tolist()}")
    corpus.finish("generate_dynamic")


if __name__ == "__main__":
    main()
