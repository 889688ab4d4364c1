"""Holds a `trace --target sm90` capture of a corpus program (tests/programs/) against the H100's
ground truth (tests/programs/h100/summary.json: what two cold-cache H100 runs compiled and launched).

A compile is its kernel's name, specialization (signature, constants, attributes), options (warps,
stages, CTAs, registers cap, shared memory, arch, Triton release) and normalized PTX
(capture_fidelity.normal_ptx: DWARF, file table and assertFile paths set aside). Launches are
compared per kernel name as sets of distinct arguments (each tensor's shape, stride, dtype and offset,
each scalar's value), the config's own values (a block size that differs between the kernel's
compiles) set aside: which of its configs was launched is the autotuner's choice. Of an autotuned
kernel, or one whose H100 launches reached the recording limit (100 per compile: a GPU times each
candidate dozens of times, a simulated one calls it once), the H100's launches need only be among
the simulated run's.

Two ways, by the torch release that made the capture:

- the H100's torch (2.11): exact. Every compile both H100 runs made is made (missing: none), none
  is made that neither run made (extra: none), and every compile launches with the same shapes.
  Where the two H100 runs differ (max-autotune: the template picked by timing, then fused with its
  epilogue, differs between runs), a compile made by one run only may be made or not.
- another torch: Inductor writes other kernel text between releases (other names, other loads),
  so what is held is what the release does not change: every compile whose kernel text (from its
  `def` on) and specialization are the H100's has the H100's PTX (but the line numbers of torch's
  own helpers inlined into it, which move between releases); the launches of every such kernel are
  the H100's, held per kind (its text with its own name set aside, its parameters' types: Inductor
  numbers a graph's kernels in order, and a shape-generic kernel's text is the same in every graph
  that makes it, so one release's `_7` can be the other's `_6`), each tensor as the kernel gets it
  (dtype, offset, the elements it spans: which view of a buffer the wrapper passes is its memory
  planning's, which moves between releases); and torch picks the H100's attention kernels (see
  `cross_release`).

Build the summary from the H100 script's output (tests/programs/capture_h100.py):
    python tests/corpus_fidelity.py build corpus_h100.json texts.tar.gz > tests/programs/h100/summary.json
Compare a capture:  python tests/corpus_fidelity.py compare PROGRAM CAPTURE_DIR
The docs' table:    python tests/corpus_fidelity.py table DIR_UNDER_2.11 DIR_UNDER_2.13
The exact hold of captures made under the truth's torch, one folder per program (default: issue 51's):
                    python tests/corpus_fidelity.py exact-table CAPTURES_DIR [PROGRAM ...]
"""

from __future__ import annotations

import ast
import concurrent.futures
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY = HERE / "programs" / "h100" / "summary.json"
H200_SUMMARY = HERE / "programs" / "h200" / "summary.json"  # issue 51's programs (HOST_VALUE_PROGRAMS)
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


def unnamed(source: str | None) -> str | None:
    """A kernel's text from its def on with its own name set aside. Inductor names a graph's kernels
    by their order in it (`..._7`), and a shape-generic kernel (a dynamic `xnumel`) has the same text
    in every graph that fuses the same operators: one torch release's `_7` of one graph can be
    another release's `_7` of another graph, whose `_6` is the first one's."""
    text = body(source)
    return None if text is None else _DEF_NAME.sub("def KERNEL(", text, count=1)


_DEF_NAME = re.compile(r"^def\s+\w+\(")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def key(entry: dict) -> str:
    """The compile: name, specialization, options and PTX digest."""
    return json.dumps({k: entry.get(k) for k in (*SPEC_KEYS, "ptx")}, sort_keys=True)


def spec_key(entry: dict) -> str:
    """The compile but its name and PTX: its kernel text's digest and specialization."""
    return json.dumps({k: entry.get(k) for k in (*SPEC_KEYS[1:], "body")}, sort_keys=True)


def kind_key(entry: dict, text: str = "unnamed") -> str:
    """A kernel's kind across graphs, configs and releases: its text with its own name set aside
    (TEXT "unnamed"; "body" where a summary predates it) and its parameters' types. Its configs
    (block sizes, warps) are left out, as `exact` merges a kernel's compiles: which config ran is
    the autotuner's choice."""
    return json.dumps({"signature": entry.get("signature"), "text": entry.get(text)}, sort_keys=True)


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
            compact["unnamed"] = digest(unnamed(text)) if text is not None else None
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
        compact["unnamed"] = digest(unnamed(text)) if text is not None else None
        code = texts.get(f"ptx/{entry.get('ptx')}.ptx")
        compact["ptx_code"] = digest(library_lines_aside(code)) if code is not None else None
        compact["launches"] = [json.loads(x) for x in _launch_set(entry)]
        found.append(compact)
    return found


def timing_decided(h100: dict) -> set[str]:
    """Kernel names whose compiles differ between the two H100 runs: what a run compiled there was
    decided by timings (max-autotune's epilogue fusion and coordinate descent), not by the program."""
    return {c["name"] for c in h100["compiles"] if c["made"]["1"] != c["made"]["2"]}


def _arguments(compiles: list[dict], knobs: dict[str, set[int]]) -> dict[str, set[str]]:
    """Kernel name -> its launches' arguments (each tensor's shape, stride, dtype, offset; each
    scalar's value), over all its compiles, its config's own values set aside (KNOBS): which config
    was launched is the autotuner's choice."""
    found: dict[str, set[str]] = {}
    for c in compiles:
        found.setdefault(c["name"], set()).update(_args(c, knobs.get(c["name"], set())))
    return found


def config_knobs(compiles: list[dict], group) -> dict[str, set[int]]:
    """GROUP(compile) -> the positions of the constexpr arguments whose value differs between that
    group's compiles: its autotuner's configs (a block size), launched as the autotuner chose."""
    values: dict[str, dict[int, set[str]]] = {}
    for c in compiles:
        for place, value in (c.get("constants") or {}).items():
            index = ast.literal_eval(place)
            if len(index) == 1:
                values.setdefault(group(c), {}).setdefault(index[0], set()).add(json.dumps(value))
    return {g: {i for i, seen in places.items() if len(seen) > 1} for g, places in values.items()}


def exact(h100: dict, capture: Path) -> dict:
    """Figures for a capture made under the H100's torch release (see the module's docstring)."""
    made = simulated(capture)
    decided = timing_decided(h100)
    truth = {key(c) for c in h100["compiles"]}
    stable = [c for c in h100["compiles"] if c["name"] not in decided]
    both = Counter({key(c): min(c["made"].values()) for c in stable})
    ours = Counter(key(c) for c in made if c["name"] not in decided and not _new_name_beside(c, decided, h100))
    knobs = config_knobs(h100["compiles"] + made, lambda c: c["name"])
    theirs, mine = _arguments(h100["compiles"], knobs), _arguments(made, knobs)
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
    text = "unnamed" if all("unnamed" in c for c in h100["compiles"]) else "body"
    knobs = config_knobs(h100["compiles"] + made, lambda c: kind_key(c, text))
    theirs, ours = launches_by_kind(h100["compiles"], text, knobs), launches_by_kind(made, text, knobs)
    recorded: Counter = Counter()  # per kind, the most launches one of the H100's compiles of it recorded
    for c in h100["compiles"]:
        kind = kind_key(c, text)
        recorded[kind] = max(recorded[kind], h100["launches_recorded"].get(c["name"], 0))
    tuned = {kind_key(c, text) for c in made if c["name"] in _autotuned(capture)}
    launches_differ = sorted(
        c["name"]
        for c in same_text
        for kind in [kind_key(c, text)]
        if not _same_launches(theirs[kind], ours[kind], recorded[kind], kind in tuned)
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


def launches_by_kind(compiles: list[dict], text: str, knobs: dict[str, set[int]]) -> dict[str, set[str]]:
    """Kernel kind (kind_key) -> the arguments of every launch of every compile of that kind: across
    releases a kernel's kind, not its name, says which graph's launches are its own (a shape-generic
    kernel is one kind in every graph that makes it)."""
    found: dict[str, set[str]] = {}
    for c in compiles:
        kind = kind_key(c, text)
        found.setdefault(kind, set()).update(_args(c, knobs.get(kind, set()), as_the_kernel_sees))
    return found


def _args(entry: dict, knobs: set[int], seen=None) -> set[str]:
    """ENTRY's launches' arguments, those at the positions KNOBS (its config's) set aside, each
    tensor as SEEN gives it (as recorded where none is given)."""
    return {
        json.dumps([seen(a) if seen else a for i, a in enumerate(args) if i not in knobs])
        for _, args in entry["launches"]
    }


def as_the_kernel_sees(argument):
    """A tensor argument as the kernel gets it, a pointer: its dtype, its storage offset and the
    elements its view spans, its shape and strides set aside. Which view of a buffer Inductor's code
    passes (the (256, 64) result of a matmul, or that buffer allocated as (4, 64, 2, 32)) is its
    memory planning's, which changes between releases; the kernel's indexing is in its text."""
    if not (isinstance(argument, list) and len(argument) == 4 and isinstance(argument[0], list)):
        return argument
    shape, stride, dtype, offset = argument
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, stride, strict=True)) if all(shape) else 0
    return [extent, dtype, offset]


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


def traced_two_at_a_time(request, folder: Path):
    """A test module's fixture body: the programs the session selected from that module, each traced
    with `trace --target sm90` (every read answered on the host) two at a time, as they are asked
    for; yields program -> (its trace's process, its capture folder)."""
    wanted = [item.callspec.params["program"] for item in request.session.items if item.fspath == request.fspath]
    pool = concurrent.futures.ThreadPoolExecutor(2)  # each trace is one process, mostly one core busy
    traces = {program: pool.submit(_trace, program, folder / program) for program in dict.fromkeys(wanted)}
    yield lambda program: (traces[program].result(), folder / program)
    pool.shutdown(cancel_futures=True)


def _trace(program: str, out: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tritonscope", "trace", "--target", "sm90", "--launches", "100", "-o", str(out)]
    command += ["--", sys.executable, str(HERE / "programs" / f"{program}.py")]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800)


def held_by_torch_of(summary: Path) -> tuple[dict, bool]:
    """A truth's versions, and whether this torch is its release (the hold is exact then)."""
    import torch

    versions = json.loads(summary.read_text())["versions"]
    return versions, torch.__version__.split("+")[0] == versions["torch"].split("+")[0]


def summary_of(program: str) -> Path:
    """The ground truth that holds PROGRAM: the H100's corpus, else the H200's (issue 51's programs)."""
    return SUMMARY if program in capture_h100.PROGRAMS else H200_SUMMARY


def exact_table(captures: Path, programs: list[str]) -> tuple[str, bool]:
    """Each program's capture (CAPTURES/PROGRAM, made under the truth's torch release) held exactly
    to its truth: a markdown table, and whether every program held."""
    rows = [
        "| program | truth compiles (run 1/run 2) | traced | identical | missing | extra | launches matched "
        "| first differences |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    held = True
    for program in programs:
        truth, capture = load(program, summary_of(program)), captures / program
        if not (capture / "kernels.jsonl").exists():
            rows.append(f"| {program} | - | no capture | | | | | |")
            held = False
            continue
        a = exact(truth, capture)
        differ = [*a["missing"], *a["extra"], *a["launches_differ"]]
        held = held and not differ and a["launches_matched"] > 0
        runs = truth["compiles_per_run"]
        rows.append(
            f"| {program} | {runs['1']}/{runs['2']} | {a['simulated']} | {a['identical']} | {len(a['missing'])} "
            f"| {len(a['extra'])} | {a['launches_matched']}/{a['launches_matched'] + len(a['launches_differ'])} "
            f"| {', '.join(differ[:2])} |"
        )
    return "\n".join(rows), held


if __name__ == "__main__":
    if sys.argv[1] == "table":
        print(table(Path(sys.argv[2]), Path(sys.argv[3])))
    elif sys.argv[1] == "exact-table":
        text, all_held = exact_table(Path(sys.argv[2]), sys.argv[3:] or list(capture_h100.HOST_VALUE_PROGRAMS))
        print(text)
        sys.exit(0 if all_held else 1)
    elif sys.argv[1] == "build":
        print(json.dumps(build(Path(sys.argv[2]), Path(sys.argv[3])), sort_keys=True, separators=(",", ":")))
    else:
        summary = summary_of(sys.argv[2])
        same = held_by_torch_of(summary)[1]
        figures = (exact if same else cross_release)(load(sys.argv[2], summary), Path(sys.argv[3]))
        print(json.dumps(figures, indent=1))
