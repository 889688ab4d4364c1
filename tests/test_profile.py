"""`profile` without a GPU: Nsight Compute's real CSV (ncu 2025.3.1 on an H100, tests/data/ncu/:
sample vector_add at 4096 elements and sample matmul at 1024, `--print-source sass` and `cuda,sass`),
mapped through the line map of the very binaries that ran (their Triton cache, tests/data/ncu/cache),
and the views of the result; ncu's failures, with a stand-in ncu that fails as the real one does."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_narrow import NARROW, lines_of

from tritonscope.analysis import cost
from tritonscope.analysis.measured import LINE_MAP, NCU, measure
from tritonscope.app import profile
from tritonscope.app.launch_once import PREFIX
from tritonscope.captures.compiled import read_compilation
from tritonscope.core.errors import UsageError
from tritonscope.parsers.ncu_source import parse, value
from tritonscope.render.json import JsonRenderer
from tritonscope.render.terminal.profile import ProfileView
from tritonscope.results.explain import ProfileResult

DATA = Path(__file__).parent / "data" / "ncu"
RAN_FROM = {  # where the kernel files were on the H100
    "matmul_kernel": "/work/main/sample_kernels/matmul.py",
    "add_kernel": "/work/main/sample_kernels/vector_add.py",
}
FOR_LINE, A_LOAD, DOT_LINE = 31, 33, 35  # in sample_kernels/matmul.py
_TRITON = tuple(int(p) for p in __import__("importlib.metadata").metadata.version("triton").split(".")[:2])


def page(name: str):
    return parse((DATA / f"{name}.csv").read_text())


def binary(kernel: str):
    return read_compilation(f"{DATA / 'cache'}/:{kernel}")


def measured(name: str, kernel: str, compilation=True):
    c = binary(kernel) if compilation else None
    return measure(page(name), c, RAN_FROM[kernel], {}), c


# --- the CSV ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("view", ["sass", "cuda_sass"])
def test_every_instruction_of_the_matmul_is_read_once_with_its_counters(view):
    p = page(f"matmul_{view}")
    assert p.kernel == "matmul_kernel" and len(p.instructions) == 576
    assert sum(i.number("Instructions Executed") for i in p.instructions) == 1_078_272
    assert len({i.address for i in p.instructions}) == 576
    assert p.instructions[0].address == p.base and p.instructions[0].opcode == "LDC"
    hgmma = [i for i in p.instructions if i.opcode.startswith("HGMMA")]
    assert len(hgmma) == 4 and all(i.counters["Address Space"] == "Shared" for i in hgmma)
    assert "stall_long_sb" in p.columns and "L2 Theoretical Sectors Global" in p.columns


def test_the_cuda_view_gives_each_instruction_its_file_and_line():
    p = page("matmul_cuda_sass")
    on = {(Path(i.file).name, i.line) for i in p.instructions}
    assert ("standard.py", 43) in on and ("matmul.py", DOT_LINE) in on
    dot = [i for i in p.instructions if i.opcode.startswith("HGMMA")]
    # ptxas's line table strays: one HGMMA is on the `b` load's line (the line map puts it back, below)
    assert sorted(i.line for i in dot) == [A_LOAD + 1, A_LOAD + 1, DOT_LINE, DOT_LINE]
    assert next(i.code for i in dot if i.line == DOT_LINE) == "accumulator = tl.dot(a, b, accumulator)"


def test_vector_add_loads_and_stores_are_read_with_their_sizes_and_sectors():
    p = page("vector_add_sass")
    assert p.kernel == "add_kernel" and len(p.instructions) == 56
    loads = [i for i in p.instructions if i.opcode == "LDG.E.128"]
    assert len(loads) == 4
    assert all(i.counters["Access Size"] == 128 and i.counters["L2 Theoretical Sectors Global"] == 256 for i in loads)
    assert p.instructions[0].counters["Address Space"] is None  # '-'


def test_quoted_fields_thousands_separators_and_dashes():
    text = (
        "==PROF== Connected to process 1\nsome output of the program\n"
        '"Kernel Name","k",\n'
        '"Address","Source","Instructions Executed","Access Size","Warp Stall Sampling (All Samples)"\n'
        '"0x10","      IMAD R1, R2, 0x4, R3","1,234,567","-","12"\n'
        '"0x20","@!P0  LDG.E.64 R4, desc[UR4][R2.64]","16","64",""\n'
        '"...","...","-","-","-"\n'
    )
    p = parse(text)
    assert [i.address for i in p.instructions] == [0x10, 0x20]
    first, second = p.instructions
    assert first.sass == "IMAD R1, R2, 0x4, R3" and first.counters["Instructions Executed"] == 1_234_567
    assert second.opcode == "LDG.E.64" and second.counters["Warp Stall Sampling (All Samples)"] is None
    assert (value("2.5"), value("Global"), value("-"), value("1e3")) == (2.5, "Global", None, 1000.0)


# --- per Python line ------------------------------------------------------------------------------------


@pytest.mark.parametrize("view", ["sass", "cuda_sass"])
def test_the_binary_that_ran_maps_every_instruction_and_the_loop_is_where_warps_wait(view):
    """At 1024 the kernel waits on its loads: the `for` line (its loop-head instruction waits on the
    async copies' barrier) has the most samples, then the tl.dot line with all the HGMMAs."""
    m, c = measured(f"matmul_{view}", "matmul_kernel")
    assert m.mapped_by == LINE_MAP and m.executed == 1_078_272 and m.unattributed_samples == 0
    lines = {line.line: line for line in m.lines}
    assert m.hottest.line == FOR_LINE and lines[FOR_LINE].stalls[0][0] == "long_sb"
    assert lines[DOT_LINE].samples == sorted((x.samples for x in m.lines), reverse=True)[1]
    assert lines[DOT_LINE].stalls[0][0] == "barrier"
    assert [(a.space, a.bits) for a in lines[A_LOAD].accesses] == [("Global,Shared", 128)]  # LDGSTS
    assert lines[A_LOAD].accesses[0].requests == lines[A_LOAD].accesses[0].ideal == 524_288
    static = {s.line: s for s in cost.line_costs(c)}
    assert static[DOT_LINE].instructions.matrix == 4


def test_the_line_map_puts_more_on_the_dot_line_than_ncus_line_table():
    by_map, _ = measured("matmul_cuda_sass", "matmul_kernel")
    by_ncu, _ = measured("matmul_cuda_sass", "matmul_kernel", compilation=False)
    assert by_ncu.mapped_by == NCU
    dot = {m.mapped_by: next(x for x in m.lines if x.line == DOT_LINE) for m in (by_map, by_ncu)}
    assert (dot[LINE_MAP].samples, dot[NCU].samples) == (85, 75)
    assert sum(x.samples for x in by_ncu.lines) == by_ncu.samples == 408 - by_ncu.unattributed_samples


def test_another_binary_is_not_taken_for_the_one_that_ran():
    m = measure(page("matmul_cuda_sass"), binary("add_kernel"), RAN_FROM["matmul_kernel"], {})
    assert m.mapped_by == NCU and m.hottest.line == FOR_LINE


def test_vector_add_lines_have_their_global_traffic():
    m, _ = measured("vector_add_cuda_sass", "add_kernel")
    lines = {line.line: line for line in m.lines}
    assert m.executed == 656 and m.samples == 3
    (load,) = lines[21].accesses
    assert (load.space, load.operation, load.bits, load.instructions, load.requests, load.ideal) == (
        "Global",
        "Load",
        128,
        2,
        512,
        512,
    )
    assert lines[24].accesses[0].operation == "Store"


# --- the views ------------------------------------------------------------------------------------------


def _result() -> ProfileResult:
    m, c = measured("matmul_cuda_sass", "matmul_kernel")
    return ProfileResult("matmul_kernel", "sample_kernels/matmul.py", ("python", "run.py"), m, c, cost.line_costs(c))


def test_the_view_at_80_columns_marks_the_hottest_line_and_its_stall_reasons():
    lines = lines_of(ProfileView(NARROW).render(_result()))
    text = "\n".join(lines)
    assert any(line.lstrip().startswith(f"▶{FOR_LINE}") for line in lines)
    assert f"hottest: line {FOR_LINE}, 36% of the samples (long_sb 71%" in text
    assert "408 warp-stall samples (263 not issued)" in text and "1,078,272 instructions executed" in text
    dot_row = next(line for line in lines if line.lstrip().startswith(f"{DOT_LINE} "))
    assert dot_row.split()[1:4] == ["85", "▉", "204.8K"]  # samples, bar, executed
    assert "global→shared copy 128b" in text and "barrier 34%" in text


def _result_with_findings() -> ProfileResult:
    m, c = measured("matmul_cuda_sass", "matmul_kernel")
    static, found, notes = profile.explained(c, m.mapped_by)
    return ProfileResult("matmul_kernel", "sample_kernels/matmul.py", ("run.py",), m, c, static, notes, found)


def test_each_measured_line_shows_explains_finding_on_it():
    """The A and B loads wait in the H100's counters; explain says why: cp.async where TMA would serve."""
    result = _result_with_findings()
    lines = lines_of(ProfileView(NARROW).render(result))
    load_row = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"{A_LOAD} "))
    below = " ".join(line.strip() for line in lines[load_row + 1 : load_row + 9])
    assert "global→shared copy 128b" in below  # ncu: the LDGSTS
    assert "↳ explain: tma-candidate: a 128x64xf16 tile feeding tl.dot is copied with cp.async" in below
    assert all(len(line) <= 80 for line in lines)
    body = json.loads(JsonRenderer().render(result))
    load = next(line for line in body["lines"] if line["line"] == A_LOAD)
    assert load["findings"] == ["tma-candidate"] and body["findings"][0]["kind"] == "tma-candidate"
    # A line with no finding says so: the dot's line waits at barriers, and nothing static explains it.
    dot = next(line for line in body["lines"] if line["line"] == DOT_LINE)
    assert dot["findings"] == []
    # The hottest line, the loop, is where the most registers are live (nvdisasm's life ranges, read
    # as explain reads them): explain's occupancy finding points there. From 3.7 Triton's nvdisasm 13
    # does not analyze this cubin (3.6's ptxas 12's); they are read off its PTX assembled again.
    hot = next(line for line in body["lines"] if line["line"] == FOR_LINE)
    assert hot["findings"] == ["occupancy"] and not result.notes
    (occupancy,) = result.findings_on(FOR_LINE)
    assert occupancy.evidence == f"the most registers live at once: 117, on line {FOR_LINE}"


def test_json_has_the_envelope_and_every_measured_line():
    body = json.loads(JsonRenderer().render(_result()))
    assert (body["schema"], body["kind"], body["tool"]["name"]) == (2, "profile", "tritonscope")
    assert body["hottest_line"] == FOR_LINE and body["mapped_by"] == LINE_MAP and body["samples"] == 408
    dot = next(line for line in body["lines"] if line["line"] == DOT_LINE)
    assert dot["samples"] == 85 and dot["stalls"]["barrier"] == 29 and dot["static"]["instructions"]["matrix"] == 4
    assert dot["accesses"][0]["space"] == "Shared"


# --- ncu, the GPU and the launch ----------------------------------------------------------------------


def test_no_ncu_is_one_line_naming_proton(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(profile, "CUDA_HOMES", ())
    with pytest.raises(UsageError) as missing:  # asked once a GPU is there (with none, that is said first)
        profile.find_ncu()
    said = str(missing.value)
    assert "Nsight Compute (ncu)" in said and "Proton" in said and "\n" not in said


def _fake_ncu(folder: Path, body: str) -> Path:
    """A stand-in for ncu that fails as the real one does (its messages are ncu 2025.3.1's)."""
    script = folder / "ncu"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_no_gpu_is_benchs_error(cli, monkeypatch, tmp_path):
    _fake_ncu(tmp_path, "exit 0")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    result = cli("profile", "sample:vector_add", expect=2)
    assert "profile runs kernels on a GPU, and none is visible here" in result.stderr


def test_no_gpu_is_said_before_a_missing_ncu(cli, monkeypatch, tmp_path):
    """With neither, profile said only that ncu was missing: installing it would not have helped (h19c)."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no ncu anywhere on it
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    result = cli("profile", "sample:vector_add", expect=2)
    assert "profile runs kernels on a GPU, and none is visible here" in result.stderr
    assert "ncu" not in result.stderr


def test_ncus_permission_error_is_said_in_one_line(tmp_path):
    said = (
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
        "Counters on the target device 0."
    )
    ncu = _fake_ncu(tmp_path, f"echo '==PROF== Connected to process 1'\necho '{said}'\nexit 1")
    with pytest.raises(UsageError) as error:
        profile.run_ncu(str(ncu), ("python3", "-c", "pass"), "k", {}, 30)
    assert error.value.message == "ncu: " + said.removeprefix("==ERROR== ")
    assert "ERR_NVGPUCTRPERM" in error.value.hint


def test_ncu_past_the_timeout_is_stopped_with_the_program_it_ran(tmp_path):
    marker = tmp_path / "child.pid"
    ncu = _fake_ncu(tmp_path, f"sleep 60 &\necho $! > {marker}\nwait")
    start = time.monotonic()
    with pytest.raises(UsageError, match="ncu ran past --timeout 1 s"):
        profile.run_ncu(str(ncu), (), "k", {}, 1)
    assert time.monotonic() - start < 10
    child = int(marker.read_text())
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]


def test_a_program_that_launches_nothing_is_said():
    """ncu 2025.3.1 on an H100, `-k regex:^add_kern$` over sample vector_add, printed this."""
    out = "==WARNING== No kernels were profiled.\nAvailable Kernels:\n1. add_kernel\n2. distribution_kernel\n"
    assert profile._failure(out, "", 0, "add_kern") == (
        "ncu profiled nothing: the program launched no kernel named add_kern "
        "(it launched add_kernel, distribution_kernel)"
    )


def test_a_launch_that_fails_is_one_line_from_the_launcher():
    spec = json.dumps({"file": "sample:vector_add", "size": 4096, "launch": [], "inputs": []})
    run = subprocess.run(
        [sys.executable, "-m", "tritonscope.app.launch_once", spec], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2 and run.stdout == ""
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith(f"{PREFIX} the launch failed:")  # no GPU here: torch cannot make CUDA tensors
    assert profile._failure("", run.stderr, 2, "add_kernel") == line.removeprefix(PREFIX).strip()


def test_profile_takes_one_value_per_launch_keyword(cli):
    result = cli("profile", "sample:vector_add", "--vary", "BLOCK_SIZE=256,1024", expect=2)
    assert "one launch takes one value" in result.stderr


def test_a_captured_source_is_put_where_its_line_information_points_while_ncu_runs(tmp_path):
    """torch.compile writes its kernels inside the capture while it is written (a staging folder
    renamed afterwards): ncu, which prints each line from the file the binary names, found nothing
    there (issue 27, item 3). The source is put there for the run, then removed with its folders."""
    from types import SimpleNamespace

    from tritonscope.app.profile import source_in_place

    (tmp_path / "cap").mkdir()
    staged = tmp_path / ".cap.new.428.k4jpn7xj" / "inductor" / "b5" / "k.py"
    record = {"file": str(staged), "source": "@triton.jit\ndef k(x):\n    pass\n", "first_line": 18}
    with source_in_place(SimpleNamespace(specialization=record)):
        lines = staged.read_text().splitlines()
        assert lines[17] == "@triton.jit" and lines[18] == "def k(x):"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap"]
