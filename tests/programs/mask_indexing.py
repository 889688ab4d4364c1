"""Data-dependent shapes: boolean-mask indexing inside a compiled function (with
torch._dynamo.config.capture_dynamic_output_shape_ops, so the selected rows are one unbacked size
in one graph), called on two masks; then nonzero, masked_select, unique and bincount in eager code,
whose results are read on the host (.tolist(), .item(), bool(), print, .cpu(), torch.isin(...).any(),
torch._check_tensor_all) and one of which, a selection of as many values as the data holds, goes
through a compiled function whose kernels are specialized to that length. Every decision is made on
integers, so a CPU and a GPU take the same branches and shapes."""

import corpus
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True


def pooled_active(x, scores, threshold: float):
    """The mean of the normalized rows whose score passes the threshold."""
    active = x[scores > threshold]
    normalized = torch.nn.functional.layer_norm(active, active.shape[-1:])
    return normalized.relu().sum(dim=0) / active.shape[0]


def standardized(values):
    return (values - values.mean()) / (values.std() + 1e-5)


def main() -> None:
    corpus.start()
    pool = corpus.compiled(pooled_active)
    x = corpus.host_normal((512, 64), seed=4)
    for seed, threshold in ((5, 4.5), (6, 6.5)):
        scores = corpus.host_ids(13, (512,), seed=seed).float()  # integers 3..12: no comparison is close
        pooled = pool(x, scores, threshold)
        print(f"pooled over {int((scores > threshold).sum())} rows: first {pooled[0].item():.4f}")

    labels = corpus.host_ids(11, (300,), seed=7) - 3  # classes 0..7
    counts = torch.bincount(labels, minlength=8)
    present = torch.unique(labels)
    rows = torch.nonzero(labels == 3).squeeze(1)
    values = torch.masked_select(x[:300, 0], labels > 5)
    torch._check_tensor_all(counts > 0, lambda: "every class has a row")
    print(f"counts {counts.tolist()}, classes {present.tolist()}, rows of class 3: {rows.shape[0]}")
    print(f"largest class {counts.max().item()}, all present {bool((counts > 0).all())}, on the host {counts.cpu()}")
    print(counts)
    if torch.isin(present, torch.tensor([7], device=corpus.DEVICE)).any():
        standardize = corpus.compiled(standardized)
        print(f"{values.shape[0]} values standardized: {standardize(values)[:3].tolist()}")
    corpus.finish("mask_indexing")


if __name__ == "__main__":
    main()
