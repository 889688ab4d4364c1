"""What an agent gives a tool, declared once (each with the description it reads), and the variant
inputs turned into the same VariantRequest the command line's flags make (core/forms.py).

`variant_inputs` gives a tool the variant inputs, as cli/options.py's `variant_flags` gives a
command its flags: the tool declares a `request` parameter, the agent sees the kernel file, the
kernel, constexprs, args, dtype, target, the options and the release, then the tool's own inputs."""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Annotated, Any

from pydantic import Field

from ..core import forms, targets
from ..core import source as sources
from ..core.model import VariantRequest

Value = int | float | bool | str | None

KernelFile = Annotated[
    str,
    Field(
        description="The kernel: a Python file (absolute, or relative to the server's working folder), "
        "sample:NAME (a bundled sample, see the samples tool), pkg.module:kernel (a module on the path, "
        "e.g. liger_kernel.ops.rms_norm:_rms_norm_forward_kernel), or DIR/:NAME (a kernel of a capture)."
    ),
]
KernelName = Annotated[str | None, Field(description="The kernel's name, when the file has more than one.")]
Constexprs = Annotated[
    dict[str, Value] | None,
    Field(
        description='Constexpr values, e.g. {"BLOCK_SIZE": 1024, "ACTIVATION": "relu"}. A string takes the '
        'command line\'s rules: "fp16" is a dtype, "1024" the int; \'"1"\' forces the string.'
    ),
]
Args = Annotated[
    dict[str, Value] | None,
    Field(
        description='Arguments: a pointer\'s type ("*fp16", "*bf16") or a scalar\'s value (4096, 1e-5, null), '
        'specialized as Triton\'s launcher would (a multiple of 16, the value 1), e.g. {"x_ptr": "*fp16", "n": 4096}.'
    ),
]
Dtype = Annotated[str | None, Field(description="Element type of the pointers not given in args (default fp32).")]
TargetName = Annotated[
    str,
    Field(description=f"The GPU to compile for: {', '.join(targets.TARGETS)}; auto: the local GPU, else sm90."),
]
Warps = Annotated[int | None, Field(description="num_warps: warps per program.")]
Stages = Annotated[int | None, Field(description="num_stages: software pipelining depth.")]
Ctas = Annotated[int | None, Field(description="num_ctas: CTAs per cluster (sm90+).")]
Maxnreg = Annotated[int | None, Field(description="A register cap per thread (NVIDIA).")]
Config = Annotated[
    int | None, Field(description="The autotune config to compile (default 0); list_kernels numbers them.")
]
Release = Annotated[
    str | None,
    Field(description="Compile with this Triton release (e.g. 3.9.0), installed once with `tritonscope envs add`."),
]
Timeout = Annotated[
    float, Field(description="Seconds the call may take; a kernel that hangs the compiler is stopped then.", gt=0)
]

_VARIANT_INPUTS: dict[str, tuple[Any, Any]] = {
    "kernel_file": (KernelFile, inspect.Parameter.empty),
    "kernel": (KernelName, None),
    "constexprs": (Constexprs, None),
    "args": (Args, None),
    "dtype": (Dtype, None),
    "target": (TargetName, "auto"),
    "num_warps": (Warps, None),
    "num_stages": (Stages, None),
    "num_ctas": (Ctas, None),
    "maxnreg": (Maxnreg, None),
    "config": (Config, None),
    "triton": (Release, None),
}


def variant_inputs(tool):
    """Gives a tool the variant inputs before its own; it gets them as `request`."""
    own = typing.get_type_hints(tool, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter(n, keyword, annotation=a, default=d) for n, (a, d) in _VARIANT_INPUTS.items()]
    parameters += [
        p.replace(kind=keyword, annotation=own[p.name])
        for p in inspect.signature(tool).parameters.values()
        if p.name != "request"
    ]

    @functools.wraps(tool)
    def with_request(**values):
        given = {name: values.pop(name) for name in _VARIANT_INPUTS if name in values}
        return tool(request=request(**given), **values)

    with_request.__signature__ = inspect.Signature(parameters, return_annotation=own.get("return"))  # type: ignore[attr-defined]
    with_request.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": own.get("return")}
    del with_request.__wrapped__  # the SDK must read the new signature
    return with_request


def request(
    kernel_file: str,
    kernel: str | None = None,
    constexprs: dict[str, Value] | None = None,
    args: dict[str, Value] | None = None,
    dtype: str | None = None,
    target: str = "auto",
    num_warps: int | None = None,
    num_stages: int | None = None,
    num_ctas: int | None = None,
    maxnreg: int | None = None,
    config: int | None = None,
    triton: str | None = None,
) -> VariantRequest:
    """The request the command line makes of the same flags: FILE parsed once, values typed once."""
    return forms.variant_request(
        sources.parse(kernel_file),
        kernel,
        constexprs=forms.typed_pairs(constexprs, "constexprs"),
        args=forms.typed_pairs(args, "args"),
        dtype=forms.check_dtype(dtype) if dtype else None,
        target=targets.parse_name(target or "auto"),
        num_warps=num_warps,
        num_stages=num_stages,
        num_ctas=num_ctas,
        maxnreg=maxnreg,
        config=config,
        triton=triton.strip() if triton else None,
    )


def inputs_of(request: VariantRequest) -> tuple[str, ...]:
    """The files and folders an answer about this request depends on (isolate/session.py keeps the
    answer while they are unchanged): a kernel file or module, a capture's folder; none for a sample."""
    source = request.source
    if isinstance(source, (sources.KernelFile, sources.ModuleReference)):
        return (source.path,)
    if isinstance(source, sources.CachedKernel):
        return (str(source.folder_path),)
    if isinstance(source, sources.CaptureFolder):
        return (source.given,)
    return ()
