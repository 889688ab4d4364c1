"""`tritonscope profile`: one launch of a kernel under Nsight Compute, its counters per Python line.

ncu runs a program that launches the kernel once (`profile_command`, the seam: a kernel file's
run hooks through app/launch_once.py today, a reproducer script tomorrow) with a fresh Triton
cache, so the binary that ran is read back from it (captures/) and its line map puts each
instruction's counters on Python lines (analysis/measured.py), beside explain's static cost of
the same binary and its findings (`explained`: the same path as explain's).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..analysis.cost import LineCost
from ..analysis.findings import Finding
from ..analysis.measured import LINE_MAP, file_lines, measure
from ..captures.compiled import read_compilation
from ..captures.entries import as_published, capture_folder, entries, find
from ..core.errors import TritonscopeError, UsageError
from ..core.model import Compilation
from ..core.source import CachedKernel, Source
from ..isolate import Program
from ..parsers.ncu_source import SourcePage, parse
from ..results.explain import ExplainResult, ProfileResult
from .explain import explain_compilation
from .launch_once import PREFIX

NCU_OPTIONS = ("--section", "SourceCounters", "--csv", "--page", "source", "--print-source", "cuda,sass")
CUDA_HOMES = ("/usr/local/cuda",)  # where ncu is looked for after PATH, $CUDA_HOME and $CUDA_PATH
_NOT_THE_BINARY = (
    "the binary read back from Triton's cache is not the one ncu measured: lines from ncu's line table, "
    "without explain's cost and findings"
)
PERMISSION_HINT = (
    "ncu needs access to the GPU's counters: run as root, or see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
)


def find_ncu() -> str:
    """ncu on PATH, else in the CUDA toolkit's usual places."""
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), *CUDA_HOMES]
    places = [shutil.which("ncu"), *(str(Path(h) / "bin" / "ncu") for h in homes if h)]
    found = next((p for p in places if p and os.access(p, os.X_OK) and Path(p).is_file()), None)
    if found is None:
        raise UsageError(
            "profile needs Nsight Compute (ncu), which is not on PATH here (nor in $CUDA_HOME/bin, "
            "/usr/local/cuda/bin); Triton's own profiler, Proton (triton.profiler), measures kernels without it"
        )
    return found


def profile(
    source: Source, kernel: str | None, size: int | None, launch: list[str], inputs: list[str], timeout: float
) -> ProfileResult:
    """One launch of a kernel file's kernel through its run hooks, under ncu."""
    from .bench import require_gpu
    from .walk.load import load_file

    require_gpu("profile")  # first: with no GPU, ncu would not help
    ncu = find_ncu()
    loaded = load_file(source)
    name = loaded.pick(kernel).spec.name
    spec = {"file": str(loaded.path), "size": size, "launch": launch, "inputs": inputs}
    command = (sys.executable, "-m", "tritonscope.app.launch_once", json.dumps(spec))
    return profile_command(ncu, command, name, str(loaded.path), timeout)


def profile_captured(captured: CachedKernel, number: int, timeout: float) -> ProfileResult:
    """One recorded launch of a kernel `trace` captured, replayed under ncu by its reproducer script."""
    from .bench import require_gpu
    from .reproduce import reproduce

    require_gpu("profile")  # first: with no GPU, ncu would not help
    ncu = find_ncu()
    made = reproduce(captured, number)
    entry, _ = find(captured)
    with tempfile.TemporaryDirectory(prefix="tritonscope-reproducer-") as folder, source_in_place(entry):
        script = Path(folder) / f"repro_{made.kernel}.py"
        script.write_text(made.script)
        shown = as_published(made.source_file, capture_folder(entry)) if made.source_file else ""
        command = (sys.executable, str(script), "--once")
        return profile_command(ncu, command, made.kernel, made.source_file, timeout, shown)


def profile_command(
    ncu: str, command: tuple[str, ...], kernel: str, kernel_file: str, timeout: float, shown_file: str = ""
) -> ProfileResult:
    """The seam: any program that launches `kernel` (of `kernel_file`) once, run under ncu with a
    fresh Triton cache; the binary that ran is read back from that cache for its line map. The
    result names the file as `shown_file` when given (a path as the user knows it)."""
    with tempfile.TemporaryDirectory(prefix="tritonscope-profile-") as folder:
        page = run_ncu(ncu, command, kernel, {"TRITON_CACHE_DIR": folder}, timeout)
        compilation, notes = binary_that_ran(Path(folder), kernel)
    texts = file_lines(compilation) or _read_lines(kernel_file)
    measured = measure(page, compilation, kernel_file, texts)
    result = _explain(compilation, measured.mapped_by)
    static, found, more = _parts(compilation, result)
    time = result.time if result else None
    return ProfileResult(
        kernel, shown_file or kernel_file, command, measured, compilation, static, notes + more, found, time
    )


def explained(
    compilation: Compilation | None, mapped_by: str
) -> tuple[tuple[LineCost, ...], tuple[Finding, ...], tuple[str, ...]]:
    """explain's cost per line, findings and notes of the binary that ran (explain's own path, what-ifs
    left out), where its line map placed ncu's counters: beside another binary's lines they would mislead."""
    return _parts(compilation, _explain(compilation, mapped_by))


def _explain(compilation: Compilation | None, mapped_by: str) -> ExplainResult | None:
    if compilation is None or mapped_by != LINE_MAP:
        return None
    return explain_compilation(compilation)


def _parts(
    compilation: Compilation | None, result: ExplainResult | None
) -> tuple[tuple[LineCost, ...], tuple[Finding, ...], tuple[str, ...]]:
    if result is None:
        return (), (), (() if compilation is None else (_NOT_THE_BINARY,))
    return result.lines, result.findings, result.notes


def run_ncu(ncu: str, command: tuple[str, ...], kernel: str, env: dict[str, str], timeout: float) -> SourcePage:
    """ncu's source page for the first launch of `kernel`; its own error, in one line, when it fails."""
    argv = [ncu, "-k", f"regex:^{re.escape(kernel)}$", "--launch-count", "1", *NCU_OPTIONS, *command]
    program = Program(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env={**os.environ, **env},
    )
    with program:  # ncu and the program it runs are stopped together
        finished = program.finish(timeout)
    if finished.timed_out:
        raise UsageError(f"ncu ran past --timeout {timeout:g} s and was stopped", hint="raise --timeout")
    out, err = finished.stdout, finished.stderr
    page = parse(out)
    if not page.instructions:
        raise UsageError(_failure(out, err, finished.returncode, kernel), hint=_hint(out + err))
    return page


def _failure(out: str, err: str, code: int, kernel: str) -> str:
    """ncu's own error, or the launching program's, or what is missing, as one line."""
    lines = [line.strip() for line in (out + "\n" + err).splitlines() if line.strip()]
    for marker, said in (("==ERROR==", "ncu: "), (PREFIX, "")):
        found = next((line for line in lines if line.startswith(marker)), None)
        if found:
            return said + found.removeprefix(marker).strip()
    if any("No kernels were profiled" in line or line == "Available Kernels:" for line in lines):
        launched = [line.split(". ", 1)[1] for line in lines if re.match(r"^\d+\. \S", line)]
        return f"ncu profiled nothing: the program launched no kernel named {kernel}" + (
            f" (it launched {', '.join(launched)})" if launched else ""
        )
    last = next((line for line in reversed(lines) if not line.startswith("==")), "")
    return f"ncu exited with code {code} and printed no source counters" + (f": {last}" if last else "")


def _hint(text: str) -> str | None:
    return PERMISSION_HINT if "ERR_NVGPUCTRPERM" in text else None


def binary_that_ran(folder: Path, kernel: str) -> tuple[Compilation | None, tuple[str, ...]]:
    """The kernel's one compile in the program's fresh Triton cache, read as `DIR/:NAME` is."""
    compiles = [e for e in entries(folder) if e.name == kernel] if folder.is_dir() else []
    if len(compiles) != 1:
        why = "it was not compiled there" if not compiles else f"it was compiled {len(compiles)} times (autotuning)"
        return None, (f"the binary that ran is not read back from Triton's cache ({why}): lines from ncu's line table",)
    try:
        return read_compilation(CachedKernel(f"{folder}/:{kernel}", f"{folder}/", kernel)), ()
    except (TritonscopeError, OSError) as exc:
        return None, (f"the binary that ran could not be read ({getattr(exc, 'message', exc)}): lines from ncu's",)


def _read_lines(path: str) -> dict[int, str]:
    try:
        return dict(enumerate(Path(path).read_text(errors="replace").splitlines(), start=1))
    except OSError:
        return {}


@contextlib.contextmanager
def source_in_place(entry):
    """The kernel's source at the path its line information names, while ncu runs: ncu prints each
    line from that file. torch.compile writes its kernels inside the capture while it is written (a
    hidden staging folder, renamed to the capture when done), so the path is gone: the captured
    source is put there for the run (blank lines before it, so the numbers hold), then removed,
    with every folder made for it."""
    record = entry.specialization or {}
    file, source = record.get("file"), record.get("source")
    path = Path(file) if file else None
    if path is None or not source or not path.is_absolute() or path.exists():
        yield
        return
    made = [p for p in reversed(path.parents) if not p.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n" * (int(record.get("first_line") or 1) - 1) + source)
    except OSError:
        made = [p for p in made if p.exists()]
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
