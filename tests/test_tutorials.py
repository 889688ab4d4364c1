"""Files shaped like Triton's tutorials and GPU-guarded libraries: helpers told apart from kernels,
imports against the simulated device, and `--from-run` specializations (issue 32)."""

from __future__ import annotations

import json
import sys

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


def test_from_run_goes_past_a_value_read():
    """negate_kernel is launched after the program prints a tensor: run as a program (-- python FILE),
    the print gets the values computed on the host (the default) and the launch is reached; with
    --values stop it stops there and says how to go on; with --on-read zero (the same flag) the print
    gets zeros and the launch is reached. (The file's own run goes on past a failed statement.)"""
    program = ("--", sys.executable, str(SHAPED / "launch_at_import.py"))
    for flags in ((), ("--on-read", "zero")):
        variant, said = _from_run("launch_at_import.py", "-k", "negate_kernel", "-t", "sm90", *flags, *program)
        assert "launch 1 of negate_kernel at" in said and "launch_at_import.py:42, grid 1x1x1" in said
        assert variant["arguments"]["n_elements"] == 16 and variant["constexprs"] == {"BLOCK_SIZE": 16}
    flags = ("-k", "negate_kernel", "-t", "sm90", "--values", "stop", *program)
    _, said = _from_run("launch_at_import.py", *flags, expect=2)
    assert "launch_at_import.py:31: the program asked for printing a tensor, before reaching" in said
    assert "add --values zero" in said


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
    # The check at line 39 reads the device; the run goes on past it (issue 43), and the do_bench at
    # line 40 launches the kernel a third time, on the first input.
    third, said = _from_run("launch_in_main.py", "--launch", "3", "-t", "sm90")
    assert "launch 3 of row_scale_kernel" in said and third["arguments"]["n_cols"] == 781


def test_from_run_of_a_file_whose_decorators_ask_the_driver_and_its_launchs_grid():
    """Tutorials 03 and 06 (and `dump --help`'s example): their kernels are defined again after the run,
    and the autotune configs asked the driver, gone by then ("0 active drivers"); they are defined
    against the simulated GPU again. explain estimates the launch for the grid the run gave, which
    it said was not known."""
    proc = tritonscope("explain", SHAPED / "configs_by_device.py", "--from-run", "-t", "sm90", "--json")
    assert "launch 1 of scale_kernel at" in proc.stderr and "grid 16x1x1" in proc.stderr
    assert "defined against a simulated NVIDIA H100 80GB HBM3 (sm90)" in proc.stderr
    document = json.loads(proc.stdout)
    assert document["variant"]["constexprs"] == {"BLOCK": 256}
    launch = document["time"]["launch"]
    assert launch["grid"][:1] == [16] and launch["grid_from"] == "the run's launch"


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


def test_from_run_goes_on_past_a_check_of_a_result_to_the_next_launch():
    """Triton's low-memory dropout and grouped GEMM tutorials check a result on the device (an
    `assert torch.allclose`, a print) between their launches: the checks read values computed on the
    host (the kernels under Triton's interpreter, tl.rand's Philox too), so every statement runs and
    a launch 2 that the file never makes is said to be missing as such; with --values stop the run
    goes on past each check, into an `if __name__ == "__main__" and ...:` block, statement by
    statement there too, and each check is named where it stopped."""
    variant, said = _from_run("checks_between_launches.py", "-k", "seeded_noise_kernel", "-t", "sm90")
    assert "launch 1 of seeded_noise_kernel at" in said and "checks_between_launches.py:35, grid 3x1x1" in said
    assert variant["arguments"] == {"out_ptr": "*fp32", "n": 3000, "seed": 123}
    flags = ("-k", "seeded_noise_kernel", "--launch", "2", "-t", "sm90")
    _, said = _from_run("checks_between_launches.py", *flags, expect=2)
    assert "python checks_between_launches.py: every statement ran" in " ".join(said.split())
    _, said = _from_run("checks_between_launches.py", *flags, "--values", "stop", expect=2)
    said = " ".join(said.split())
    assert "python checks_between_launches.py stopped at " in said and "checks_between_launches.py:30 " in said
    assert "torch.allclose() needs values" in said and "before reaching launch 2 of seeded_noise_kernel" in said
    assert "3 statements failed (lines 30, 33, 36), the others ran" in said
    assert "seeded_noise_kernel is launched by the file's own code (line 35)" in said and "--launch 1" in said


def test_from_run_finds_launches_in_test_functions_with_their_smallest_sizes():
    """A kernel launched only by a `test_*` function (Triton's fused-attention tutorial): the run calls
    it with the smallest size its parametrize offers, once per other choice (test_file_run.py holds
    which cases)."""
    first, said = _from_run("launches_in_tests.py", "-k", "scale_kernel", "-t", "sm90")
    assert "launch 1 of scale_kernel at" in said and "launches_in_tests.py:44, grid 4x1x1" in said
    assert first["arguments"]["n"] == 1000 and first["signature"]["x_ptr"] == "*fp16"


def test_from_run_finds_launches_in_perf_report_benchmarks_at_their_smallest_x():
    """square_kernel is launched by a benchmark only, with a class as a constexpr (as Gluon's persistence
    tutorial gives its MMA abstraction): no flag gives a class back, so the launch's compile is read."""
    proc = tritonscope(
        "dump", SHAPED / "launches_in_tests.py", "--from-run", "--json", "-k", "square_kernel", "-t", "sm90"
    )
    dumped, said = json.loads(proc.stdout), proc.stderr
    assert "launch 1 of square_kernel at" in said and "grid 8x1x1" in said and "not recompiled" in said
    variant = dumped["variant"]  # the captured compile: the launch's specialization, its values unrecorded
    assert variant["signature"] == {
        "x_ptr": "*bf16",
        "out_ptr": "*bf16",
        "n": "i32",
        "OP": "constexpr",
        "BLOCK": "constexpr",
    }
    assert variant["hints"]["n"] == "D" and variant["constexprs"] == {"OP": "<class '__main__.Square'>", "BLOCK": 512}
    assert "HMUL2.BF16" in dumped["stages"]["sass"]  # OP.apply(x) = x * x, in bf16


def test_from_run_of_a_kernel_no_step_launches_names_the_function_that_would():
    _, said = _from_run("launches_in_tests.py", "-k", "negate_kernel", "-t", "sm90", expect=2)
    said = " ".join(said.split())
    assert "python launches_in_tests.py ended (exit 0) without reaching a launch of negate_kernel" in said
    assert "python launches_in_tests.py: every statement ran" in said
    assert "test_scale (line 48), 2 cases: ran without launching it" in said  # its checks pass on the host
    assert "bench_square (line 55), 2 cases: ran without launching it" in said
    assert "negate_kernel is launched by negate_in_place (line 74)" in said
    assert "call negate_in_place from a script of yours and give it after --" in said


def test_on_read_answers_results_shaped_by_values_and_triton_s_input_helpers():
    """10-block-scaled-matmul's inputs: torch.testing.assert_close checks a result, Triton's
    MXFP4Tensor (to Triton 3.8) branches on a device value and indexes with a boolean mask inside
    triton/tools (a helper the program calls, not the compiler: its reads are the program's), and the
    program keeps `values[values > 0]`. With values computed on the host (the default) the check
    passes and the mask keeps the elements the same draws keep on the CPU (the simulated GPU's
    generator starts where CUDA's and the CPU's do); with --values stop the run stops at the check;
    with a stand-in, the check passes and a mask's result has the shape the stand-in gives: every
    element with 1, none with zero."""
    import torch
    from triton.tools.mxfp import MXFP4Tensor

    with torch.random.fork_rng():
        torch.manual_seed(67280421310721)  # the default seed of torch's generators, CUDA's too
        torch.rand(1000)
        on_the_cpu = MXFP4Tensor(size=(1000,), device="cpu").random().to(torch.float32)
    variant, said = _from_run("fp4_inputs_then_launch.py", "-k", "scale_kernel", "-t", "sm90")
    assert variant["arguments"]["n"] == int((on_the_cpu > 0).sum()) and 0 < variant["arguments"]["n"] < 1000
    _, said = _from_run("fp4_inputs_then_launch.py", "-k", "scale_kernel", "-t", "sm90", "--values", "stop", expect=2)
    said = " ".join(said.split())
    assert "fp4_inputs_then_launch.py:22 (DeviceValueRead: torch.testing.assert_close() needs values" in said
    for value, kept in (("1", 1000), ("zero", 0)):
        variant, said = _from_run("fp4_inputs_then_launch.py", "-k", "scale_kernel", "-t", "sm90", "--on-read", value)
        assert "fp4_inputs_then_launch.py:26, grid 8x1x1" in said
        assert variant["arguments"]["n"] == kept, value


def test_from_run_goes_past_a_results_check():
    """scale_kernel is launched after torch.allclose checks the first launch (09-persistent-matmul's
    validate()), and only if a matmul through Triton's cuBLAS binding (no libcublas here) agrees with
    torch's: with values computed on the host (the default: copy_kernel under Triton's interpreter,
    cuBLAS's C = A @ Bᵀ by its definition) both checks pass and the launch is reached with no flag;
    with --values stop the file's own run stops that statement there and the hint says how to go on;
    with --on-read zero every tensor read holds zeros, the checks pass, and the launch is reached."""
    variant, said = _from_run("validate_then_launch.py", "-k", "scale_kernel", "-t", "sm90")
    assert "launch 1 of scale_kernel at" in said and variant["arguments"]["n"] == 1000
    _, said = _from_run("validate_then_launch.py", "-k", "scale_kernel", "-t", "sm90", "--values", "stop", expect=2)
    assert "DeviceValueRead: torch.allclose() needs values" in said
    assert "go on past its reads of device values with --values zero" in " ".join(said.split())
    variant, said = _from_run("validate_then_launch.py", "-k", "scale_kernel", "-t", "sm90", "--on-read", "zero")
    assert "launch 1 of scale_kernel at" in said and "validate_then_launch.py:37, grid 8x1x1" in said
    assert variant["constexprs"] == {"BLOCK": 128} and variant["arguments"]["n"] == 1000
