"""The scripts that collect issue 54's and the round's GPU ground truth, checked without a GPU:
benchmarks/recompile_ground_truth.py on the simulated GPU (its hooks see each compile of the
server program, tests/programs/serve_after_warmup.py, with its phase, specialization and launch,
and torch.compile's recompiles with the guard that failed), and how benchmarks/device_round5.py
packs the parts' results into the files a device call brings back."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import device_round5  # noqa: E402
import recompile_ground_truth  # noqa: E402


def test_the_hooks_see_each_compile_of_the_server_with_its_phase_and_cause(tmp_path):
    """On the simulated H100 (both runs under `trace --target sm90`), a warmup at batches 1 and 4
    (sequences 8 and 1), then 8 requests: what the server program's docstring promises."""
    command = [sys.executable, str(ROOT / "benchmarks" / "recompile_ground_truth.py"), "--out", str(tmp_path)]
    command += ["--target", "sm90", "--requests", "8", "--max-batch", "4", "--max-seq", "32", "--budget", "1500"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    truth = json.loads((tmp_path / "recompiles_truth.json").read_text())
    assert truth["status"] == "ok", truth["status"]
    compiles = truth["jit_compiles"]
    phases = {name: [c["phase"] for c in compiles if c["kernel"] == name] for name in {c["kernel"] for c in compiles}}
    assert phases["end_of_warmup_kernel"] == ["serving"]
    assert phases["rms_norm_kernel"] == ["warmup"] and set(phases["bias_gelu_kernel"]) == {"warmup"}
    assert phases["token_scale_kernel"] == ["warmup"] * 3  # n_tokens divisible by 16, not, and 1
    scale = [c["arguments"]["n_tokens"] for c in compiles if c["kernel"] == "token_scale_kernel"]
    rules = sorted((n["divisible_by_16"], n["equal_to_1"]) for n in scale)
    assert rules == [(False, False), (False, True), (True, False)]
    assert all(c["autotuning"] for c in compiles if c["kernel"] == "bias_gelu_kernel")
    assert all(c["program_line"].startswith("serve_after_warmup.py:") for c in compiles)
    softmax = [c for c in compiles if c["kernel"] == "seq_softmax_kernel"]
    warm_blocks = {c["constants"].get("BLOCK") for c in softmax if c["phase"] == "warmup"}
    late_blocks = {c["constants"].get("BLOCK") for c in softmax if c["phase"] == "serving"}
    assert late_blocks - warm_blocks  # a new power of two: BLOCK = triton.next_power_of_2(seq)
    late_log = [c for c in compiles if c["kernel"] == "log_softmax_kernel" and c["phase"] == "serving"]
    assert [c["signature"]["x_ptr"] for c in late_log] == ["*fp32"]  # a request for log-probabilities
    late_guards = [r for r in truth["recompiles"] if r["phase"] == "serving"]
    assert late_guards and any("size mismatch at index 1" in f for f in late_guards[0]["guard_failures"])
    with tarfile.open(tmp_path / "server_capture.tar.gz") as archive:
        names = archive.getnames()
    assert "capture/kernels.jsonl" in names and "capture/launches.jsonl" in names
    assert not [n for n in names if n.endswith(".llir")]


def test_a_capture_too_large_to_bring_back_keeps_its_logs_ptx_and_metadata(tmp_path, monkeypatch):
    capture = tmp_path / "capture"
    (capture / "cache" / "abc").mkdir(parents=True)
    (capture / "kernels.jsonl").write_text("{}\n")
    for suffix in (".ptx", ".json", ".ttgir", ".llir", ".cubin"):
        (capture / "cache" / "abc" / f"k{suffix}").write_bytes(bytes(range(256)) * 64)
    archive = tmp_path / "capture.tar.gz"
    note = recompile_ground_truth.pack_capture(capture, archive)
    with tarfile.open(archive) as opened:
        kept = [f"capture/cache/abc/k{suffix}" for suffix in (".cubin", ".json", ".ptx", ".ttgir")]
        assert sorted(opened.getnames()) == [*kept, "capture/kernels.jsonl"]
    assert "LLVM IR left out" in note
    monkeypatch.setattr(recompile_ground_truth, "CAPTURE_LIMIT", 100)
    note = recompile_ground_truth.pack_capture(capture, archive)
    with tarfile.open(archive) as opened:
        assert sorted(opened.getnames()) == [
            "capture/cache/abc/k.json",
            "capture/cache/abc/k.ptx",
            "capture/kernels.jsonl",
        ]
    assert "only the logs, PTX and metadata kept" in note


def test_the_driver_packs_what_each_part_left_into_the_files_a_call_brings_back(tmp_path):
    work, out = tmp_path / "work", tmp_path / "out"
    truth = {"kernels": {"k": {"cases": [{"status": "ok"}, {"status": "ok"}, {"status": "out of resources"}]}}}
    truth["peaks"] = {"dram_copy": {"gb_per_s": 4300.5}, "matmul_bf16": {"tflop_per_s": 780.2}}
    written = {
        "launch/launch_truth.json": json.dumps(truth),
        "corpus/corpus_h100.json": json.dumps({"runs": {"mask_indexing": {"1": {"compiles": [{}] * 3}, "2": {}}}}),
        "recompiles/recompiles_truth.json": json.dumps(
            {"status": "ok", "compiles": [{"phase": "serving", "cache_hit": False}], "recompiles": []}
        ),
        "launch.log": "launch output",
        "recompiles/hooked.log": "hooked output",
    }
    for name, text in written.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    files = device_round5.pack(work, out)
    assert files == ["launch_truth.json", "corpus_round5.json", "recompiles_truth.json", "logs.tar.gz"]
    assert sorted(p.name for p in out.iterdir()) == sorted(files)  # no partial file left
    assert json.loads((out / "launch_truth.json").read_text()) == truth
    with tarfile.open(out / "logs.tar.gz") as archive:
        assert sorted(archive.getnames()) == ["launch.log", "recompiles/hooked.log"]
    figures = device_round5.headlines(work)
    assert figures["launch"] == "3 cases: 2 ok, 1 out of resources, dram_copy 4300 GB/s, matmul_bf16 780 TFLOP/s"
    assert figures["corpus"] == "mask_indexing 3/0"
    assert figures["recompiles"] == "ok: 1 compiles after warmup, 0 torch.compile recompiles after it"


def test_a_file_over_what_a_call_brings_back_is_compressed(tmp_path, monkeypatch):
    work, out = tmp_path / "work", tmp_path / "out"
    (work / "corpus").mkdir(parents=True)
    (work / "corpus" / "corpus_h100.json").write_text(json.dumps({"runs": {}, "padding": "x" * 5000}))
    monkeypatch.setattr(device_round5, "FILE_LIMIT", 1000)
    files = device_round5.pack(work, out)
    assert files == ["corpus_round5.json.gz", "logs.tar.gz"]
    assert json.loads(gzip.decompress((out / "corpus_round5.json.gz").read_bytes()))["runs"] == {}
