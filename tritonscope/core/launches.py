"""Recorded launches (launches.jsonl of a `trace` capture), read as plain data.

A launch record: {"hash", "name", "launch" (0-based, per process), "grid": [x, y, z],
"params": [names] or null, "args": [argument, ...], "pid"}; each argument is a dict with
a "kind": tensor (shape, stride, dtype, device, storage_offset, and min/max for small
integer tensors), int, float (its repr), bool, none, str, tuple (items), descriptor
(a TensorDescriptor: base tensor, shape, strides, block_shape), tl_dtype, torch_dtype, other.
"""

from __future__ import annotations

import re

_SHORT_DTYPES = {
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float64": "f64",
    "int32": "i32",
    "int64": "i64",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "i1",
}


def short_dtype(dtype: str) -> str:
    """torch.float32 -> f32; others as torch names them, without the prefix."""
    name = dtype.removeprefix("torch.")
    return _SHORT_DTYPES.get(name, name)


def argument_text(arg: dict) -> str:
    """One argument, short: f32[64,300] for a tensor (with :s for strides that are not contiguous), the value else."""
    kind = arg.get("kind")
    if kind == "tensor":
        shape = ",".join(map(str, arg.get("shape", [])))
        strided = "" if is_contiguous(arg) else "(strided)"
        return f"{short_dtype(str(arg.get('dtype')))}[{shape}]{strided}"
    if kind == "descriptor":
        return f"desc({argument_text(arg.get('base', {}))})"
    if kind == "tuple":
        return "(" + ", ".join(argument_text(a) for a in arg.get("items", [])) + ")"
    if kind == "none":
        return "None"
    if kind == "other":
        return f"<{arg.get('type')}>"
    return str(arg.get("value"))


def is_contiguous(arg: dict) -> bool:
    expected, stride = 1, []
    for size in reversed(arg.get("shape", [])):
        stride.insert(0, expected)
        expected *= max(int(size), 1)
    shape = arg.get("shape", [])
    return all(n == 1 or s == e for n, s, e in zip(shape, arg.get("stride", []), stride, strict=False))


def tensor_shapes(launch: dict) -> str:
    """The tensor arguments of a launch, short: f32[4096] f32[4096] f32[4096]."""
    return " ".join(argument_text(a) for a in launch.get("args", []) if a.get("kind") in ("tensor", "descriptor"))


def grid_text(launch: dict) -> str:
    return "x".join(str(g) for g in launch.get("grid", []))


def summary(launches: tuple[dict, ...] | list[dict]) -> str:
    """What `cache list` shows of a kernel's launches: how many, and each distinct grid and shapes."""
    if not launches:
        return ""
    distinct = dict.fromkeys(f"grid {grid_text(x)}: {tensor_shapes(x) or 'no tensors'}" for x in launches)
    return f"{len(launches)}x " + "; ".join(distinct)


def tensor_bytes(arg: dict) -> int:
    """Bytes a tensor argument spans (its strided extent); 0 for other kinds."""
    if arg.get("kind") == "descriptor":
        return tensor_bytes(arg.get("base", {}))
    if arg.get("kind") != "tensor" or 0 in arg.get("shape", []):
        return 0
    extent = 1 + sum((int(n) - 1) * int(s) for n, s in zip(arg["shape"], arg["stride"], strict=False))
    return extent * element_size(str(arg.get("dtype")))


def element_size(dtype: str) -> int:
    """Bytes of one element: the first number in torch's name is its bits (float8_e4m3fn, complex64); bool is 1."""
    bits = re.search(r"\d+", dtype.removeprefix("torch."))
    return max(int(bits.group()) // 8, 1) if bits else 1
