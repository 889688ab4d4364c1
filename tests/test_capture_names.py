"""Which compile a capture's `DIR/:NAME` names: of several compiles of one name, the one the program
launched (an autotuner's timing runs of its other configs are not), said with the others' hashes;
and a kernel whose long name Triton cut short for its files (Inductor's names run past 150
characters) keeps its whole name, so two such kernels are told apart."""

from __future__ import annotations

import json
import re
import sys

import pytest
from cli_process import tritonscope

pytest.importorskip("torch")

LONG = "fused_" + "a" * 150  # past Triton's 150 characters of a file name: the two differ after them

PROGRAM = f"""
import torch, triton, triton.language as tl

@triton.autotune(configs=[triton.Config({{"B": 64}}), triton.Config({{"B": 128}})], key=["n"])
@triton.jit
def tuned(x_ptr, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x_ptr + o, 1.0, mask=o < n)

@triton.jit
def {LONG}_one(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), 1.0)

@triton.jit
def {LONG}_two(x_ptr):
    tl.store(x_ptr + tl.arange(0, 32), 2.0)

@triton.jit
def plain(x_ptr, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x_ptr + o, 2.0, mask=o < n)

x = torch.empty(1024, device="cuda")
tuned[lambda meta: (triton.cdiv(1024, meta["B"]),)](x, 1024)
{LONG}_one[(1,)](x)
{LONG}_two[(1,)](x)
plain[(8,)](x, 1024, B=128)
plain[(8,)](x, 1000, B=128)  # another specialization (1000 is no multiple of 16), launched too
"""


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    folder = tmp_path_factory.mktemp("names")
    (folder / "prog.py").write_text(PROGRAM)
    tritonscope("trace", "-t", "sm90", "-o", folder / "cap", "--", sys.executable, folder / "prog.py", cwd=folder)
    return folder / "cap"


def test_the_launched_config_is_shown_not_the_newest_timing_candidate(capture):
    done = tritonscope("dump", f"{capture}/:tuned", "--json")
    document = json.loads(done.stdout)
    assert document["variant"]["constexprs"]["B"] == 64  # --autotune first: config 0 was launched
    said = " ".join(document["notices"])
    assert "2 compiles are named tuned: this is the one the program launched" in said
    # the other's name as it is typed (it printed a placeholder, `/:tuned@HASH8`)
    (other,) = re.findall(r"another is (\S+/:tuned@[0-9a-f]{8})\b", said)
    assert json.loads(tritonscope("dump", other, "--json").stdout)["variant"]["constexprs"]["B"] != 64


def test_names_cut_short_for_files_are_whole_and_told_apart(capture):
    listed = json.loads(tritonscope("cache", "list", capture, "--json").stdout)
    names = {k["name"] for k in listed["kernels"]}
    assert {f"{LONG}_one", f"{LONG}_two"} <= names
    ttir = json.loads(tritonscope("dump", f"{capture}/:{LONG}_two", "--json", "--stage", "ttir").stdout)
    assert "2.000000e+00" in ttir["stages"]["ttir"]


def test_a_capture_whose_cache_folder_is_gone_says_it_is_damaged(capture, tmp_path):
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(capture, damaged)
    shutil.rmtree(damaged / "cache")
    said = tritonscope("explain", f"{damaged}/:tuned", expect=2).stderr
    assert "records compiles of tuned, but their files are not in its cache/ folder: the capture is damaged" in said


def test_of_several_compiles_the_program_launched_the_newest_is_said_to_be_one_of_them(capture):
    """Two specializations of one kernel, both launched: it said "this is the one the program launched"."""
    said = " ".join(json.loads(tritonscope("dump", f"{capture}/:plain", "--json").stdout)["notices"])
    assert "2 compiles are named plain: this is the newest of the 2 the program launched" in said, said
