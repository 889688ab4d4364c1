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


def _from_run(file, *flags, expect=0):
    """`dump FILE --from-run --json`: (the compiled variant, what was said on stderr)."""
    proc = tritonscope("dump", SHAPED / file, "--from-run", "--json", *flags, expect=expect)
    return (json.loads(proc.stdout)["variant"] if expect == 0 else None), proc.stderr


def test_list_imports_files_that_ask_for_the_gpu_against_the_simulated_one():
    for file, kernels in {
        "device_at_import.py": ["scale_kernel"],
        "guarded.py": ["relu_kernel"],
        "launch_at_import.py": ["add_kernel", "negate_kernel"],  # negate_kernel comes after the stop
    }.items():
        listed = json.loads(tritonscope("list", SHAPED / file, "--json").stdout)
        assert [k["name"] for k in listed["kernels"]] == kernels, file
        assert "imported against a simulated NVIDIA H100 80GB HBM3 (sm90)" in listed["notices"][0]
    stop = json.loads(tritonscope("list", SHAPED / "launch_at_import.py", "--json").stdout)["notices"][1]
    assert "stopped at line 31 (print(out)): printing a tensor needs values" in stop


def test_from_run_compiles_the_kernel_as_the_files_own_launch_specialized_it():
    variant, said = _from_run("launch_at_import.py", "-t", "sm90")
    assert "launch 1 of add_kernel at" in said and "launch_at_import.py:22, grid 97x1x1" in said
    assert variant["constexprs"] == {"BLOCK_SIZE": 1024}
    assert variant["signature"]["x_ptr"] == "*fp16" and variant["hints"]["x_ptr"] == "D"
    assert variant["arguments"]["n_elements"] == 98432 and variant["hints"]["n_elements"] == "D"


def test_from_run_goes_past_a_value_read_with_on_read():
    """negate_kernel is launched after the file prints a tensor: the run stops there, and says how to
    go on; with --on-read zero the print gets zeros and the launch is reached."""
    _, said = _from_run("launch_at_import.py", "-k", "negate_kernel", "-t", "sm90", expect=2)
    assert "launch_at_import.py:31: the program asked for printing a tensor before reaching" in said
    assert "add --on-read zero" in said
    variant, said = _from_run("launch_at_import.py", "-k", "negate_kernel", "-t", "sm90", "--on-read", "zero")
    assert "launch 1 of negate_kernel at" in said and "launch_at_import.py:42, grid 1x1x1" in said
    assert variant["arguments"]["n_elements"] == 16 and variant["constexprs"] == {"BLOCK_SIZE": 16}


def test_from_run_sees_the_targets_answers_and_the_launch_asked_for():
    hopper, _ = _from_run("device_at_import.py", "-t", "sm90")
    ampere, _ = _from_run("device_at_import.py", "-t", "sm80")
    assert hopper["constexprs"] == {"BLOCK": 1024} and ampere["constexprs"] == {"BLOCK": 256}  # chosen by capability
    assert hopper["signature"]["factor"] == "fp32" and hopper["arguments"]["n"] == 100_000
    guarded, _ = _from_run("guarded.py", "-t", "sm90")  # an argument launched as 1 is a constant, not a constexpr
    assert guarded["signature"]["stride"] == "constexpr" and guarded["arguments"]["stride"] == 1
    assert guarded["constexprs"] == {"BLOCK": 512}
    second, said = _from_run("launch_in_main.py", "--launch", "2", "-t", "sm90")
    assert "launch 2 of row_scale_kernel" in said
    assert second["arguments"]["n_cols"] == 4096 and second["hints"]["n_cols"] == "D"
    assert second["constexprs"]["BLOCK"] == 4096  # the heuristic, from the launch's n_cols
    assert second["signature"]["in_ptr"] == "*bf16"
    _, said = _from_run("launch_in_main.py", "--launch", "3", "-t", "sm90", expect=2)
    assert "stopped at " in said and "launch_in_main.py:39" in said and "before reaching launch 3" in said


def test_from_run_of_a_program_that_never_launches_says_so(tmp_path):
    _, said = _from_run("value_helper.py", "-k", "softplus_kernel", "-t", "sm90", expect=2)
    assert "python value_helper.py ended (exit 0) without reaching a launch of softplus_kernel" in said
    looping = tmp_path / "loops.py"
    looping.write_text((SHAPED / "value_helper.py").read_text() + "\nwhile True:\n    pass\n")
    proc = tritonscope("dump", looping, "--from-run", "--timeout", "3", "-t", "sm90", expect=2)
    assert "ran 3 s without reaching a launch of a kernel of loops.py" in proc.stderr


def test_from_run_of_a_gluon_kernel_takes_the_layout_the_file_chose():
    variant, said = _from_run("gluon_rows.py", "-t", "sm90")
    assert "launch 1 of row_max_kernel at" in said and "gluon_rows.py:29, grid 256x1x1" in said
    assert variant["constexprs"]["ROWS"] == 16 and variant["constexprs"]["COLS"] == 1024
    assert "size_per_thread=[1, 8]" in str(variant["constexprs"]["layout"])
    assert variant["arguments"]["n_rows"] == 4096 and variant["arguments"]["n_cols"] == 1000
    assert variant["hints"]["n_rows"] == "D" and "n_cols" not in variant["hints"]


def test_diff_varies_what_the_run_launched():
    proc = tritonscope(
        "diff", SHAPED / "launch_at_import.py", "--from-run", "-t", "sm90", "--vary", "num_warps=4,8", "--json"
    )
    variants = json.loads(proc.stdout)["variants"]
    assert [v["variant"]["options"]["num_warps"] for v in variants] == [4, 8]
    assert all(v["variant"]["arguments"]["n_elements"] == 98432 for v in variants)
    assert all(v["variant"]["signature"]["x_ptr"] == "*fp16" for v in variants)


def test_what_a_file_writes_under_the_simulated_gpu_stays_out_of_the_working_directory(tmp_path):
    """A file imported, or run for --from-run, against the simulated GPU writes into a folder of
    tritonscope's own: a benchmark's results.html (figures of no real run) never lands in the cwd."""
    file = SHAPED / "writes_results.py"
    listed = json.loads(tritonscope("list", file, "--json", cwd=tmp_path).stdout)
    assert [k["name"] for k in listed["kernels"]] == ["fill_kernel"]
    assert "imported against a simulated" in listed["notices"][0]
    proc = tritonscope("dump", file, "--from-run", "-t", "sm90", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["variant"]["arguments"]["n_elements"] == 4096
    assert "launch 1 of fill_kernel" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
