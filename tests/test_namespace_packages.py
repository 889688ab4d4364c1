"""Kernel files inside implicit namespace packages (PEP 420 folders without `__init__.py` below a
regular package), as OpenAI's triton_kernels and vLLM's copy of it keep most of their kernels
(issue 43, item 1): `list FILE`, `list PKG.MOD` and `dump` find the package as Python's import does.
The tree under tests/kernels/triton_kernels_tree/ is a part of triton_kernels copied unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from cli_process import tritonscope
from conftest import KERNELS

from tritonscope.app.walk import packages
from tritonscope.core.errors import KernelFileError
from tritonscope.core.source import ModuleReference, file_of, parse

TREE = KERNELS / "triton_kernels_tree"
PACKAGE = TREE / "triton_kernels"
MATMUL = PACKAGE / "matmul_ogs_details" / "_matmul_ogs.py"
DOWNCAST = PACKAGE / "numerics_details" / "mxfp_details" / "_downcast_to_mxfp.py"
SMALL_DOWNCAST = (
    *("-c", "stride_mxt_quant=1", "-c", "BLOCK_SIZE_OUT_DIM=16", "-c", "BLOCK_SIZE_QUANT_DIM=32"),
    *("-c", "DEQUANT_SCALE_ROUNDING_MODE=0", "-a", "mx_tensor_ptr=*u8", "-a", "mx_scale_ptr=*u8"),
    *("-a", "src_ptr=*bf16", "-t", "sm90"),
)


def _listed(*args, cwd=None, env=None) -> dict:
    return json.loads(tritonscope("list", *args, "--json", cwd=cwd, env=env).stdout)


def _names(listed: dict) -> list[tuple[str, bool]]:
    return [(k["name"], k["is_helper"]) for k in listed["kernels"]]


def test_the_module_name_goes_up_through_namespace_folders_to_the_outermost_regular_package():
    assert packages.module_name(MATMUL) == "triton_kernels.matmul_ogs_details._matmul_ogs"
    assert packages.module_name(DOWNCAST) == "triton_kernels.numerics_details.mxfp_details._downcast_to_mxfp"
    assert packages.root(MATMUL, packages.module_name(MATMUL)) == TREE


def test_a_lone_file_and_a_folder_python_cannot_import_stay_lone(tmp_path):
    (tmp_path / "scripts" / "more").mkdir(parents=True)
    (tmp_path / "scripts" / "more" / "k.py").write_text("")
    assert packages.module_name(tmp_path / "scripts" / "more" / "k.py") is None  # no __init__.py above
    (tmp_path / "pkg" / "not-a-name").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "not-a-name" / "k.py").write_text("")
    assert packages.module_name(tmp_path / "pkg" / "not-a-name" / "k.py") is None
    # a vendored package below a namespace folder of another package is its own top (its absolute imports name it)
    (tmp_path / "lib" / "third_party" / "vendored" / "ns").mkdir(parents=True)
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "third_party" / "vendored" / "__init__.py").write_text("")
    (tmp_path / "lib" / "third_party" / "vendored" / "ns" / "k.py").write_text("")
    assert packages.module_name(tmp_path / "lib" / "third_party" / "vendored" / "ns" / "k.py") == "vendored.ns.k"


def test_a_module_reference_is_found_through_namespace_folders_without_importing(monkeypatch):
    monkeypatch.syspath_prepend(str(TREE))
    assert file_of("triton_kernels.matmul_ogs_details._matmul_ogs") == MATMUL.resolve()
    assert file_of("triton_kernels.tensor_details.layout_details.hopper_value").name == "hopper_value.py"
    source = parse("triton_kernels.numerics_details.mxfp_details._downcast_to_mxfp:_downcast_to_mxfp")
    assert isinstance(source, ModuleReference) and source.path == str(DOWNCAST.resolve())
    for missing in ("triton_kernels.matmul_ogs_details", "triton_kernels.numerics._nothing", "triton_kernels.x.y"):
        try:
            file_of(missing)
        except KernelFileError as exc:
            assert missing in str(exc)
        else:
            raise AssertionError(f"{missing} is no module file")


def test_list_file_in_a_namespace_folder_imports_it_as_part_of_its_package():
    assert _names(_listed(MATMUL)) == [("_zero_masked_rows", True), ("_matmul_ogs", False)]
    # relative imports (`from .base import Layout`) and the package's own name (`from triton_kernels...`)
    helpers = _names(_listed(PACKAGE / "tensor_details" / "layout_details" / "hopper_value.py"))
    assert ("mxfp4_to_bf16_triton", True) in helpers and all(helper for _, helper in helpers)
    # swiglu_details/ is listed by module name below, mxfp_details/ dumped by file: one process each


def test_list_a_module_inside_namespace_folders_by_its_name():
    listed = _listed("triton_kernels.matmul_ogs_details._matmul_ogs", cwd=TREE)
    assert _names(listed) == [("_zero_masked_rows", True), ("_matmul_ogs", False)]
    on_path = _listed("triton_kernels.swiglu_details._swiglu", cwd=KERNELS, env={"PYTHONPATH": str(TREE)})
    assert ("_swiglu", False) in _names(on_path)


def test_dump_a_kernel_of_a_namespace_folder_by_file_and_by_module():
    whole = json.loads(tritonscope("dump", DOWNCAST, "-k", "_downcast_to_mxfp", *SMALL_DOWNCAST, "--json").stdout)
    assert Path(whole["kernel"]["file"]) == DOWNCAST.resolve() and "sass" in whole["stages"]
    assert "STG.E" in whole["stages"]["sass"] and whole["variant"]["constexprs"]["BLOCK_SIZE_QUANT_DIM"] == 32
    reference = "triton_kernels.numerics_details.mxfp_details._downcast_to_mxfp:_downcast_to_mxfp"
    ttir = tritonscope("dump", reference, *SMALL_DOWNCAST, "--stage", "ttir", cwd=TREE).stdout
    assert "tt.func public @_downcast_to_mxfp" in ttir


def test_a_lone_file_with_relative_imports_says_how_to_load_it(tmp_path):
    lone = tmp_path / "kernels.py"
    lone.write_text((PACKAGE / "tensor_details" / "layout_details" / "hopper_value.py").read_text())
    said = tritonscope("list", lone, expect=2).stderr
    assert "kernels.py:5: the file imports relative to its package" in said
    assert "no folder above it holds an __init__.py" in said and "tritonscope list pkg.module" in said
