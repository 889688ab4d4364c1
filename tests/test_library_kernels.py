"""What kernels from real libraries need (issue 13): integer element types, string constexprs, a library's
own autotuner, heuristics and launcher wrappers, None for optional pointers, saying which scalar types
were guessed, clear errors. Every test compiles for real, through the command line only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_process import dump_json, tritonscope

LIBRARY = Path(__file__).parent / "kernels" / "library"
INT_TYPES = LIBRARY / "int_types.py"
STRINGS = LIBRARY / "strings.py"
WRAPPERS = LIBRARY / "wrappers.py"
OPTIONAL = LIBRARY / "optional.py"
INFERRED = LIBRARY / "inferred.py"


def ttir_lines(report: dict, word: str) -> list[str]:
    return [line for line in report["stages"]["ttir"].splitlines() if word in line]


def loads(report: dict) -> int:
    return len(ttir_lines(report, "= tt.load"))


# --- 1. Integer element types ----------------------------------------------------------------------------

# (what the user types, Triton's launcher type for that tensor, the element type in the IR)
INT_POINTERS = [
    ("*i32", "*i32", "i32"),
    ("*i64", "*i64", "i64"),
    ("*u8", "*u8", "i8"),
    ("*i8", "*i8", "i8"),
    ("*i1", "*u1", "i1"),  # a torch.bool tensor is launched as *u1
    ("*u32", "*u32", "i32"),
]


@pytest.mark.parametrize("target", ["sm90", "gfx942"])
@pytest.mark.parametrize(("given", "signature", "ir_type"), INT_POINTERS)
def test_integer_pointer(given, signature, ir_type, target):
    report = dump_json(INT_TYPES, "-k", "gather_kernel", "-a", f"idx_ptr={given}", "--target", target)
    assert report["variant"]["signature"]["idx_ptr"] == signature
    assert report["variant"]["signature"]["src_ptr"] == "*fp32"
    assert f"%idx_ptr: !tt.ptr<{ir_type}>" in report["stages"]["ttir"]
    assert report["resources"]["registers"] > 0


def test_issue_repro_integer_pointer_on_a_sample():
    report = dump_json("sample:vector_add", "-a", "x_ptr=*i32", "--target", "sm90")
    assert report["variant"]["signature"]["x_ptr"] == "*i32"
    assert "%x_ptr: !tt.ptr<i32>" in report["stages"]["ttir"]


def test_dtype_i32_types_every_pointer_not_given():
    report = dump_json(INT_TYPES, "-k", "gather_kernel", "--dtype", "i32", "-a", "out_ptr=*fp16", "--target", "sm90")
    signature = report["variant"]["signature"]
    assert (signature["src_ptr"], signature["idx_ptr"], signature["out_ptr"]) == ("*i32", "*i32", "*fp16")
    assert "%src_ptr: !tt.ptr<i32>" in report["stages"]["ttir"]
    assert "%out_ptr: !tt.ptr<f16>" in report["stages"]["ttir"]


@pytest.mark.parametrize("spelling", ["int32", "tl.int32", "torch.int32", "i32"])
def test_dtype_constexpr_spellings(spelling):
    """Every way a user writes int32 casts to i32, and they all make the same variant."""
    report = dump_json(INT_TYPES, "-k", "cast_kernel", "-c", f"INDEX_TY={spelling}", "--target", "sm90")
    casts = ttir_lines(report, "arith.fptosi")
    assert casts and all("xi32>" in line for line in casts)
    reference = dump_json(INT_TYPES, "-k", "cast_kernel", "-c", "INDEX_TY=int32", "--target", "sm90")
    assert report["variant"]["constexprs"] == reference["variant"]["constexprs"]


def test_dtype_constexpr_int64_casts_to_i64():
    report = dump_json(INT_TYPES, "-k", "cast_kernel", "-c", "INDEX_TY=tl.int64", "--target", "gfx942")
    casts = ttir_lines(report, "arith.fptosi")
    assert casts and all("xi64>" in line for line in casts)
    assert report["stages"]["amdgcn"].strip()


def test_kernel_annotated_with_an_integer_pointer():
    report = dump_json(INT_TYPES, "-k", "annotated_gather_kernel", "--target", "sm90")
    assert report["variant"]["signature"]["idx_ptr"] == "*i32"
    assert "%idx_ptr: !tt.ptr<i32>" in report["stages"]["ttir"]
    listed = tritonscope("list", INT_TYPES, "--json").stdout
    assert '"type": "*i32"' in listed


def test_integer_types_inside_diff_vary():
    proc = tritonscope(
        "diff", INT_TYPES, "-k", "gather_kernel", "--vary", "idx_ptr=*i32,*u8,*i64", "--stage", "ttir",
        "--target", "sm90", "--json", "-j", "2",
    )  # fmt: skip
    result = json.loads(proc.stdout)
    assert [v["ok"] for v in result["variants"]] == [True, True, True], [v["error"] for v in result["variants"]]
    assert [v["variant"]["signature"]["idx_ptr"] for v in result["variants"]] == ["*i32", "*u8", "*i64"]
    changed = "\n".join(line for d in result["diffs"] for line in d["unified"])
    assert "!tt.ptr<i8>" in changed and "!tt.ptr<i64>" in changed


def test_dtype_constexprs_inside_diff_vary():
    proc = tritonscope(
        "diff", INT_TYPES, "-k", "cast_kernel", "--vary", "INDEX_TY=int32,tl.int16,torch.int64,i8", "--stage", "ttir",
        "--target", "sm90", "--json", "-j", "2",
    )  # fmt: skip
    result = json.loads(proc.stdout)
    assert all(v["ok"] for v in result["variants"]), [v["error"] for v in result["variants"]]
    changed = "\n".join(line for d in result["diffs"] for line in d["unified"] if line.startswith("+"))
    for ir_type in ("xi16>", "xi64>", "xi8>"):
        assert ir_type in changed


# --- 2. String constexprs --------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["sm90", "gfx942"])
def test_string_constexpr_takes_its_branch(target):
    mean = dump_json(STRINGS, "-k", "loss_kernel", "-c", "reduction=mean", "--target", target)
    total = dump_json(STRINGS, "-k", "loss_kernel", "-c", "reduction=sum", "--target", target)
    assert mean["variant"]["constexprs"]["reduction"] == "mean"
    assert total["variant"]["constexprs"]["reduction"] == "sum"
    assert ttir_lines(mean, "arith.divf")  # the mean divides by n ...
    assert not ttir_lines(total, "arith.divf")  # ... the sum does not


@pytest.mark.parametrize("quoted", ['MODE="1"', "MODE='1'"])
def test_quoting_forces_a_string(quoted):
    """The string "1" and the int 1 are different constexprs and compile differently, whatever is cached."""
    as_int = dump_json(STRINGS, "-k", "mode_kernel", "-c", "MODE=1", "--target", "sm90")
    as_string = dump_json(STRINGS, "-k", "mode_kernel", "-c", quoted, "--target", "sm90")
    assert as_int["variant"]["constexprs"]["MODE"] == 1
    assert as_string["variant"]["constexprs"]["MODE"] == "1"
    assert ttir_lines(as_string, "arith.constant 1.000000e+00")  # MODE == "1"
    assert ttir_lines(as_int, "arith.constant 2.000000e+00")  # 1 == "1" is false


def test_autotune_config_holding_a_string():
    listed = tritonscope("list", STRINGS, "--json").stdout
    assert '"DOT_PRECISION": "ieee"' in listed
    ieee = dump_json(STRINGS, "-k", "dot_kernel", "--target", "sm90")
    tf32 = dump_json(STRINGS, "-k", "dot_kernel", "--config", "1", "--target", "sm90")
    assert ieee["variant"]["constexprs"]["DOT_PRECISION"] == "ieee"
    assert tf32["variant"]["constexprs"]["DOT_PRECISION"] == "tf32"
    assert "inputPrecision = tf32" not in ttir_lines(ieee, "tt.dot")[0]
    assert "inputPrecision = tf32" in ttir_lines(tf32, "tt.dot")[0]


# --- 3. A library's own autotuner, heuristics and launcher objects --------------------------------------


def test_list_finds_kernels_behind_library_wrappers():
    listed = json.loads(tritonscope("list", WRAPPERS, "--json").stdout)
    kernels = {k["name"]: k for k in listed["kernels"]}
    assert set(kernels) == {"tuned_scale_kernel", "heuristic_scale_kernel", "entry_add_kernel", "nested_kernel"}
    assert [c["constexprs"] for c in kernels["tuned_scale_kernel"]["autotune_configs"]] == [
        {"BLOCK": 256},
        {"BLOCK": 512},
    ]
    assert kernels["heuristic_scale_kernel"]["heuristics"] == ["BLOCK"]
    assert len(kernels["nested_kernel"]["autotune_configs"]) == 1
    assert kernels["nested_kernel"]["heuristics"] == ["EVEN"]


def test_dump_through_an_autotuner_subclass():
    report = dump_json(WRAPPERS, "-k", "tuned_scale_kernel", "--config", "1", "--target", "sm90")
    assert report["variant"]["config"] == 1
    assert report["variant"]["constexprs"]["BLOCK"] == 512
    assert report["resources"]["registers"] > 0


def test_dump_through_a_heuristics_subclass():
    report = dump_json(WRAPPERS, "-k", "heuristic_scale_kernel", "-a", "n=1000", "--target", "sm90")
    assert report["variant"]["constexprs"]["BLOCK"] == 1024
    assert "tensor<1024x" in report["stages"]["ttir"]


def test_dump_through_a_libentry_object():
    report = dump_json(WRAPPERS, "-k", "entry_add_kernel", "--target", "gfx942")
    assert report["variant"]["constexprs"]["BLOCK"] == 1024
    assert report["stages"]["amdgcn"].strip()


def test_dump_through_a_chain_of_wrappers():
    """libentry(libentry(autotune(heuristics(jit)))): the config and the heuristic both apply."""
    report = dump_json(WRAPPERS, "-k", "nested_kernel", "-a", "n=4096", "--target", "sm90")
    assert report["variant"]["constexprs"] == {"BLOCK": 128, "EVEN": True}
    assert report["options"]["num_warps"] == 8
    assert loads(report) == 1


# --- 4. Optional pointers and None -----------------------------------------------------------------------


def test_none_for_an_optional_pointer():
    report = dump_json(OPTIONAL, "-k", "offsets_kernel", "-a", "cu_seqlens=None", "--target", "sm90")
    assert report["variant"]["signature"]["cu_seqlens"] == "constexpr"
    assert report["variant"]["arguments"]["cu_seqlens"] is None
    assert loads(report) == 1  # x only: the `cu_seqlens is not None` branch is gone


def test_signature_default_of_none_applies():
    report = dump_json(OPTIONAL, "-k", "offsets_kernel", "--target", "sm90")
    assert report["variant"]["signature"]["cu_seqlens"] == "constexpr"
    assert loads(report) == 1


def test_optional_pointer_given_a_type_is_loaded():
    report = dump_json(OPTIONAL, "-k", "offsets_kernel", "-a", "cu_seqlens=*i32", "--target", "sm90")
    assert report["variant"]["signature"]["cu_seqlens"] == "*i32"
    assert loads(report) == 2


@pytest.mark.parametrize("target", ["sm90", "gfx942"])
def test_heuristics_see_none(target):
    report = dump_json(OPTIONAL, "-k", "varlen_kernel", "-a", "cu_seqlens=None", "--target", target)
    assert report["variant"]["constexprs"]["IS_VARLEN"] is False
    assert loads(report) == 1


def test_heuristics_see_a_pointer():
    report = dump_json(OPTIONAL, "-k", "varlen_kernel", "-a", "cu_seqlens=*i32", "--target", "sm90")
    assert report["variant"]["constexprs"]["IS_VARLEN"] is True
    assert loads(report) == 3


# --- 7. Say what was guessed -----------------------------------------------------------------------------


def test_scalar_in_float_arithmetic_infers_fp32():
    report = dump_json(INFERRED, "--target", "sm90")
    assert report["variant"]["signature"]["eps"] == "fp32"
    assert report["variant"]["signature"]["n_cols"] == "i32"


def test_json_says_which_scalar_types_were_inferred():
    """variant.inferred: every argument whose type tritonscope chose, with that type."""
    report = dump_json(INFERRED, "--target", "sm90")
    assert report["variant"]["inferred"]["eps"] == "fp32"
    assert report["variant"]["inferred"]["n_cols"] == "i32"
    given = dump_json(INFERRED, "-a", "eps=1e-6", "-a", "n_cols=4096", "--target", "sm90")
    assert "eps" not in given["variant"].get("inferred", {})
    assert "n_cols" not in given["variant"].get("inferred", {})


def header_entry(stdout: str, name: str) -> str:
    """The signature entry `name: ...` of dump's header, up to the next entry."""
    header = stdout.split("resources")[0]
    text = " ".join(line.strip(" │╭╮╰╯─") for line in header.splitlines())
    match = re.search(rf"\b{name}: ([^,]*)", text)
    assert match, f"no entry for {name} in the header:\n{header}"
    return match.group(1)


def test_header_says_which_scalar_types_were_inferred():
    guessed = tritonscope("dump", INFERRED, "--target", "sm90", "--stage", "ttir", "--no-pager").stdout
    assert "fp32" in header_entry(guessed, "eps") and "inferred" in header_entry(guessed, "eps")
    given = tritonscope("dump", INFERRED, "-a", "eps=1e-6", "--target", "sm90", "--stage", "ttir", "--no-pager").stdout
    assert "inferred" not in header_entry(given, "eps")


# --- 8. Errors stay clear --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["dump", "list"])
@pytest.mark.parametrize(("file", "line"), [("gpu_at_import_torch.py", 7), ("gpu_at_import_triton.py", 6)])
def test_file_needing_a_gpu_at_import(file, line, command):
    """Where none is visible, a file that asks for the GPU at import (line LINE) is imported again against
    the simulated one of the target, and says so."""
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here: the file imports against it")
    args = [command, LIBRARY / file, "--target", "sm90"]
    proc = tritonscope(*args)
    said = proc.stdout + proc.stderr
    assert "imported against a simulated NVIDIA H100 80GB HBM3 (sm90): no GPU is visible here" in said
    assert "fill_kernel" in proc.stdout


@pytest.mark.parametrize("value", [str(2**64), str(2**70), "2**70", str(-(2**63) - 1)])
def test_integer_beyond_64_bits_is_refused(value):
    stderr = tritonscope("dump", "sample:vector_add", "-a", f"n_elements={value}", "--target", "sm90", expect=2).stderr
    assert "n_elements" in stderr
    assert re.search(r"64|too large|range", stderr), stderr


def test_file_needing_a_gpu_at_import_where_torch_is_not_installed(tmp_path):
    """The simulated GPU answers through torch: where torch cannot be imported (hidden here by a
    sitecustomize, as a Triton-only install has none), the file's own error stands, exit 2, with
    what to do; never an internal error."""
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here: the file imports against it")
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None  # no torch here\n")
    proc = tritonscope(
        "list", LIBRARY / "gpu_at_import_triton.py", "--target", "sm90", expect=2, env={"PYTHONPATH": str(tmp_path)}
    )
    assert "simulated" not in proc.stdout
    assert "gpu_at_import_triton.py:6" in proc.stderr
    assert "with torch installed, tritonscope imports such a file against a simulated GPU" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
