"""The corpus of real programs (tests/programs/) and the script that traces them on the H100
(tests/programs/capture_h100.py): every program is in its list, and its summary of a capture holds
what the capture recorded, read here from an H100 capture already in the repository."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from capture_fidelity import normal_ptx

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
H100_CAPTURE = HERE / "data" / "trace_h100" / "compile_program"

_spec = importlib.util.spec_from_file_location("capture_h100", PROGRAMS / "capture_h100.py")
assert _spec and _spec.loader
capture_h100 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture_h100)


def test_every_program_of_the_corpus_is_traced():
    on_disk = {p.stem for p in PROGRAMS.glob("*.py")} - {"corpus", "capture_h100"}
    lists = (capture_h100.PROGRAMS, capture_h100.HOST_VALUE_PROGRAMS, capture_h100.OTHER_PROGRAMS)
    assert set().union(*lists) == on_disk
    assert sum(map(len, lists)) == len(on_disk)  # each program in one list, once


def test_the_summary_holds_each_compile_with_its_ptx_digest_and_launches():
    summary, texts = capture_h100.summarize(H100_CAPTURE)
    records = [json.loads(line) for line in (H100_CAPTURE / "kernels.jsonl").read_text().splitlines()]
    assert [c["name"] for c in summary["compiles"]] == [r["name"] for r in records]
    for compile_, record in zip(summary["compiles"], records, strict=True):
        text = normal_ptx(next((H100_CAPTURE / "cache" / record["hash"]).glob("*.ptx")).read_text())
        assert compile_["ptx"] == hashlib.sha256(text.encode()).hexdigest()[:20]
        assert texts[f"ptx/{compile_['ptx']}.ptx"] == text and ".file" not in text and "assertFile" not in text
        assert texts[f"source/{compile_['source']}.py"] == record["source"]
        assert compile_["signature"] == record["signature"] and compile_["options"]["arch"] == "sm90"
    launch_lines = (H100_CAPTURE / "launches.jsonl").read_text().splitlines()
    assert sum(count for c in summary["compiles"] for count, _, _ in c["launches"]) == len(launch_lines)
    norm = next(c for c in summary["compiles"] if c["name"] == "triton_per_fused_native_layer_norm_0")
    assert norm["launches"] == [
        [
            1,
            [256, 1, 1],
            [[[4, 64, 256], [16384, 256, 1], "float32", 0], [[256], [1], "float32", 0]]
            + [[[256], [1], "float32", 0], [[4, 64, 256], [16384, 256, 1], "float32", 0], 256, 256, 1],
        ]
    ]
    assert summary["stopped"] is None


def test_the_table_counts_the_compiles_both_runs_made():
    summary, _ = capture_h100.summarize(H100_CAPTURE)
    first = {**summary, "status": "ok", "wall_s": 12.5}
    # run 2 made one compile with other options and missed another
    changed = [dict(c, options={**c["options"], "num_warps": 16}) for c in summary["compiles"][:1]]
    second = {"compiles": changed + summary["compiles"][1:-1], "status": "exit 1", "wall_s": 13.0}
    table = capture_h100._table({"compile_program": {"1": first, "2": second}}, 30.0)
    row = next(line for line in table.splitlines() if line.startswith("compile_program"))
    assert row.split() == ["compile_program", "7", "6", "5", "12.5", "13.0", "ok/exit", "1"]


def test_a_program_stopped_before_its_first_compile_is_summarized_with_where_it_stopped(tmp_path):
    stop = {"where": "vit_timm.py:14", "asked": ".item()"}
    (tmp_path / "stopped.json").write_text(json.dumps(stop))
    assert capture_h100.summarize(tmp_path) == ({"compiles": [], "stopped": stop}, {})
