"""mode="max-autotune-no-cudagraphs" on a bf16 Linear + GELU with a [512, 4096] input (issue 51,
item 5: the H100 compiled and launched an `addmm` + GELU epilogue template,
`triton_tem_fused_addmm_gelu_t_*`, that the simulated GPU did not). Inductor tunes the matmul over
cuBLAS and its Triton templates and benchmarks the GELU fused into the template it keeps against
the template and a pointwise kernel apart. Two calls of the same shapes, no grad."""

import corpus
import torch


def main() -> None:
    corpus.start()
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.GELU())
    model = model.to(corpus.DEVICE, dtype=torch.bfloat16).eval()
    forward = corpus.compiled(model, mode="max-autotune-no-cudagraphs")
    x = corpus.host_normal((512, 4096), seed=5).to(torch.bfloat16)
    with torch.no_grad():
        for _ in range(2):
            forward(x)
    corpus.finish("max_autotune_gelu")


if __name__ == "__main__":
    main()
