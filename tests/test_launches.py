"""Recorded launches (`trace --launches`), `reproduce` and `bench DIR/:KERNEL`.

On the CPU: a traced program compiles real kernels offline and passes launches with CPU tensors
through CompiledKernel.launch_metadata, the method every launch calls; the reproducer script is
run standalone (tritonscope unimportable) up to its compile, which needs no GPU, and its PTX
hash checked. Marked gpu: real launches of a torch.compile program and a plain kernel program.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KERNELS

from tritonscope.core.samples import samples_dir
from tritonscope.core.targets import local_target
from tritonscope.triton_api.tools import ptxas_for

OFFLINE = KERNELS / "launches_offline.py"


def isolated(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """Python without tritonscope: -I drops PYTHONPATH and the user's site, and the import is blocked."""
    blocked = "import sys; sys.modules['tritonscope'] = None\n"
    return subprocess.run(
        [sys.executable, "-I", "-c", blocked + code], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from typer.testing import CliRunner

    from tritonscope.cli import app

    out = tmp_path_factory.mktemp("launches") / "run"
    # As torch.compile does, the program names a ptxas (here Triton's own): the reproducer must use it too.
    env = {"TRITON_PTXAS_PATH": ptxas_for(90)}
    result = CliRunner().invoke(app, ["trace", "-o", str(out), "--", sys.executable, str(OFFLINE)], env=env)
    assert result.exit_code == 0, result.stderr
    assert "recorded 4 launches, at most 3 per kernel and process" in result.stderr
    return out


def _records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "kernels.jsonl").read_text().splitlines()]


def _launches(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "launches.jsonl").read_text().splitlines()]


def test_trace_records_the_first_launches_of_each_kernel(capture):
    launches = _launches(capture)
    add = [x for x in launches if x["name"] == "add_kernel"]
    assert [x["launch"] for x in add] == [0, 1, 2]  # five launches, the first three kept
    first = add[0]
    assert first["grid"] == [16, 1, 1]
    assert first["params"] == ["x_ptr", "y_ptr", "output_ptr", "n_elements", "BLOCK_SIZE"]
    assert first["args"][0] == {
        "kind": "tensor",
        "shape": [4096],
        "stride": [1],
        "dtype": "torch.float16",
        "device": "cpu",
        "storage_offset": 0,
    }
    assert first["args"][3:] == [{"kind": "int", "value": 4096}, {"kind": "int", "value": 256}]
    (gather,) = [x for x in launches if x["name"] == "gather_kernel"]
    source, index = gather["args"][1], gather["args"][2]
    assert (source["shape"], source["stride"]) == ([100, 64], [1, 100])  # a transposed view, as it was
    assert (index["dtype"], index["min"], index["max"]) == ("torch.int32", 3, 699)
    assert "min" not in source  # values are read of integer tensors only
    compiles = {
        json.loads(line)["name"]: json.loads(line) for line in (capture / "kernels.jsonl").read_text().splitlines()
    }
    assert gather["hash"] == compiles["gather_kernel"]["hash"] and compiles["gather_kernel"]["module"] == "__main__"
    assert compiles["gather_kernel"]["globals"]["SCALE"] == {"constexpr": "2"}
    assert compiles["add_kernel"]["constant_values"] == {"(4,)": {"kind": "int", "value": 256}}


@pytest.mark.parametrize(("limit", "expected"), [("0", None), ("1", {"add_kernel": 1, "gather_kernel": 1})])
def test_launches_option_bounds_the_log(cli, tmp_path, limit, expected):
    out = tmp_path / "run"
    result = cli("trace", "-o", out, "--launches", limit, "--", sys.executable, OFFLINE)
    assert "captured 2 compiled kernels" in result.stderr
    if expected is None:
        assert not (out / "launches.jsonl").exists() and "recorded" not in result.stderr
        table = cli("cache", "list", out).stdout
        assert "x grid" not in table and "tritonscope reproduce" not in table
        return
    names = [x["name"] for x in _launches(out)]
    assert {n: names.count(n) for n in names} == expected
    assert (
        "--launches -1: give 0" in cli("trace", "-o", tmp_path / "x", "--launches", "-1", "--", "true", expect=2).stderr
    )


def test_cache_list_and_dump_show_the_launches(cli, capture):
    table = cli("cache", "list", capture).stdout
    assert "3x grid 16x1x1: f16[4096] f16[4096] f16[4096]" in table
    assert "1x grid 8x1x1: f32[1000] f32[100,64](strided) i32[1000]" in table
    assert f"tritonscope reproduce {capture}/:" in table
    rows = {r["name"]: r for r in json.loads(cli("cache", "list", capture, "--json").stdout)["kernels"]}
    assert [x["grid"] for x in rows["add_kernel"]["launches"]] == [[16, 1, 1]] * 3
    assert rows["gather_kernel"]["launches"][0]["args"][2]["max"] == 699
    doc = json.loads(cli("dump", f"{capture}/:gather_kernel", "--json").stdout)
    assert [x["grid"] for x in doc["launches"]] == [[8, 1, 1]]


def _script_data(path: Path) -> dict:
    """The script's data: its assignments of literals, read without running it."""
    tree = ast.parse(path.read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return found


def test_reproduce_imports_a_library_kernel_and_its_ptx_hash_matches(cli, capture, tmp_path):
    script = tmp_path / "repro.py"
    result = cli("reproduce", f"{capture}/:add_kernel", "--launch", "2", "-o", script)
    assert "launch 2 of 3: grid 16x1x1, f16[4096] f16[4096] f16[4096]" in result.stderr
    # The traced program's copy of the sample (an installed tritonscope's, or this checkout's).
    vector_add = Path(next(r["file"] for r in _records(capture) if r["name"] == "add_kernel"))
    assert (
        f"specialized as that launch: tritonscope dump {vector_add} -k add_kernel --target sm90 -a 'x_ptr=*fp16' "
        "-a 'y_ptr=*fp16' -a 'output_ptr=*fp16' -a n_elements=4096 -c BLOCK_SIZE=256 -w 4 -s 3" in result.stderr
    )
    data = _script_data(script)
    assert data["IMPORT"] == {"module": "vector_add", "root": str(vector_add.parent), "file": str(vector_add)}
    assert data["GRID"] == (16, 1, 1) and data["TARGET"] == ("cuda", 90, 32)
    assert data["CONSTANTS"] == {(4,): {"kind": "int", "value": 256}}
    ptx = next((capture / "cache").glob("*/add_kernel.ptx"))
    assert data["ASSEMBLY"] == "ptx" and data["ASSEMBLY_SHA256"] == hashlib.sha256(ptx.read_bytes()).hexdigest()
    assert "extern_libs" not in data["OPTIONS"] and data["OPTIONS"]["num_warps"] == 4
    assert data["ENVIRONMENT"] == {"TRITON_PTXAS_PATH": ptxas_for(90)}  # the traced program's ptxas
    code = f"import runpy; ns = runpy.run_path({str(script)!r}); c, d = ns['compile_kernel']()\n"
    code += "print(d == ns['ASSEMBLY_SHA256'], c.hash == ns['CAPTURED_HASH'])"
    ran = isolated(code, tmp_path)
    assert ran.returncode == 0 and ran.stdout.split() == ["True", "True"], ran.stderr
    # A process that imported another file of the module's name first (a notebook's or a test's copy
    # of the sample): the captured file is compiled, not that one (its PTX names its own path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "vector_add.py").write_text(vector_add.read_text())
    first = f"import sys; sys.path.insert(0, {str(other)!r}); import vector_add\n"
    ran = isolated(first + code, tmp_path)
    assert ran.returncode == 0 and ran.stdout.split() == ["True", "True"], ran.stderr


def test_reproduce_embeds_a_kernel_of_the_traced_program(cli, capture, tmp_path):
    result = cli("reproduce", f"{capture}/:gather_kernel", "-o", "-")
    assert "importing" in result.stderr and "would run that program" in result.stderr
    assert f"specialized as that launch: tritonscope dump {capture}/:gather_kernel" in result.stderr
    script = tmp_path / "gather.py"
    script.write_text(result.stdout)
    data = _script_data(script)
    assert data["IMPORT"] is None and data["SOURCE_FILE"] == str(OFFLINE)
    lines = (data["SOURCE"]).splitlines()
    assert lines[0] == "@triton.jit" and lines[1].startswith("def gather_kernel(")
    assert OFFLINE.read_text().splitlines()[data["FIRST_LINE"]] == lines[1]  # the def keeps its line number
    assert data["ARGS"][2]["min"] == 3 and data["ARGS"][1]["stride"] == [1, 100]
    code = f"import runpy; ns = runpy.run_path({str(script)!r}); c, d = ns['compile_kernel']()\n"
    code += "print(d == ns['ASSEMBLY_SHA256'], c.hash == ns['CAPTURED_HASH'])"
    ran = isolated(code, tmp_path)
    assert ran.returncode == 0 and ran.stdout.split() == ["True", "True"], ran.stderr


def test_reproduce_errors(cli, capture, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli("reproduce", f"{capture}/:add_kernel")
    assert Path("repro_add_kernel.py").is_file()
    refused = cli("reproduce", f"{capture}/:add_kernel", expect=2).stderr
    assert "repro_add_kernel.py: exists" in refused and "--force" in refused
    cli("reproduce", f"{capture}/:add_kernel", "--force")
    assert "numbered 1 to 3" in cli("reproduce", f"{capture}/:add_kernel", "--launch", "4", expect=2).stderr
    assert "no kernel named 'nope'" in cli("reproduce", f"{capture}/:nope", expect=2).stderr
    unlaunched = tmp_path / "compiled_only"
    cli("trace", "-o", unlaunched, "--", sys.executable, KERNELS / "compiles_two.py")
    message = cli("reproduce", f"{unlaunched}/:add_kernel", expect=2).stderr
    assert "no launch of add_kernel was recorded" in message


@pytest.mark.skipif(local_target() is not None, reason="checks the message where no GPU is visible")
def test_bench_of_a_capture_says_it_needs_a_gpu(cli, capture):
    for args in ([f"{capture}/:add_kernel"], [samples_dir() / "vector_add.py", "--launch", f"{capture}/:add_kernel"]):
        assert "bench runs kernels on a GPU, and none is visible here" in cli("bench", *args, expect=2).stderr
    assert "no kernel named 'nope'" in cli("bench", f"{capture}/:nope", expect=2).stderr


def test_the_recorder_describes_every_kind_of_argument():
    import torch
    import triton.language as tl

    from tritonscope.triton_api.capture import describe

    assert describe((1, 2.5, None, True)) == {
        "kind": "tuple",
        "items": [
            {"kind": "int", "value": 1},
            {"kind": "float", "value": "2.5"},
            {"kind": "none"},
            {"kind": "bool", "value": True},
        ],
    }
    assert describe(float("nan")) == {"kind": "float", "value": "nan"}
    assert describe(tl.float16) == {"kind": "tl_dtype", "value": "fp16"}
    assert describe(torch.bfloat16) == {"kind": "torch_dtype", "value": "torch.bfloat16"}
    assert describe(tl.constexpr(8)) == {"kind": "int", "value": 8}
    big = describe(torch.zeros(2**21, dtype=torch.int64))
    assert "min" not in big and big["shape"] == [2**21]  # too large to read at every launch
    assert describe(object())["kind"] == "other"


# On the GPU (the lead runs these on the H100).


def _trace(cli, out: Path, program: Path):
    result = cli("trace", "-o", out, "--", sys.executable, program)
    print(result.stderr)
    return {r["name"]: r for r in json.loads(cli("cache", "list", out, "--json").stdout)["kernels"]}


def _run_script(script: Path, cwd: Path) -> subprocess.CompletedProcess:
    code = f"import runpy; sys.argv = [{str(script)!r}]; runpy.run_path({str(script)!r}, run_name='__main__')"
    ran = isolated(code, cwd)
    print(ran.stdout, ran.stderr)
    return ran


@pytest.mark.gpu
def test_plain_kernel_launches_are_recorded_reproduced_and_benched(cli, tmp_path):
    rows = _trace(cli, tmp_path / "run", KERNELS / "launch_vector_add.py")
    launches = rows["add_kernel"]["launches"]
    assert [x["grid"] for x in launches] == [[97, 1, 1]] * 3  # five launches, three kept
    assert [a.get("shape") for a in launches[0]["args"][:3]] == [[98432]] * 3
    assert launches[0]["args"][0]["device"].startswith("cuda") and launches[0]["args"][3]["value"] == 98432
    script = tmp_path / "repro.py"
    cli("reproduce", f"{tmp_path / 'run'}/:add_kernel", "-o", script)
    ran = _run_script(script, tmp_path)
    assert ran.returncode == 0 and "ptx hash matches the captured one" in ran.stdout
    assert "add_kernel grid 97x1x1:" in ran.stdout and " ms (median" in ran.stdout
    doc = json.loads(cli("bench", f"{tmp_path / 'run'}/:add_kernel", "--json").stdout)
    (timed,) = doc["launches"]  # the three launches were the same: timed once
    assert timed["ms"] > 0 and timed["assembly_matched"] is True and timed["bytes"] == 3 * 98432 * 4
    file_doc = json.loads(
        cli("bench", samples_dir() / "vector_add.py", "--launch", f"{tmp_path / 'run'}/:add_kernel", "--json").stdout
    )
    assert file_doc["launches"][0]["ms"] > 0 and file_doc["launches"][0]["assembly_matched"] is None


@pytest.mark.gpu
def test_torch_compile_launches_are_recorded_and_reproduced(cli, tmp_path):
    rows = _trace(cli, tmp_path / "run", KERNELS / "torch_compile_program.py")
    launched = {name: r["launches"] for name, r in rows.items() if r["launches"]}
    print({name: [(x["grid"], [a.get("shape") for a in x["args"]]) for x in xs] for name, xs in launched.items()})
    assert launched, "no torch.compile launch was recorded"
    name, launches = next((n, xs) for n, xs in launched.items() if n.startswith("triton_"))
    first = launches[0]
    shapes = [a["shape"] for a in first["args"] if a["kind"] == "tensor"]
    assert [4096, 512] in shapes
    numel = next(a["value"] for a in first["args"] if a["kind"] == "int" and a["value"] == 4096 * 512)
    block = first["args"][-1]["value"]  # XBLOCK, the last parameter of a pointwise kernel
    assert first["grid"][0] * block >= numel
    script = tmp_path / "repro.py"
    cli("reproduce", f"{tmp_path / 'run'}/:{name}", "-o", script)
    assert "SOURCE = " in script.read_text()  # inductor's kernel file is a temporary one: embedded
    ran = _run_script(script, tmp_path)
    assert ran.returncode == 0 and "ptx hash matches the captured one" in ran.stdout
    doc = json.loads(cli("bench", f"{tmp_path / 'run'}/:{name}", "--json").stdout)
    assert doc["launches"][0]["ms"] > 0 and doc["launches"][0]["assembly_matched"] is True


def test_profile_of_a_capture_takes_no_run_hook_flags(cli, capture):
    result = cli("profile", f"{capture}/:add_kernel", "--size", "4096", expect=2)
    assert "need run hooks; a recorded launch has its own" in result.stderr
