"""Holds a `trace --target` capture against a capture made on the real GPU: the same compiles (name
and specialization), the same PTX apart from what spells versions and paths, the same launches of
every kernel that was not autotuned. Used by tests/test_trace_target.py, and run as a script on
the GPU machine to print the figures: python tests/capture_fidelity.py GPU_CAPTURE SIMULATED_CAPTURE
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

# What differs between two GPU captures of one program, or with the ptxas/CUDA release found:
# the PTX ISA version and target lines, the file table, DWARF sections (they spell paths byte by
# byte), the assertFile_N strings of torch.compile's bounds checks (the kernel's random path), and
# comments (LLVM names the source file in them).
_DROPPED = re.compile(r"^\s*(\.version|\.target|\.file|\.global \.align 1 \.b8 assertFile_)")


def normal_ptx(text: str) -> str:
    kept = []
    for line in text.splitlines():
        if line.lstrip().startswith(".section") and ".debug_" in line:
            break  # the DWARF sections run to the end of the file
        if not _DROPPED.match(line):
            kept.append(line.split("//", 1)[0].rstrip())
    return "\n".join(kept).strip()


def compiles(capture: Path) -> dict[tuple, list[dict]]:
    """(name, signature, constants, attrs) -> the compile records with their normalized PTX."""
    found: dict[tuple, list[dict]] = {}
    for line in (capture / "kernels.jsonl").read_text().splitlines():
        record = json.loads(line)
        key = (
            record["name"],
            _frozen(record.get("signature")),
            _frozen(record.get("constants")),
            _frozen(record.get("attrs")),
        )
        ptx = next((capture / "cache" / record["hash"]).glob("*.ptx"), None)
        record["ptx"] = normal_ptx(ptx.read_text()) if ptx else None
        found.setdefault(key, []).append(record)
    return found


def _frozen(value) -> str:
    return json.dumps(value, sort_keys=True)


def autotuned(capture: Path) -> set[str]:
    log = capture / "autotune.jsonl"
    if not log.exists():
        return set()
    return {json.loads(line)["kernel"] for line in log.read_text().splitlines() if line.strip()}


def launches(capture: Path, skip: set[str]) -> Counter:
    """Every recorded launch of a kernel not in SKIP: name, grid, each argument's shape/stride/dtype/value."""
    found: Counter = Counter()
    for line in (capture / "launches.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["name"] in skip:
            continue
        args = tuple(_frozen({k: v for k, v in a.items() if k not in ("min", "max", "device")}) for a in record["args"])
        found[(record["name"], tuple(record["grid"]), args)] += 1
    return found


def compare(gpu: Path, simulated: Path) -> dict:
    """Figures and the differences found (empty lists when the captures agree)."""
    a, b = compiles(gpu), compiles(simulated)
    shared = sorted(set(a) & set(b))
    same_ptx = [k for k in shared if {r["ptx"] for r in a[k]} == {r["ptx"] for r in b[k]}]
    skip = autotuned(simulated)
    gpu_launches, sim_launches = launches(gpu, skip), launches(simulated, skip)
    return {
        "gpu_compiles": sum(len(v) for v in a.values()),
        "simulated_compiles": sum(len(v) for v in b.values()),
        "matched": len(shared),
        "identical_ptx": len(same_ptx),
        "only_gpu": [k[0] for k in sorted(set(a) - set(b))],
        "only_simulated": [k[0] for k in sorted(set(b) - set(a))],
        "ptx_differs": [k[0] for k in shared if k not in same_ptx],
        "launches_compared": sum(gpu_launches.values()),
        "launches_only_gpu": sorted(str(k[:2]) for k in gpu_launches - sim_launches),
        "launches_only_simulated": sorted(str(k[:2]) for k in sim_launches - gpu_launches),
        "autotuned": sorted(skip),
    }


if __name__ == "__main__":
    print(json.dumps(compare(Path(sys.argv[1]), Path(sys.argv[2])), indent=1))
