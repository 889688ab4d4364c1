"""`fit`'s sm90 column against an H100 (marked gpu: run on the device machine, issue 40).

Every autotune config of a set of kernels is launched once, with small inputs, by Triton itself (the
autotuner left out: `kernel.fn[grid](*args, **config.all_kwargs())`); the same launch's arguments give
fit its specialization (-a NAME=TYPE or VALUE, constexprs as -c), so both compile the same variant.
fit must say "does not fit" for exactly the configs whose launch raises OutOfResources, and "fits" for
exactly those that launch. The kernels: the sample matmul_autotune (8 configs), liger-kernel's DyT
forward (18), its int8 x int2 matmul (15) and its MoE token gather (40), and tests/kernels/fit_limits.py
(7: 2 KiB under, exactly at and 2 KiB over the 227 KiB, and far over).

    python -m pytest -m gpu tests/test_fit_gpu.py -s    (about 2 minutes on an H100 with 16 cores)
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tritonscope.analysis.fitting import FITS, NO_FIT
from tritonscope.app.fit import fit
from tritonscope.core.model import VariantRequest
from tritonscope.core.samples import samples_dir
from tritonscope.core.values import parse

pytestmark = pytest.mark.gpu
LIMITS = Path(__file__).parent / "kernels" / "fit_limits.py"
_TYPES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int8": "i8", "uint8": "u8", "int32": "i32"}


@dataclass
class Case:
    file: Path
    kernel: Any  # the Autotuner
    args: dict[str, Any]  # every argument but the configs' own: tensors, scalars, constexprs
    grid: Callable[[dict], tuple]


def module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def cases(device: str = "cuda") -> list[Case]:
    import torch
    from test_corpus_liger import liger_ops

    ops = liger_ops()

    def zeros(*shape, dtype=torch.float16):
        return torch.zeros(shape, device=device, dtype=dtype)

    size = 256
    a, b, c = zeros(size, size), zeros(size, size), zeros(size, size)
    matmul = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=size, N=size, K=size)
    matmul |= dict(stride_am=size, stride_ak=1, stride_bk=size, stride_bn=1, stride_cm=size, stride_cn=1)
    tiles = dict(a_ptr=zeros(512, 512), b_ptr=zeros(512, 512), w_ptr=zeros(64, 32), c_ptr=zeros(512, 512))
    tiles |= dict(d_ptr=zeros(512, 32), M=512, N=512, K=512)
    x = zeros(4, 4096, dtype=torch.bfloat16)
    dyt = dict(X=x, Y=torch.empty_like(x), Alpha=zeros(1, dtype=torch.bfloat16), Gamma=x[0], Beta=x[0])
    dyt |= dict(HAVE_BETA=True, N=4096)
    int8 = dict(a_ptr=zeros(size, 4096, dtype=torch.int8), b_ptr=zeros(1024, size, dtype=torch.uint8))
    int8 |= dict(c_ptr=zeros(size, size, dtype=torch.int32), M=size, N=size, K=4096, stride_am=4096, stride_ak=1)
    int8 |= dict(stride_bk=size, stride_bn=1, stride_cm=size, stride_cn=1)
    tokens, experts, hidden = 16, 8, 512
    gather = dict(Y_ptr=zeros(tokens * experts, hidden, dtype=torch.bfloat16))
    gather |= dict(w_ptr=zeros(tokens * experts, dtype=torch.bfloat16))
    gather |= dict(s_rev_ptr=torch.arange(tokens * experts, device=device, dtype=torch.int32))
    gather |= dict(out_ptr=zeros(tokens, hidden, dtype=torch.bfloat16), H_dim=hidden, K_dim=experts)
    gather |= dict(stride_Y_TK=hidden, stride_Y_H=1, stride_out_T=hidden, stride_out_H=1, w_is_None=False)
    sample = samples_dir() / "matmul_autotune.py"
    found = [
        Case(sample, module(sample).matmul_kernel, matmul, lambda m: (_cdiv(size, m["BLOCK_SIZE_M"]) ** 2,)),
        Case(LIMITS, module(LIMITS).tiled_matmul, tiles, lambda m: (512 // m["BLOCK_M"], 512 // m["BLOCK_N"])),
        Case(ops / "dyt.py", module(ops / "dyt.py")._dyt_fwd_kernel, dyt, lambda m: (_cdiv(4096, m["BLOCK_N"]), 4)),
    ]
    int8_file, moe = ops / "experimental" / "mm_int8int2.py", ops / "fused_moe_kernels.py"
    grid = lambda m: (_cdiv(size, m["BLOCK_SIZE_M"]) * _cdiv(size, m["BLOCK_SIZE_N"]),)  # noqa: E731
    found.append(Case(int8_file, module(int8_file).matmul_kernel, int8, grid))
    found.append(Case(moe, module(moe)._token_gather_weighted_sum_kernel, gather, lambda m: (tokens,)))
    return found


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def request_of(case: Case) -> VariantRequest:
    """The fit request that specializes the kernel as this launch does: tensors by their element type,
    integers by their value (so 1 and multiples of 16 specialize as at the launch), constexprs as -c."""
    constexpr = {p.name for p in case.kernel.fn.params if p.is_constexpr}
    constexprs, args = [], []
    for name, value in case.args.items():
        if name in constexpr:
            constexprs.append((name, value))
        elif hasattr(value, "dtype"):
            args.append((name, parse("*" + _TYPES[str(value.dtype).removeprefix("torch.")])))
        else:
            args.append((name, value))
    return VariantRequest(
        file=str(case.file), kernel=case.kernel.fn.__name__, constexprs=tuple(constexprs), args=tuple(args)
    )


def fit_column(case: Case) -> list[Any]:
    """fit's sm90 cell of each config, in the kernel's config order."""
    result = fit(request_of(case), ("sm90",), [], (), jobs=os.cpu_count() or 1, timeout=600)
    (kernel,) = result.kernels
    assert len(kernel.rows) == len(case.kernel.configs)
    return list(kernel.column("sm90"))


def launch(case: Case, config) -> str:
    """Launches one config alone: `launched`, or `OutOfResources: ...` as Triton raised it."""
    import torch
    from triton.runtime.errors import OutOfResources

    meta = {**case.args, **config.all_kwargs()}
    try:
        case.kernel.fn[case.grid(meta)](**case.args, **config.all_kwargs())
        torch.cuda.synchronize()
    except OutOfResources as exc:
        return f"OutOfResources: {exc}"
    return "launched"


def test_the_sm90_column_says_does_not_fit_for_exactly_the_configs_that_raise_out_of_resources():
    import torch

    assert torch.cuda.get_device_capability() == (9, 0), "this proof is for an H100's 227 KiB"
    wrong, counts = [], {FITS: 0, NO_FIT: 0}
    for case in cases():
        for index, (config, cell) in enumerate(zip(case.kernel.configs, fit_column(case), strict=True)):
            launched = launch(case, config)
            print(f"{case.kernel.fn.__name__} #{index}: fit says {cell.verdict} ({cell.reason}); {launched}")
            counts[cell.verdict] = counts.get(cell.verdict, 0) + 1
            if (cell.verdict == FITS) != (launched == "launched") or cell.verdict not in (FITS, NO_FIT):
                wrong.append(f"{case.kernel.fn.__name__} config {index}: fit {cell.verdict}, the H100 {launched}")
    print(f"{counts[FITS]} configs fit and launched, {counts[NO_FIT]} do not fit and raised OutOfResources")
    assert not wrong, "\n".join(wrong)
    assert counts[NO_FIT] >= 2  # at least fit_limits' configs 2 KiB over and far over the 227 KiB
