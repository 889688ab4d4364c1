"""Issue 54 item 5: the compiles after a server's warmup, predicted with no GPU, held against what a
GPU compiled. From the repository's root:

    python benchmarks/recompile_prediction.py [--truth FILE] [--capture DIR] [--table FILE]

1. The truth, FILE (default tests/data/recompiles/h200_truth.json): every compile of the server program
   (tests/programs/serve_after_warmup.py, 200 requests after its warmup) with its phase and
   specialization, and torch.compile's recompiles with the request that made each, as
   benchmarks/recompile_ground_truth.py collected them on an NVIDIA H200 (sm90); `--compact FULL.json`
   writes that compact form of its recompiles_truth.json.
2. The warmup alone, DIR: else traced here, on the simulated GPU (`tritonscope trace --target sm90`
   of the program with --requests 0: its warmup and its mark, nothing more).
3. `recompiles DIR/ --shapes batch=1..B,seq=1..S --after warmup`, B and S the truth run's --max-batch
   and --max-seq: the (kernel, variant) pairs predicted, and torch.compile's entries.
4. Recall and precision of the predicted pairs against the compiles after the warmup; a torch.compile
   recompile counts as found when a predicted entry takes the sizes of the request that made it. The
   marker kernel (end_of_warmup_kernel: launched once, right after the mark, to show the mark in the
   logs) is counted apart: it is the program's mark, not a request's compile.

Prints the table, and writes it to --table FILE when given (docs/data/).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PROGRAM = ROOT / "tests" / "programs" / "serve_after_warmup.py"
TRUTH = ROOT / "tests" / "data" / "recompiles" / "h200_truth.json"
MARKER = "end_of_warmup_kernel"
_SIZES = re.compile(r"batch=(\d+) seq=(\d+)")


def compact(full: dict, gpu: str) -> dict:
    """The parts of recompile_ground_truth.py's document the comparison reads."""
    keep = ("kernel", "phase", "signature", "constants", "attrs", "options", "program_line", "compile_s")
    compiles = [{k: c.get(k) for k in keep} for c in full["jit_compiles"]]
    recompiles = [
        {
            "phase": r["phase"],
            "guard_failures": [g.split("  #")[0] for g in r["guard_failures"]],
            "sizes": _request(full, r),
        }
        for r in full["recompiles"]
    ]
    return {"gpu": gpu, "program": Path(full["program"]).name, "argv": full["argv"], "compiles": compiles,
            "recompiles": recompiles}  # fmt: skip


def _request(full: dict, record: dict) -> dict[str, int] | None:
    """The sizes of the request during which RECORD happened: the one printed after its last line."""
    lines = full["output"]
    after = record.get("after_line")
    index = lines.index(after) + 1 if after in lines else 0
    match = _SIZES.search(lines[index]) if index < len(lines) else None
    return {"batch": int(match.group(1)), "seq": int(match.group(2))} if match else None


def specialization_text(compile_: dict) -> str:
    """A truth compile's specialization as `recompiles` writes one: `seq_len: i32 D, BLOCK=32`."""
    from tritonscope.analysis.specialization import Param

    attrs, constants = compile_.get("attrs") or {}, compile_.get("constants") or {}
    params = []
    for name, kind in compile_["signature"].items():
        divisible = any(a and a[0] == "tt.divisibility" for a in attrs.get(name) or [])
        value = str(constants[name]) if kind == "constexpr" and name in constants else None
        params.append(Param(name, kind, value, "D" if divisible else ""))
    return ", ".join(p.text for p in params)


def warmup_capture(folder: Path, argv: list[str]) -> Path:
    """The program's warmup traced here, on the simulated H200/H100 (sm90): --requests 0."""
    sizes = [a for pair in zip(argv[::2], argv[1::2], strict=False) if pair[0] != "--requests" for a in pair]
    command = [
        sys.executable,
        "-m",
        "tritonscope",
        "trace",
        "--target",
        "sm90",
        "--launches",
        "1000",
        "-o",
        str(folder),
    ]
    command += ["--", sys.executable, str(PROGRAM), "--requests", "0", *sizes]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True, text=True)
    return folder


def predicted(capture: Path, argv: list[str]):
    from tritonscope.app.recompile_predict import predict

    option = dict(zip(argv[::2], argv[1::2], strict=False))
    sizes = {"batch": (1, int(option.get("--max-batch", 32))), "seq": (1, int(option.get("--max-seq", 512)))}
    return predict(capture, sizes, "warmup")


def _accepts(frame, entry, sizes: dict[str, int]) -> bool:
    """Whether a predicted torch.compile entry takes the inputs of a request of SIZES."""
    import triton

    for said in frame.inputs:
        name, _, dims = said.partition(": ")
        values = [eval(d, {"triton": triton}, dict(sizes)) if d != "?" else None for d in dims.strip("[]").split(", ")]  # noqa: S307 - our own expressions
        for want, value in zip(entry.sizes.get(name, ()), values, strict=False):
            if value is None or (want is not None and want != value) or (want is None and value < 2):
                return False
    return True


def compare(truth: dict, result) -> dict:
    """(kernel, variant) pairs after the warmup: the truth's, the prediction's, and those both have."""
    late = {(c["kernel"], specialization_text(c)) for c in truth["compiles"] if c["phase"] == "serving"}
    guessed = {(k.name, p.specialization) for k in result.kernels for p in k.predicted}
    torch_late = [r for r in truth["recompiles"] if r["phase"] == "serving"]
    entries = [(f, e) for f in result.frames for e in f.predicted]
    found = [r for r in torch_late if r["sizes"] and any(_accepts(f, e, r["sizes"]) for f, e in entries)]
    used = [e for f, e in entries if any(r["sizes"] and _accepts(f, e, r["sizes"]) for r in torch_late)]
    return {
        "triton": {"truth": late, "predicted": guessed, "both": late & guessed},
        "torch": {"truth": len(torch_late), "predicted": len(entries), "found": len(found), "right": len(used)},
    }


def figures(pairs: dict, marker: bool) -> tuple[int, int, int]:
    """(truth, predicted, both): Triton's pairs (with or without the marker kernel) and torch.compile's."""
    t = pairs["triton"]
    keep = (lambda pair: True) if marker else (lambda pair: pair[0] != MARKER)
    truth = sum(1 for p in t["truth"] if keep(p)) + pairs["torch"]["truth"]
    guessed = sum(1 for p in t["predicted"] if keep(p)) + pairs["torch"]["predicted"]
    both = sum(1 for p in t["both"] if keep(p)) + pairs["torch"]["found"]
    return truth, guessed, both


def table(truth: dict, pairs: dict) -> str:
    t = pairs["triton"]
    kernels = sorted({k for k, _ in t["truth"] | t["predicted"]})
    rows = [f"truth: {truth['gpu']}, {truth['program']} {' '.join(truth['argv'])}; prediction: no GPU (sm90 trace)",
            "", f"{'kernel':<28} {'after warmup':>12} {'predicted':>9} {'both':>5}"]  # fmt: skip
    for name in kernels:
        count = [sum(1 for k, _ in s if k == name) for s in (t["truth"], t["predicted"], t["both"])]
        rows.append(f"{name:<28} {count[0]:>12} {count[1]:>9} {count[2]:>5}")
    torch = pairs["torch"]
    rows.append(f"{'torch.compile recompiles':<28} {torch['truth']:>12} {torch['predicted']:>9} {torch['found']:>5}")
    rows.append("")
    for label, marker in (("without the marker kernel", False), ("with the marker kernel", True)):
        n, guessed, both = figures(pairs, marker)
        rows.append(f"{label}: recall {both}/{n} = {both / n:.1%}, precision {both}/{guessed} = {both / guessed:.1%}")
    missed = sorted(t["truth"] - t["both"])
    extra = sorted(t["predicted"] - t["both"])
    rows += [f"  not predicted: {k} {s}" for k, s in missed] + [f"  predicted, not compiled: {k} {s}" for k, s in extra]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--truth", type=Path, default=TRUTH)
    parser.add_argument("--capture", type=Path, help="a capture of the warmup alone (default: traced here)")
    parser.add_argument("--table", type=Path, help="also write the table here")
    parser.add_argument(
        "--compact", type=Path, metavar="FULL.json", help="write the compact truth of FULL.json to --truth"
    )
    parser.add_argument("--gpu", default="NVIDIA H200 (sm90)", help="with --compact: the GPU it was collected on")
    args = parser.parse_args()
    if args.compact:
        args.truth.parent.mkdir(parents=True, exist_ok=True)
        args.truth.write_text(json.dumps(compact(json.loads(args.compact.read_text()), args.gpu), indent=1) + "\n")
    truth = json.loads(args.truth.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        capture = args.capture or warmup_capture(Path(scratch) / "warmup", truth["argv"])
        shown = table(truth, compare(truth, predicted(capture, truth["argv"])))
    print(shown)
    if args.table:
        args.table.write_text(shown + "\n")


if __name__ == "__main__":
    main()
