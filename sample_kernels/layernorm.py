"""Layer normalization forward: one program per row, also writing each row's mean and 1/std."""

import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    B,  # pointer to the biases
    Mean,  # pointer to the per-row means (kept for the backward pass)
    Rstd,  # pointer to the per-row reciprocal standard deviations
    stride,  # elements between two rows of X and Y
    N,  # columns of X
    eps,  # added to the variance to avoid dividing by zero
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # First pass over the row: the mean.
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # Second pass: the variance.
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Third pass: normalize, scale and shift.
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


tritonscope_defaults = {
    "X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
    "stride": 8192, "N": 8192, "eps": 1e-5, "BLOCK_SIZE": 8192, "num_warps": 8,
}


def make_inputs(size=8192, device="cuda", rows=16384):  # 256 MiB: enough to fill a GPU
    """x (rows x size), weight and bias (size), all fp16."""
    import torch

    x = torch.randn(rows, size, device=device, dtype=torch.float16)
    weight = torch.rand(size, device=device, dtype=torch.float16)
    bias = torch.rand(size, device=device, dtype=torch.float16)
    return x, weight, bias


def launch(x, weight, bias, eps=1e-5, num_warps=8):
    import torch

    rows, n = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
    # Up to 64 KiB per row chunk; smaller rows get one power-of-two chunk.
    block_size = min(65536 // x.element_size(), triton.next_power_of_2(n))
    layernorm_kernel[(rows,)](x, y, weight, bias, mean, rstd, x.stride(0), n, eps,
                              BLOCK_SIZE=block_size, num_warps=num_warps)
    return y


def reference(x, weight, bias, eps=1e-5):
    import torch

    n = x.shape[-1]
    return torch.nn.functional.layer_norm(x.float(), (n,), weight.float(), bias.float(), eps).half()


def torch_op(x, weight, bias, eps=1e-5):
    import torch

    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def work(x, weight, bias, eps=1e-5):
    return {"flops": 8 * x.numel(), "bytes": 2 * x.numel() * x.element_size()}
