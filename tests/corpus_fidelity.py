"""Holds a `trace --target sm90` capture of a corpus program (tests/programs/) against the H100's
ground truth (tests/programs/h100/summary.json: what two cold-cache H100 runs compiled and launched).

A compile is its kernel's name, specialization (signature, constants, attributes), options (warps,
stages, CTAs, registers cap, shared memory, arch, Triton release) and normalized PTX
(capture_fidelity.normal_ptx: DWARF, file table and assertFile paths set aside). Launches are
compared per kernel name as sets of distinct arguments (each tensor's shape, stride, dtype and offset,
each scalar's value): which of its configs was launched is the autotuner's choice. Of an
autotuned kernel, or one whose H100 launches reached the recording limit (100 per compile: a GPU
times each candidate dozens of times, a simulated one calls it once), the H100's launches need only
be among the simulated run's.

Two ways, by the torch release that made the capture:

- the H100's torch (2.11): exact. Every compile both H100 runs made is made (missing: none), none
  is made that neither run made (extra: none), and every compile launches with the same shapes.
  Where the two H100 runs differ (max-autotune: the template picked by timing, then fused with its
  epilogue, differs between runs), a compile made by one run only may be made or not.
- another torch: Inductor writes other kernel text between releases (other names, other loads),
  so what is held is what the release does not change: every compile whose kernel text (from its
  `def` on) and specialization are the H100's has the H100's PTX (but the line numbers of torch's
  own helpers inlined into it, which move between releases) and launches, and torch picks the
  H100's attention kernels (see `cross_release`).

Build the summary from the H100 script's output (tests/programs/capture_h100.py):
    python tests/corpus_fidelity.py build corpus_h100.json texts.tar.gz > tests/programs/h100/summary.json
Compare a capture:  python tests/corpus_fidelity.py compare PROGRAM CAPTURE_DIR
The docs' table:    python tests/corpus_fidelity.py table DIR_UNDER_2.11 DIR_UNDER_2.13
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY = HERE / "programs" / "h100" / "summary.json"
_spec = importlib.util.spec_from_file_location("capture_h100", HERE / "programs" / "capture_h100.py")
assert _spec and _spec.loader
capture_h100 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture_h100)

SPEC_KEYS = ("name", "signature", "constants", "attrs", "options")


def body(source: str | None) -> str | None:
    """A kernel's text from its def on: Inductor's decorator spells its own release's settings."""
    if source is None:
        return None
    return source[source.index("def ") :] if "def " in source else source


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def key(entry: dict) -> str:
    """The compile: name, specialization, options and PTX digest."""
    return json.dumps({k: entry.get(k) for k in (*SPEC_KEYS, "ptx")}, sort_keys=True)


def spec_key(entry: dict) -> str:
    """The compile but its name and PTX: its kernel text's digest and specialization."""
    return json.dumps({k: entry.get(k) for k in (*SPEC_KEYS[1:], "body")}, sort_keys=True)


def library_lines_aside(ptx: str) -> str:
    """Normalized PTX without the `.loc` lines that point into files other than the kernel's own
    (file 1): Inductor's kernels inline torch's triton_helpers, whose line numbers move between
    torch releases while the instructions stay the same."""
    return "\n".join(line for line in ptx.splitlines() if not _OTHER_FILE.match(line))


_OTHER_FILE = re.compile(r"\s*\.loc\s+(?!1\s)\d+\s")


def _launch_set(entry: dict) -> list:
    return sorted({json.dumps([grid, args]) for _, grid, args in entry.get("launches", [])})


def _program(by_run: dict, sources: dict[str, str], ptx: dict[str, str]) -> dict:
    """One program's two H100 runs as one list of compiles, each with the runs that made it."""
    merged: dict[str, dict] = {}
    for run in ("1", "2"):
        for entry in by_run[run]["compiles"]:
            compact = {k: entry.get(k) for k in (*SPEC_KEYS, "ptx")}
            text = sources.get(f"source/{entry.get('source')}.py")
            compact["body"] = digest(body(text)) if text is not None else None
            code = ptx.get(f"ptx/{entry.get('ptx')}.ptx")
            compact["ptx_code"] = digest(library_lines_aside(code)) if code is not None else None
            found = merged.setdefault(key(compact), {**compact, "made": {"1": 0, "2": 0}, "launches": set()})
            found["made"][run] += 1
            found["launches"].update(_launch_set(entry))
    compiles = [{**c, "launches": [json.loads(x) for x in sorted(c["launches"])]} for c in merged.values()]
    runs = {run: len(by_run[run]["compiles"]) for run in ("1", "2")}
    recorded: Counter = Counter()  # per kernel name, the most launches one of its compiles recorded
    for run in ("1", "2"):
        for entry in by_run[run]["compiles"]:
            count = sum(n for n, _, _ in entry.get("launches", []))
            recorded[entry["name"]] = max(recorded[entry["name"]], count)
    return {
        "compiles_per_run": runs,
        "compiles": compiles,
        "launches_recorded": dict(sorted(recorded.items())),
        "status": [by_run[r]["status"] for r in ("1", "2")],
    }


def build(corpus_json: Path, texts: Path) -> dict:
    corpus = json.loads(corpus_json.read_text())
    with tarfile.open(texts) as archive:
        files = {m.name: archive.extractfile(m).read().decode() for m in archive.getmembers() if m.isfile()}
    programs = {name: _program(runs, files, files) for name, runs in sorted(corpus["runs"].items())}
    return {"versions": corpus["versions"], "programs": programs}


def simulated(capture: Path) -> list[dict]:
    """A capture's compiles as the summary holds them (with their kernel text's digest)."""
    summary, texts = capture_h100.summarize(capture)
    found = []
    for entry in summary["compiles"]:
        text = texts.get(f"source/{entry.get('source')}.py")
        compact = {k: entry.get(k) for k in (*SPEC_KEYS, "ptx")}
        compact["body"] = digest(body(text)) if text is not None else None
        code = texts.get(f"ptx/{entry.get('ptx')}.ptx")
        compact["ptx_code"] = digest(library_lines_aside(code)) if code is not None else None
        compact["launches"] = [json.loads(x) for x in _launch_set(entry)]
        found.append(compact)
    return found


def timing_decided(h100: dict) -> set[str]:
    """Kernel names whose compiles differ between the two H100 runs: what a run compiled there was
    decided by timings (max-autotune's epilogue fusion and coordinate descent), not by the program."""
    return {c["name"] for c in h100["compiles"] if c["made"]["1"] != c["made"]["2"]}


def _arguments(compiles: list[dict]) -> dict[str, set[str]]:
    """Kernel name -> its launches' arguments (each tensor's shape, stride, dtype, offset; each
    scalar's value), over all its compiles: which config was launched is the autotuner's choice."""
    found: dict[str, set[str]] = {}
    for c in compiles:
        found.setdefault(c["name"], set()).update(json.dumps(args) for _, args in c["launches"])
    return found


def exact(h100: dict, capture: Path) -> dict:
    """Figures for a capture made under the H100's torch release (see the module's docstring)."""
    made = simulated(capture)
    decided = timing_decided(h100)
    truth = {key(c) for c in h100["compiles"]}
    stable = [c for c in h100["compiles"] if c["name"] not in decided]
    both = Counter({key(c): min(c["made"].values()) for c in stable})
    ours = Counter(key(c) for c in made if c["name"] not in decided and not _new_name_beside(c, decided, h100))
    theirs, mine = _arguments(h100["compiles"]), _arguments(made)
    shared = sorted((set(theirs) & set(mine)) - decided)
    tuned = _autotuned(capture)
    differ = [
        n for n in shared if not _same_launches(theirs[n], mine[n], h100["launches_recorded"].get(n, 0), n in tuned)
    ]
    return {
        "h100": dict(h100["compiles_per_run"]),
        "simulated": len(made),
        "identical": sum(1 for c in made if key(c) in truth),
        "missing": sorted(json.loads(k)["name"] for k in (both - ours).elements()),
        "extra": sorted(json.loads(k)["name"] for k in ours.elements() if k not in truth),
        "timing_decided": sorted(
            {c["name"] for c in made if c["name"] in decided or _new_name_beside(c, decided, h100)}
        ),
        "launches_matched": len(shared) - len(differ),
        "launches_differ": differ,
    }


LAUNCH_LIMIT = 100  # capture_h100.py traces with --launches 100: what a compiled kernel records at most


def _same_launches(h100: set[str], simulated: set[str], recorded: int, autotuned: bool) -> bool:
    """The H100's launches are the simulated run's. Of an autotuned kernel, or where the H100 reached
    its recording limit (it times each candidate dozens of times, a simulated GPU calls each once;
    a candidate a GPU finds it cannot launch is timed no further), those the H100 recorded are
    among the simulated run's."""
    return h100 <= simulated if autotuned or recorded >= LAUNCH_LIMIT else h100 == simulated


def _autotuned(capture: Path) -> set[str]:
    log = capture / "autotune.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return {json.loads(line)["kernel"] for line in lines if line.strip()}


def _new_name_beside(entry: dict, decided: set[str], h100: dict) -> bool:
    """A kernel the H100 never named, in a program whose H100 runs themselves disagreed: Inductor
    named it from a choice made by timings (an epilogue fused into the template it kept)."""
    return bool(decided) and entry["name"] not in {c["name"] for c in h100["compiles"]}


def cross_release(h100: dict, capture: Path) -> dict:
    """Figures for a capture made under another torch release (see the module's docstring)."""
    made = simulated(capture)
    by_text: dict[str, dict] = {}
    for c in h100["compiles"]:
        by_text.setdefault(spec_key(c), c)
    same_text = [c for c in made if spec_key(c) in by_text]
    ptx_differs = sorted(c["name"] for c in same_text if c["ptx_code"] != by_text[spec_key(c)]["ptx_code"])
    tuned, recorded = _autotuned(capture), h100["launches_recorded"]
    launches_differ = sorted(
        c["name"]
        for c in same_text
        if not _same_launches(
            _args(by_text[spec_key(c)]), _args(c), recorded.get(by_text[spec_key(c)]["name"], 0), c["name"] in tuned
        )
    )
    return {
        "h100": dict(h100["compiles_per_run"]),
        "simulated": len(made),
        "same_text": len(same_text),
        "identical": len(same_text) - len(ptx_differs),
        "ptx_differs": ptx_differs,
        "launches_matched": len(same_text) - len(launches_differ),
        "launches_differ": launches_differ,
        "attention": (_attention(h100["compiles"]), _attention(made)),
    }


def _args(entry: dict) -> set[str]:
    return {json.dumps(args) for _, args in entry["launches"]}


def _attention(compiles: list[dict]) -> list[str]:
    """The attention kernels torch picked (Inductor names a kernel after the operators it fuses,
    the fused attention's among them): the same choice under any torch release."""
    return sorted({m.group() for c in compiles for m in [_ATTENTION.search(c["name"])] if m})


_ATTENTION = re.compile(r"scaled_dot_product_\w+?_attention")


def load(program: str, summary: Path = SUMMARY) -> dict:
    return json.loads(summary.read_text())["programs"][program]


def table(same: Path, other: Path) -> str:
    """The docs' table (docs/corpus.md): each program's H100 runs, its capture under the H100's
    torch (folder SAME/PROGRAM) and under another release (OTHER/PROGRAM)."""
    rows = [
        "| program | H100 compiles (run 1/run 2/same) | 2.11 CUDA build: compiles | identical | missing | extra "
        "| launches matched | 2.13 CPU build: compiles | same text | identical PTX | launches matched |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for program in capture_h100.PROGRAMS:
        h100 = load(program)
        runs = h100["compiles_per_run"]
        both = sum(min(c["made"].values()) for c in h100["compiles"])
        a, b = exact(h100, same / program), cross_release(h100, other / program)
        decided = f" (+{len(a['timing_decided'])} names timing-decided)" if a["timing_decided"] else ""
        launches = f"{a['launches_matched']}/{a['launches_matched'] + len(a['launches_differ'])} kernels"
        rows.append(
            f"| {program} | {runs['1']}/{runs['2']}/{both} | {a['simulated']} | {a['identical']}{decided} "
            f"| {len(a['missing'])} | {len(a['extra'])} | {launches} | {b['simulated']} | {b['same_text']} "
            f"| {b['identical']} | {b['launches_matched']}/{b['same_text']} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1] == "table":
        print(table(Path(sys.argv[2]), Path(sys.argv[3])))
    elif sys.argv[1] == "build":
        print(json.dumps(build(Path(sys.argv[2]), Path(sys.argv[3])), sort_keys=True, separators=(",", ":")))
    else:
        import torch

        versions = json.loads(SUMMARY.read_text())["versions"]
        same = torch.__version__.split("+")[0] == versions["torch"].split("+")[0]
        figures = (exact if same else cross_release)(load(sys.argv[2]), Path(sys.argv[3]))
        print(json.dumps(figures, indent=1))
