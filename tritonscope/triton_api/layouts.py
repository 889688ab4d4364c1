"""TTGIR layouts through Triton's own linear-layout conversion (no re-derivation of its rules)."""

from __future__ import annotations

import os
import re
import tempfile

import triton

from ..core.errors import UsageError
from . import version


def linear_layout(layout, shape: list[int]) -> dict[str, list[list[int]]]:
    """The register, lane and warp bases of a TTGIR layout over `shape`, computed by Triton."""
    try:
        from triton._C.libtriton import gluon_ir, ir
    except ImportError:
        gluon_ir = None
    if gluon_ir is None or not hasattr(gluon_ir.GluonOpBuilder, "to_linear_layout"):  # since 3.6
        raise UsageError(f"drawing layouts needs the linear layouts of Triton 3.6 or later, not {triton.__version__}")
    _hide_nanobind_leak_report(ir)
    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    try:
        converted = builder.to_linear_layout(_layout_attr(builder, layout), shape)
    except (KeyError, TypeError) as exc:
        raise UsageError(f"incomplete layout {layout.text[:80]}: missing {exc}") from None
    except Exception as exc:  # noqa: BLE001 - Triton's C++ rejects layouts that do not fit the shape
        raise UsageError(f"Triton cannot lay {layout.text[:60]}... over {shape}: {exc}") from None
    return {"register": converted.reg_bases, "lane": converted.lane_bases, "warp": converted.warp_bases}


def _layout_attr(builder, layout):
    f = layout.fields
    if layout.kind == "blocked":
        return builder.get_blocked_layout(f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"], f["order"], [])
    if layout.kind == "nvidia_mma":
        version = [f["versionMajor"], f.get("versionMinor", 0)]
        return builder.get_mma_layout(version, f["warpsPerCTA"], [], f["instrShape"])
    if layout.kind == "dot_op":
        return builder.get_dot_operand_layout(f["opIdx"], _layout_attr(builder, f["parent"]), f.get("kWidth", 0))
    return builder.get_slice_layout(f["dim"], _layout_attr(builder, f["parent"]))


def _hide_nanobind_leak_report(ir) -> None:
    """Since 3.9 libtriton is a nanobind module, and its Gluon layout conversion keeps Python objects
    alive to the end on purpose, so at exit nanobind prints `nanobind: leaked N instances!`. Triton's
    own compile workers hide that report the same way (_compile_warmup_pool.py): stderr goes to
    /dev/null once every exit handler before this one ran. This runs in an isolated worker."""
    import atexit
    import os
    import sys

    if type(type(ir.context)).__module__ != "nanobind":  # pybind11 up to 3.8
        return

    def silence() -> None:
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)

    atexit.register(silence)


# --- any layout of a compiled module, through Gluon's own reading of it (3.6 on) ---------------------

_ALIAS_LINE = re.compile(r"^#[\w.]+\s*=\s*#.*$", re.MULTILINE)
_MODULE_ATTRIBUTES = re.compile(r"^module attributes (\{.*\}) \{\s*$", re.MULTILINE)


def _probe_function(ttgir: str, types: list[str]):
    """A module with the compiled module's layout aliases and attributes (warps, target) and one
    function taking arguments of `types`: Triton parses it, so every layout it knows is read as it
    reads it. Returns (builder, the function's arguments)."""
    from triton._C.libtriton import gluon_ir, ir

    _hide_nanobind_leak_report(ir)
    attributes = _MODULE_ATTRIBUTES.search(ttgir)
    if attributes is None:
        raise UsageError("the TTGIR has no module attributes line: not a module Triton wrote")
    arguments = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    text = "\n".join(_ALIAS_LINE.findall(ttgir))
    text += f"\nmodule attributes {attributes.group(1)} {{\n  tt.func public @probe({arguments}) {{\n"
    text += "    tt.return\n  }\n}\n"
    context = ir.context()
    ir.load_dialects(context)
    with tempfile.TemporaryDirectory(prefix="tritonscope-") as folder:
        path = os.path.join(folder, "probe.ttgir")
        with open(path, "w") as file:
            file.write(text)
        module = ir.parse_mlir_module(path, context)
    module.context = context  # kept alive with the module
    function = module.get_function("probe")
    builder = gluon_ir.GluonOpBuilder(context)
    # Inside the function, so layouts that ask for the module's warps find them (3.9 crashes otherwise).
    returns: list = []
    module.walk(lambda op: returns.append(op) if op.get_name() == "tt.return" else None)
    builder.set_insertion_point_to_start(returns[0].get_block())
    return builder, [function.args(i) for i in range(len(types))], module


def distributed_bases(ttgir: str, tensor_type: str, shape: list[int]) -> dict:
    """The register, lane and warp bases of a tensor type's layout (any kind Triton's Gluon reads:
    blocked, slice, linear, NVIDIA MMA, dot operand, AMD MFMA/WMMA), and its Gluon spelling."""
    builder, (value,), _module = _probe_function(ttgir, [tensor_type])
    layout = builder.get_gluon_layout_from_tensor(value)
    if hasattr(layout, "reg_bases"):  # already linear
        bases = layout
    else:
        bases = builder.to_linear_layout(layout._to_ir(builder), shape)
    return {
        "gluon": repr(layout),
        "register": bases.reg_bases,
        "lane": bases.lane_bases,
        "warp": bases.warp_bases,
    }


def shared_offsets(ttgir: str, memdesc_type: str, shape: list[int]) -> dict:
    """A shared layout's Gluon spelling and, where Triton gives them (3.9: to_linear_layout of a shared
    layout), its offset bases: which element each offset in the allocation holds."""
    builder, (value,), _module = _probe_function(ttgir, [memdesc_type])
    layout = builder.get_gluon_layout_from_memdesc(value)
    offsets = getattr(layout, "offset_bases", None)  # SharedLinearLayout already is one
    if offsets is None and _shared_linear_layouts():
        offsets = builder.to_linear_layout(layout._to_ir(builder), shape).offset_bases
    return {"gluon": repr(layout), "offset": offsets}


def _shared_linear_layouts() -> bool:
    """Whether to_linear_layout takes a shared layout: 3.6 asserts the result is distributed (and aborts)."""
    return version.release_tuple(triton.__version__)[:2] >= (3, 9)


def bank_conflicts(ttgir: str, tensor_type: str, memdesc_type: str, shape: list[int], bitwidth: int) -> int:
    """Gluon's count of the bank conflicts (excess wavefronts per instruction) of moving a tensor of
    `tensor_type` to or from shared memory of `memdesc_type` with ld/st.shared (gl.bank_conflicts)."""
    builder, (tensor, memdesc), _module = _probe_function(ttgir, [tensor_type, memdesc_type])
    registers = builder.get_gluon_layout_from_tensor(tensor)._to_ir(builder)
    shared = builder.get_gluon_layout_from_memdesc(memdesc)._to_ir(builder)
    return int(builder.get_shared_bank_conflicts(registers, shared, shape, bitwidth))


def all_bank_conflicts(ttgir: str, accesses: list[tuple[str, str, list[int], int]]) -> list[int | None]:
    """bank_conflicts of many (tensor type, memdesc type, shape, bits): None where Triton refuses one
    (a layout pair it has no rule for)."""
    counts: list[int | None] = []
    for tensor_type, memdesc_type, shape, bits in accesses:
        try:
            counts.append(bank_conflicts(ttgir, tensor_type, memdesc_type, shape, bits))
        except Exception:  # noqa: BLE001 - Triton's C++ raises what it raises
            counts.append(None)
    return counts
