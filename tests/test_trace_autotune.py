"""`trace --target --autotune RULE`: which candidate an autotuned kernel launches on a simulated GPU.

Real programs run against the simulated GPU in a child process, with real compiles: every candidate
still compiles, the rule's candidate is the one launched after the autotuner's timing runs, and
the capture (autotune.jsonl) and `cache list` say which rule chose it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_process import tritonscope

from tritonscope.cli.argtypes import autotune_rule
from tritonscope.core.errors import UsageError

pytest.importorskip("torch")  # the smoke runs of other releases install no torch

PROGRAMS = Path(__file__).parent / "kernels" / "fidelity"
AUTOTUNED = """
import torch, triton, triton.language as tl

@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=1),
        triton.Config({"BLOCK": 128}, num_warps=2),
        triton.Config({"BLOCK": 128}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)

x = torch.empty(4096, device="cuda")
copy_kernel[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](x, torch.empty_like(x), 4096)
"""


def _records(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines()]


def _traced(tmp_path: Path, rule: str) -> Path:
    program = tmp_path / "autotuned.py"
    program.write_text(AUTOTUNED)
    out = tmp_path / "out"
    tritonscope("trace", "--target", "sm90", "--autotune", rule, "-o", out, "--", sys.executable, program)
    return out


def test_a_named_config_is_the_one_launched_and_the_capture_says_so(tmp_path):
    out = _traced(tmp_path, "BLOCK=128,num_warps=4")
    (choice,) = _records(out, "autotune.jsonl")
    assert choice["kernel"] == "copy_kernel" and len(choice["candidates"]) == 3
    assert choice["chosen_index"] == 2 and choice["matched"] is True
    assert choice["chosen"].startswith("BLOCK: 128, num_warps: 4")
    rule = "the first config with BLOCK: 128, num_warps: 4 (--autotune BLOCK=128,num_warps=4)"
    assert choice["rule"].startswith(rule)
    assert len(_records(out, "kernels.jsonl")) == 3  # every candidate still compiled
    launches = _records(out, "launches.jsonl")
    assert launches[-1]["grid"] == [4096 // 128, 1, 1]  # after the timing runs, the chosen config ran
    metadata = json.loads(next((out / "cache" / launches[-1]["hash"]).glob("copy_kernel.json")).read_text())
    assert metadata["num_warps"] == 4
    listing = " ".join(tritonscope("cache", "list", out, env={"COLUMNS": "80"}).stdout.split())
    assert f"launched {choice['chosen']} (candidate 2)" in listing  # the config as the release prints it
    assert "how chosen: the first config with BLOCK: 128, num_warps: 4 (--autotune" in listing

    # fit numbers a capture's rows as its autotuner numbered the candidates: the launched row is
    # chosen_index (they were numbered in the cache's order, where the launched one was #1)
    fitted = json.loads(tritonscope("fit", out, "-t", "sm90", "--json").stdout)
    rows = fitted["kernels"][0]["configs"]
    assert [row["values"] for row in rows] == [
        {"BLOCK": 64, "num_warps": 1},
        {"BLOCK": 128, "num_warps": 2},
        {"BLOCK": 128, "num_warps": 4},
    ]
    assert [row["launched"] for row in rows] == [False, False, True]


def test_a_rule_that_names_no_candidate_keeps_the_first_and_says_so(tmp_path):
    out = _traced(tmp_path, "7")
    (choice,) = _records(out, "autotune.jsonl")
    assert choice["chosen_index"] == 0 and choice["matched"] is False
    assert choice["rule"].startswith("config 7 (from 0) (--autotune 7)")
    assert _records(out, "launches.jsonl")[-1]["grid"] == [4096 // 64, 1, 1]
    listing = " ".join(tritonscope("cache", "list", out, env={"COLUMNS": "80"}).stdout.split())
    assert "(candidate 0); not the one the rule names (the kernel has none, or it failed), so the first" in listing
    document = json.loads(tritonscope("cache", "list", out, "--json").stdout)
    assert document["autotune"][0]["matched"] is False


def test_the_last_candidate_of_torch_compile_autotuning(tmp_path):
    out = tmp_path / "out"
    program = PROGRAMS / "compile_program.py"
    tritonscope("trace", "--target", "sm90", "--autotune", "last", "-o", out, "--", sys.executable, program)
    choices = _records(out, "autotune.jsonl")
    compiles = _records(out, "kernels.jsonl")
    launches = _records(out, "launches.jsonl")
    assert choices and all(c["by"] == "torch.compile" for c in choices)
    for choice in choices:
        assert choice["chosen"] == choice["candidates"][-1] and choice["chosen_index"] == len(choice["candidates"]) - 1
        assert choice["rule"].startswith("last config (--autotune last)")
        same = [c for c in compiles if c["name"] == choice["kernel"]]
        assert len(same) == len(choice["candidates"])  # every candidate compiled
        block = choice["chosen"].split(",")[0].split(": ")[1]  # XBLOCK: 512 -> 512
        launched = [entry for entry in launches if entry["name"] == choice["kernel"]][-1]
        (compiled,) = [c for c in same if c["hash"] == launched["hash"]]
        assert block in compiled["constants"].values()


def test_autotune_without_target_or_with_a_bad_rule_is_refused_before_the_program_runs(tmp_path):
    program = [sys.executable, "-c", f"open({str(tmp_path / 'ran')!r}, 'w')"]
    refused = tritonscope("trace", "--autotune", "last", "-o", tmp_path / "o", "--", *program, expect=2)
    assert "--autotune last" in refused.stderr and "--target" in refused.stderr
    bad = tritonscope("trace", "-t", "sm90", "--autotune", "BLOCK", "-o", tmp_path / "o", "--", *program, expect=2)
    assert "--autotune expects first, last, an index N" in bad.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "ran").exists()


@pytest.mark.parametrize(
    ("given", "kind", "index", "settings"),
    [
        ("first", "first", 0, ()),
        ("last", "last", 0, ()),
        ("3", "index", 3, ()),
        ("BLOCK_M=128,num_warps=8", "config", 0, (("BLOCK_M", "128"), ("num_warps", "8"))),
        ("BM: 64, BN: 32", "config", 0, (("BM", "64"), ("BN", "32"))),  # as cache list prints a config
    ],
)
def test_autotune_rule_forms(given, kind, index, settings):
    rule = autotune_rule(given)
    assert (rule.kind, rule.index, rule.settings, rule.given) == (kind, index, settings, given)


@pytest.mark.parametrize("given", ["", "-1", "BM", "BM=", "=4", "BM=1,BM=2", "a b=1", "bogus===", "BM=1 2"])
def test_bad_autotune_rules(given):
    with pytest.raises(UsageError):
        autotune_rule(given)


TOO_BIG = """
import torch, triton, triton.language as tl

@triton.autotune(
    configs=[triton.Config({"B": 32}, num_stages=2), triton.Config({"B": 256}, num_stages=4)],
    key=["n"],
)
@triton.jit
def tile_kernel(a_ptr, c_ptr, n, B: tl.constexpr):
    r = tl.arange(0, B)
    acc = tl.zeros((B, B), dtype=tl.float32)
    for k in range(0, n, B):
        a = tl.load(a_ptr + r[:, None] * n + (k + r)[None, :])
        acc += tl.dot(a, a)
    tl.store(c_ptr + r[:, None] * B + r[None, :], acc)

a = torch.empty(1024, 1024, device="cuda", dtype=torch.float16)
tile_kernel[(1,)](a, torch.empty(256, 256, device="cuda"), 1024)
"""


def test_a_named_candidate_that_runs_out_of_shared_memory_is_not_launched(tmp_path):
    program = tmp_path / "too_big.py"
    program.write_text(TOO_BIG)
    out = tmp_path / "out"
    tritonscope("trace", "--target", "sm90", "--autotune", "last", "-o", out, "--", sys.executable, program)
    (choice,) = _records(out, "autotune.jsonl")
    assert choice["chosen"].startswith("B: 32") and choice["chosen_index"] == 0 and choice["matched"] is False


def test_a_max_autotune_template_is_named_as_its_compiles_are(tmp_path):
    """Inductor benchmarks its matmul templates before it names them: autotune.jsonl (and `cache list`)
    said `Placeholder.DESCRIPTIVE_NAME` for a kernel whose compiles are named `triton_`."""
    program = Path(__file__).parent / "programs" / "max_autotune_matmul.py"
    tritonscope("trace", "-t", "sm90", "-o", tmp_path / "cap", "--", sys.executable, program)
    tuned = [json.loads(line)["kernel"] for line in (tmp_path / "cap" / "autotune.jsonl").read_text().splitlines()]
    compiled = {json.loads(line)["name"] for line in (tmp_path / "cap" / "kernels.jsonl").read_text().splitlines()}
    assert tuned and set(tuned) <= compiled and not any("Placeholder" in name for name in tuned), (tuned, compiled)
