"""TTGIR layouts through Triton's own linear-layout conversion (no re-derivation of its rules)."""

from __future__ import annotations

from ..core.errors import UsageError


def linear_layout(layout, shape: list[int]) -> dict[str, list[list[int]]]:
    """The register, lane and warp bases of a TTGIR layout over `shape`, computed by Triton."""
    import triton

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
