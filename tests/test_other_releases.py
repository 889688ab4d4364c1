"""Another Triton release beside the installed one: --triton, --vary triton= and `tritonscope envs`.

One environment is made for the whole session (3.9.0 when 3.6.0 runs, else 3.6.0), with pip,
from the package index, as a user's first `--triton` makes it. The difference asserted between
3.6.0 and 3.9.0 is a real one: softmax on sm90 syncs its reductions with 5 barriers on 3.6.0
and 3 on 3.9.0.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import tritonscope
from conftest import OFFLINE_PIP

from tritonscope.triton_api.version import installed

RUNNING = installed()
OTHER = "3.9.0" if RUNNING != "3.9.0" else "3.6.0"


def run(*args, expect: int = 0, env: dict | None = None) -> subprocess.CompletedProcess:
    """tritonscope at 80 columns, with this session's user cache (where the environments go) and pip cache."""
    session = {k: os.environ[k] for k in ("XDG_CACHE_HOME", "PIP_CACHE_DIR") if k in os.environ}
    return tritonscope(*args, expect=expect, timeout=900, env={**session, "COLUMNS": "80", **(env or {})})


@pytest.fixture(scope="module")
def other_release() -> str:
    """The other release's environment, installed through `tritonscope envs add` (once)."""
    proc = run("envs", "add", OTHER)
    assert f"Triton {OTHER}" in proc.stderr
    return OTHER


def test_diff_across_releases_marks_the_real_difference(other_release):
    releases = sorted([RUNNING, other_release])
    proc = run("diff", "sample:softmax", "--target", "sm90", "--vary", f"triton={','.join(releases)}", "--json")
    variants = json.loads(proc.stdout)["variants"]
    assert [v["triton_version"] for v in variants] == releases
    assert [v["label"] for v in variants] == [{"triton": r} for r in releases]
    barriers = {v["triton_version"]: v["resources"]["instructions"]["barriers"] for v in variants}
    if {"3.6.0", "3.9.0"} <= barriers.keys():
        assert barriers == {"3.6.0": 5, "3.9.0": 3}
    assert all(f"--triton {v['triton_version']}" in v["command"] for v in variants)

    text = run("--no-pager", "diff", "sample:softmax", "--target", "sm90", "--vary", f"triton={','.join(releases)}")
    assert any(line.startswith("barriers *") for line in text.stdout.splitlines()), text.stdout


def test_dump_with_another_release(other_release):
    report = json.loads(
        run("dump", "sample:vector_add", "--target", "sm90", "--triton", other_release, "--json").stdout
    )
    assert report["triton_version"] == other_release
    assert report["variant"]["triton"] == other_release
    assert report["command"].endswith(f"--triton {other_release}")
    ptx_version = {"3.6.0": ".version 8.7", "3.9.0": ".version 9.4"}[other_release]  # each release's PTX ISA
    assert ptx_version in report["stages"]["ptx"]


def test_passes_names_the_first_pass_that_differs(other_release):
    releases = sorted([RUNNING, other_release])
    args = ("passes", "sample:softmax", "--target", "sm90", "--vary", f"triton={','.join(releases)}")
    document = json.loads(run(*args, "--json").stdout)
    assert document["kind"] == "passes-compare"
    assert [v["triton_version"] for v in document["variants"]] == releases
    divergence = document["divergence"]
    assert divergence["kind"] in ("changed", "only"), divergence["kind"]
    if divergence["kind"] == "changed":  # the same pass, given the same IR, wrote different IR
        assert divergence["first"]["name"] == divergence["second"]["name"]
        assert any(line.startswith(("+", "-")) for line in divergence["output_diff"][2:])
    shown = run("--no-pager", *args).stdout
    assert max(len(line) for line in shown.splitlines()) <= 80  # the names whole, folded at spaces
    name = (divergence["first"] or divergence["second"])["name"]
    assert f"first difference: {name}" in shown
    assert "only in [1]" in shown or "only in [0]" in shown  # the releases run different pipelines


def test_envs_list_and_remove_errors(other_release):
    listing = json.loads(run("envs", "list", "--json").stdout)
    assert listing["running"] == RUNNING
    assert other_release in [e["release"] for e in listing["envs"]]
    assert all(e["bytes"] > 10_000_000 for e in listing["envs"])  # Triton itself is in there
    assert "3.5.1" not in [e["release"] for e in listing["envs"]]
    assert "no environment for Triton 3.5.1" in run("envs", "remove", "3.5.1", expect=2).stderr
    assert "not a Triton release" in run("dump", "sample:vector_add", "--triton", "latest", expect=2).stderr
    assert (
        "older than tritonscope supports"
        in run("diff", "sample:vector_add", "--vary", "triton=3.4.0,3.6.0", expect=2).stderr
    )


def test_no_network_is_one_clear_error_and_leaves_nothing(tmp_path):
    offline = {"XDG_CACHE_HOME": str(tmp_path), **OFFLINE_PIP}
    proc = run("dump", "sample:vector_add", "--triton", "3.7.1", expect=2, env=offline)
    assert "installing Triton 3.7.1 into" in proc.stderr  # said before the download, by every command
    assert "could not install Triton 3.7.1" in proc.stderr
    assert "network access" in proc.stderr and "pip install triton==3.7.1" in proc.stderr
    assert not [p for p in (Path(tmp_path) / "tritonscope" / "envs").iterdir()]  # no half-made environment


def test_envs_remove_last(other_release):
    """Last in this file: the environment removed, and gone from the listing."""
    assert f"removed Triton {other_release}" in run("envs", "remove", other_release).stderr
    listing = json.loads(run("envs", "list", "--json").stdout)
    assert other_release not in [e["release"] for e in listing["envs"]]
    assert "name the releases to remove, or give --all" in run("envs", "remove", expect=2).stderr
