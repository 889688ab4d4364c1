"""Issue 51's programs (tests/programs/, capture_h100.HOST_VALUE_PROGRAMS: generate(), an MoE
router's loss, data-dependent shapes, GradScaler, dropout in attention, tied weights) run on the CPU
(TRITONSCOPE_CORPUS_DEVICE=cpu: eagerly, Triton on its interpreter) to their end and print what
their docstrings promise, the values a GPU run is then held to. Their H100 ground truth comes from
tests/programs/capture_h100.py --set host-values (benchmarks/device_round5.md)."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
_spec = importlib.util.spec_from_file_location("capture_h100", PROGRAMS / "capture_h100.py")
assert _spec and _spec.loader
capture_h100 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture_h100)
# corpus.py is read, not imported: importing it here would put this process's Triton on its interpreter
DECODING_EOS = next(
    node.value.value
    for node in ast.parse((PROGRAMS / "corpus.py").read_text()).body
    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DECODING_EOS"
)

TOKENS = r"\[(\d+(?:, \d+)*)\]"
EXPECTED = {
    "generate_dynamic": [r"sampled: \[\[(\d+, ){7}\d+\], \[(\d+, ){7}\d+\]\]", r"beam search: \[(\d+, ){7}\d+\]"],
    "generate_static": [r"sampled: \[(\d+, ){11}\d+\]", r"greedy, another prompt: \[(\d+, ){11}\d+\]"],
    "moe_router_train": [r"step 0: loss \d+\.\d{4}, router aux loss \d+\.\d{4}", r"step 1: loss"],
    "mask_indexing": [
        r"pooled over 408 rows",
        r"pooled over 311 rows",
        r"counts \[35, 38, 29, 41, 43, 35, 33, 46\], classes \[0, 1, 2, 3, 4, 5, 6, 7\], rows of class 3: 41",
        r"largest class 46, all present True",
        r"79 values standardized",
    ],
    "amp_scaler_train": [
        r"step 0: loss \d+\.\d{4}, scale 1073741824, skipped",
        r"step 1: loss \d+\.\d{4}, scale 1024, taken",
        r"step 3: loss \d+\.\d{4}, scale 1024, taken",
    ],
    "seq2seq_dropout_train": [r"bart, sdpa step 1: loss \d", r"bart, eager step 1: loss \d"],
    "tied_embeddings_train": [r"parameters: 11 before the move, 11 after; tied: True", r"loss \d+\.\d{4}"],
}


def run(program: str, *args: str) -> str:
    env = {**os.environ, "TRITONSCOPE_CORPUS_DEVICE": "cpu", "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(
        [sys.executable, str(PROGRAMS / f"{program}.py"), *args], capture_output=True, text=True, timeout=900, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"corpus {program}: done" in done.stdout
    return done.stdout


def test_each_program_of_the_set_has_its_expectations():
    assert set(EXPECTED) == set(capture_h100.HOST_VALUE_PROGRAMS)


@pytest.mark.parametrize("program", capture_h100.HOST_VALUE_PROGRAMS)
def test_the_program_runs_on_the_cpu_and_prints_its_values(program):
    output = run(program)
    for expected in EXPECTED[program]:
        assert re.search(expected, output), (expected, output[-2000:])
    if program.startswith("generate"):
        greedy = re.search(rf"greedy: (\d+) new tokens {TOKENS}, smallest lead (\d+\.\d+)", output)
        tokens = [int(t) for t in greedy.group(2).split(", ")]
        # stopped at its EOS, at step 6 of 16, never close to a tie that a GPU's rounding could flip
        assert tokens[-1] == DECODING_EOS and len(tokens) == 6 and DECODING_EOS not in tokens[:-1]
        assert float(greedy.group(3)) > 0.01


def test_the_server_marks_its_warmup_between_the_warmup_and_the_requests():
    output = run("serve_after_warmup", "--requests", "6", "--max-batch", "4", "--max-seq", "32").splitlines()
    marker = output.index("serve_after_warmup: warmup done")
    warmup = [line for line in output[:marker] if line.startswith("warmup ")]
    requests = [line for line in output[marker:] if line.startswith("request ")]
    assert warmup == [f"warmup batch={b} seq={s} logprobs=False" for b in (1, 4) for s in (8, 1)]
    assert [line.split()[1] for line in requests] == [str(n) for n in range(6)]
    sizes = [re.fullmatch(r"request \d+ batch=(\d+) seq=(\d+) logprobs=(True|False)", line) for line in requests]
    assert all(m and 1 <= int(m[1]) <= 4 and 1 <= int(m[2]) <= 32 for m in sizes)
