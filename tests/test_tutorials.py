"""Files shaped like Triton's tutorials and GPU-guarded libraries: helpers told apart from kernels,
imports against the simulated device, and `--from-run` specializations (issue 32)."""

from __future__ import annotations

import json

from cli_process import tritonscope
from conftest import KERNELS

SHAPED = KERNELS / "tutorial_shaped"


def test_list_marks_helpers_with_their_callers_and_the_json_carries_it():
    out = tritonscope("list", SHAPED / "value_helper.py", "--json").stdout
    specs = {k["name"]: k for k in json.loads(out)["kernels"]}
    assert specs["softplus"]["is_helper"] and specs["softplus"]["returns_value"]
    assert specs["softplus"]["called_by"] == ["softplus_kernel"]
    assert not specs["softplus_kernel"]["is_helper"] and specs["softplus_kernel"]["called_by"] == []
    text = " ".join(tritonscope("list", SHAPED / "value_helper.py", env={"COLUMNS": "80"}).stdout.split())
    assert "softplus line 8 helper (returns a value, called by softplus_kernel)" in text


def test_dump_of_a_value_returning_helper_names_its_callers_instead_of_failing_in_triton():
    proc = tritonscope("dump", SHAPED / "value_helper.py", "-k", "softplus", "-t", "sm90", expect=2)
    assert "softplus (line 8) is a @triton.jit helper: it returns a value" in proc.stderr
    assert "it is called by softplus_kernel" in proc.stderr and "-k softplus_kernel" in proc.stderr
    assert "PassManager" not in proc.stderr + proc.stdout and "MLIR" not in proc.stderr


def test_a_file_of_helpers_alone_says_so(tmp_path):
    lone = tmp_path / "lone.py"
    lone.write_text((SHAPED / "value_helper.py").read_text().split("@triton.jit\ndef softplus_kernel")[0])
    proc = tritonscope("dump", lone, "-t", "sm90", expect=2)
    assert "lone.py has no kernel to compile, only @triton.jit helpers that kernels call: softplus" in proc.stderr
    listed = json.loads(tritonscope("list", lone, "--json").stdout)["kernels"]
    assert listed[0]["is_helper"] and listed[0]["called_by"] == []
