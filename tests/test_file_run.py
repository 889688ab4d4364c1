"""The file's own run of `--from-run` (triton_api/file_run.py), in this process: which cases of a
test or benchmark function it calls, and how its statements go on past a failure (issue 43). The
runs under the simulated GPU are in test_tutorials.py."""

from __future__ import annotations

import ast
import json

import pytest
import triton

from tritonscope.triton_api import file_run

torch = pytest.importorskip("torch")


def test_a_test_function_gets_its_smallest_size_once_per_other_choice():
    @pytest.mark.parametrize("n", [98432, 4096, 1000])
    @pytest.mark.parametrize("M, N", [(1151, 8192), (64, 64), (128, 64)])
    @pytest.mark.parametrize("dtype", [torch.float16, pytest.param(torch.float32, id="fp32")])
    @pytest.mark.parametrize("causal", [True, False])
    def test_op(n, M, N, dtype, causal):
        pass

    cases = file_run._test_cases(test_op)
    assert {(c["n"], c["M"], c["N"]) for c in cases} == {(1000, 64, 64)}  # the smallest, by volume M*N
    assert len(cases) == 4 and {(c["dtype"], c["causal"]) for c in cases} == {
        (torch.float16, True),
        (torch.float16, False),
        (torch.float32, True),
        (torch.float32, False),
    }


def test_a_benchmark_gets_its_smallest_x_once_per_line_with_its_fixed_arguments():
    benchmark = triton.testing.Benchmark(
        x_names=["M", "N"],
        x_vals=[(2048, 4096), (128, 256), (512, 512)],
        line_arg="provider",
        line_vals=["triton", "torch"],
        line_names=["Triton", "Torch"],
        plot_name="p",
        args={"dtype": torch.bfloat16},
    )
    assert file_run._benchmark_cases(benchmark) == [
        {"M": 128, "N": 256, "provider": "triton", "dtype": torch.bfloat16},
        {"M": 128, "N": 256, "provider": "torch", "dtype": torch.bfloat16},
    ]
    one_name = triton.testing.Benchmark(["size"], [2**16, 2**12], "provider", ["a"], ["A"], "p", {})
    assert file_run._benchmark_cases(one_name) == [{"size": 4096, "provider": "a"}]


def test_statements_fail_alone_and_if_blocks_are_entered_statement_by_statement(tmp_path):
    source = "\n".join(
        [
            "import sys",  # 1
            "done = []",  # 2
            "assert False, 'a check of a result'",  # 3
            "done.append(4)",  # 4
            "if __name__ == '__main__' and len(sys.argv) > 0:",  # 5
            "    1 / 0",  # 6
            "    done.append(7)",  # 7
            "elif True:",  # 8
            "    done.append(9)",  # 9
            "if missing_name:",  # 10
            "    done.append(11)",  # 11
            "done.append(12)",  # 12
            "handle = 1 / 0",  # 13: unbound, as None (a GPU library's handle that fails to load)
            "done.append(handle)",  # 14
            "sys.exit(0)",  # 15
            "done.append(16)",  # 16
        ]
    )
    path = tmp_path / "prog.py"
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    log = tmp_path / "steps.jsonl"
    run = file_run._Statements(namespace, str(path), 0, str(log))
    assert run.block(ast.parse(source).body) == 15  # sys.exit ends the run there
    assert namespace["done"] == [4, 7, 12, None]
    assert [(f["line"], f["error"].split(":")[0]) for f in run.failures] == [
        (3, "AssertionError"),
        (6, "ZeroDivisionError"),
        (10, "NameError"),
        (13, "ZeroDivisionError"),
    ]
    written = [json.loads(line)["skipped"] for line in log.read_text().splitlines()]
    assert [f["statement"] for f in written] == [3, 6, 10, 13]  # each as it failed: a launch may end the run


def test_each_step_is_one_json_line_of_the_log(tmp_path):
    log = tmp_path / "steps.jsonl"
    file_run._run_cases(lambda n: 1 / n, "bench_div", [{"n": 1}, {"n": 0}], str(log))
    skipped, step = [json.loads(line) for line in log.read_text().splitlines()]
    assert skipped["skipped"]["function"] == "bench_div" and skipped["skipped"]["case"] == "n=0"
    assert step["step"] == "bench_div" and step["cases"] == 2
    assert [f["case"] for f in step["failures"]] == ["n=0"]
    assert step["failures"][0]["error"] == "ZeroDivisionError: division by zero"


READ_BEFORE_LAUNCH = """\
import torch
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda")
    print(x.mean().item())
    import no_such_module
    y = torch.empty_like(x)
    double[(4,)](x, y, x.numel(), BLOCK=1024)
"""


def test_the_statements_gone_past_before_the_launch_are_said_a_line_each(tmp_path, cli):
    """Issue 55 item 5: the launch was compiled and the read before it skipped without a word."""
    path = tmp_path / "read_first.py"
    path.write_text(READ_BEFORE_LAUNCH)
    err = cli("dump", path, "--from-run", "--stage", "ttir", "-t", "sm90").stderr
    said = [line.strip() for line in err.splitlines()]
    assert f"from the run: launch 1 of double at {path}:18, grid 4x1x1" in said
    at = said.index(f"from the run: launch 1 of double at {path}:18, grid 4x1x1")
    # The read on line 15 gets the value computed on the host (--values host, the default since issue 51):
    # it runs; the failed import is the one statement gone past, said with its reason.
    assert said[at + 1 : at + 2] == [
        "skipped line 16, import no_such_module: ModuleNotFoundError: No module named 'no_such_module'",
    ]
    assert not any(line.startswith("skipped line 15") for line in said)
