"""Reads Triton cache directories and tritonscope capture directories (made by `trace`).

A cache holds one folder per compiled kernel: `NAME.ttir .ttgir .llir .ptx .cubin`
(or `.amdgcn .hsaco`), Triton's metadata `NAME.json` and a `__grp__NAME.json` index. A
capture directory is a cache under `cache/` plus `kernels.jsonl`, one line per compile
with the specialization Triton used, and `launches.jsonl`, one line per recorded launch (its
grid and arguments; triton_api/capture.py writes them). An entry is named `DIR/:NAME` on the command line.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from ..analysis.artifacts import to_compilation
from ..core.errors import KernelFileError, UsageError
from ..core.model import OPTION_NAMES, Artifacts, Compilation, KernelSpec, Variant, VariantRequest
from ..core.stages import Language
from ..core.targets import TARGETS, Target
from ..core.values import parse
from ..results.cache import CacheEntry

CAPTURE_LOG = "kernels.jsonl"
LAUNCH_LOG = "launches.jsonl"
AUTOTUNE_LOG = "autotune.jsonl"  # trace --target: which config each autotuned kernel launched, and why
SIMULATED_RECORD = "simulated.json"  # trace --target: the simulated GPU's description
STOP_RECORD = "stopped.json"  # trace --target: where the program was stopped, and what it asked
_ASM = ("ttir", "ttgir", "llir", "ptx", "cubin", "amdgcn", "hsaco")


def default_dir() -> Path:
    """Triton's cache: TRITON_CACHE_DIR, else ~/.triton/cache."""
    from ..triton_api.runtime import cache_dir

    return cache_dir()


def is_reference(given: str) -> bool:
    """`DIR/:NAME` (or `DIR:NAME`) naming an entry of an existing directory."""
    folder, sep, name = given.rpartition(":")
    return bool(sep and name and not given.startswith("sample:") and Path(folder or ".").is_dir())


def cache_root(folder: Path) -> Path:
    """The cache inside a capture directory, or the folder itself."""
    return folder / "cache" if (folder / CAPTURE_LOG).exists() and (folder / "cache").is_dir() else folder


def entries(folder: Path) -> list[CacheEntry]:
    """Every compiled kernel in a cache or capture directory, newest first."""
    return scan(folder)[0]


def scan(folder: Path) -> tuple[list[CacheEntry], list[str]]:
    """(every compiled kernel, newest first; one line per file that is not a readable entry)."""
    if not folder.is_dir():
        raise KernelFileError(f"no such directory: {folder}")
    specializations, problems = _capture_log(folder)
    launches, launch_problems = _launch_log(folder)
    problems += launch_problems
    found = []
    for entry in sorted(cache_root(folder).iterdir()):
        if not entry.is_dir():
            continue
        for meta in sorted(entry.glob("*.json")):
            if meta.name.startswith("__grp__"):
                continue
            metadata, problem = _read_metadata(meta)
            if problem:
                problems.append(f"{meta}: {problem}, skipped")
                continue
            found.append(_entry(entry, meta.stem, metadata, specializations, launches))
    return sorted(found, key=lambda e: e.modified, reverse=True), problems


def _read_metadata(meta: Path) -> tuple[dict, str | None]:
    """Triton's metadata of one compiled kernel, or why the file is not that."""
    try:
        metadata = json.loads(meta.read_text())
    except (OSError, ValueError) as exc:
        return {}, f"not readable JSON ({type(exc).__name__})"
    if not isinstance(metadata, dict):
        return {}, "not a JSON object"
    for field, kind in (("name", str), ("target", dict), ("num_warps", int)):
        if not isinstance(metadata.get(field), kind):
            return {}, f"no {field} ({kind.__name__}) in the metadata"
    return metadata, None


def _entry(folder: Path, name: str, metadata: dict, specializations: dict, launches: dict) -> CacheEntry:
    files = [f for f in folder.iterdir() if f.is_file()]
    return CacheEntry(
        folder=folder,
        name=name,
        metadata=metadata,
        stages=tuple(kind for kind in _ASM if (folder / f"{name}.{kind}").exists()),
        size=sum(f.stat().st_size for f in files),
        modified=max(f.stat().st_mtime for f in files),
        specialization=specializations.get(metadata.get("hash")),
        launches=tuple(launches.get(metadata.get("hash"), ())),
    )


def find(reference: str) -> tuple[CacheEntry, list[str]]:
    """The newest entry a `DIR/:NAME` reference names, and the problems met reading DIR."""
    folder, _, name = reference.rpartition(":")
    folder_path = Path(folder or ".")
    found, problems = scan(folder_path)
    candidates = [e for e in found if e.name == name]
    if not candidates:
        names = sorted({e.name for e in found})
        related = [p for p in problems if f"{name}.json" in p]
        raise KernelFileError(
            f"no kernel named '{name}' in {folder_path}. Kernels there: {', '.join(names) or 'none'}"
            + "".join(f"\n  {p}" for p in related),
            hint="tritonscope cache list DIR shows them",
        )
    return candidates[0], problems


def _capture_log(folder: Path) -> tuple[dict[str, dict], list[str]]:
    """The capture's records by compile hash, and a line per record that could not be read."""
    log = folder / CAPTURE_LOG
    if not log.exists():
        return {}, []
    records, problems = {}, []
    for number, line in enumerate(log.read_text(errors="replace").splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            record = None  # e.g. a line cut short when the traced program was killed
        if isinstance(record, dict) and isinstance(record.get("hash"), str):
            records[record["hash"]] = record
        elif line.strip():
            problems.append(f"{log}:{number}: not a compile record, skipped")
    return records, problems


def _launch_log(folder: Path) -> tuple[dict[str, list[dict]], list[str]]:
    """The capture's recorded launches by compile hash, and a line per record that could not be read."""
    log = folder / LAUNCH_LOG
    if not log.exists():
        return {}, []
    launches: dict[str, list[dict]] = {}
    problems = []
    for number, line in enumerate(log.read_text(errors="replace").splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("hash"), str) and isinstance(record.get("args"), list):
            launches.setdefault(record["hash"], []).append(record)
        elif line.strip():
            problems.append(f"{log}:{number}: not a launch record, skipped")
    return launches, problems


def environment_for_capture(out: Path, launches: int = 3, device: dict | None = None) -> dict[str, str]:
    """The environment `trace` runs a program with: compiles land in OUT/cache, each one logged, and
    each compiled kernel's first LAUNCHES launches (in each process) are logged too. With DEVICE
    (core/targets.py: Target.simulated_device) the program runs against that simulated GPU."""
    hook = Path(__file__).resolve().parent.parent / "capture_hook"
    path = os.environ.get("PYTHONPATH", "")
    simulated = {
        "TRITONSCOPE_SIMULATED_DEVICE": json.dumps(device) if device else "",
        "TRITONSCOPE_STOPPED": str(out / STOP_RECORD) if device else "",
        "TRITONSCOPE_AUTOTUNE_LOG": str(out / AUTOTUNE_LOG) if device else "",
    }
    return {
        **os.environ,
        **simulated,
        "TRITON_CACHE_DIR": str(out / ".triton-cache"),  # a working cache; the hook copies each compile to cache/
        "TRITON_ALWAYS_COMPILE": "1",  # a kernel already in the user's cache is captured too
        # torch.compile keeps compiled kernels in caches of its own and would then skip Triton's compile:
        # give it a fresh cache, and turn its caches off.
        "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor"),
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
        "TRITONSCOPE_CAPTURE": str(out / CAPTURE_LOG),
        "TRITONSCOPE_CAPTURE_CACHE": str(out / "cache"),
        "TRITONSCOPE_LAUNCHES": str(out / LAUNCH_LOG) if launches > 0 else "",
        "TRITONSCOPE_LAUNCH_LIMIT": str(launches),
        "PYTHONPATH": f"{hook}{os.pathsep}{path}" if path else str(hook),
    }


def simulation_records(folder: Path) -> tuple[tuple[dict, ...], dict | None]:
    """(each autotune choice a simulated run made, the simulated GPU), read from a capture made
    with trace --target; nothing for other captures and caches. Unreadable lines are skipped."""
    choices = []
    log = folder / AUTOTUNE_LOG
    for line in log.read_text(errors="replace").splitlines() if log.is_file() else []:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("kernel"), str):
            choices.append(record)
    try:
        device = json.loads((folder / SIMULATED_RECORD).read_text())
    except (OSError, ValueError):
        device = None
    return tuple(choices), device if isinstance(device, dict) else None


def stop_record(folder: Path) -> str | None:
    """The line saying where a simulated run stopped the program, or None if it was not stopped."""
    path = folder / STOP_RECORD
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return f"{record.get('where')}: the program asked for {record.get('asked')}" if isinstance(record, dict) else None


def kernel_source(entry: CacheEntry) -> tuple[str, int, int, str]:
    """(file, first line, def line, source) of the kernel: from the capture, else found through the
    location of the kernel in its TTIR. Empty source when neither is there any more."""
    import ast
    import re

    record = entry.specialization or {}
    if record.get("source") and record.get("file"):
        source, first = record["source"], int(record.get("first_line") or 1)
        offset = next((i for i, line in enumerate(source.splitlines()) if line.lstrip().startswith("def ")), 0)
        return record["file"], first, first + offset, source
    first_ir = next((k for k in ("ttir", "glir", "ttgir") if k in entry.stages), None)  # Gluon has no TTIR
    ttir = entry.path(first_ir).read_text(errors="replace") if first_ir else ""
    match = re.search(r'^#loc\d* = loc\("((?:\\.|[^"\\])*)":(\d+):\d+\)', ttir, re.MULTILINE)
    if not match or not Path(match.group(1)).is_file():
        return (match.group(1) if match else ""), 1, 1, ""
    file, def_line = match.group(1), int(match.group(2))
    try:
        text = Path(file).read_text()
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return file, def_line, def_line, ""  # the source changed since: shown without it
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno == def_line and node.end_lineno:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            return file, first, def_line, "".join(text.splitlines(keepends=True)[first - 1 : node.end_lineno])
    return file, def_line, def_line, ""


def recorded_specialization(entry: CacheEntry) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(signature, constants, hints) by parameter name, as a capture recorded them; empty without one.

    Triton keys constants and attributes by the parameter's path, "(3,)": mapped to names here.
    """
    record = entry.specialization or {}
    signature = dict(record.get("signature", {}))
    names = list(signature)

    def name_of(key: str) -> str | None:
        index = key.strip("()").split(",")[0].strip()
        return names[int(index)] if index.isdigit() and int(index) < len(names) else None

    constants = {name_of(k): v for k, v in record.get("constants", {}).items() if name_of(k)}
    codes = {"tt.divisibility": "D", "tt.pointer_range": "S"}
    hints = {
        name_of(k): "".join(codes.get(a[0], "") for a in attrs)
        for k, attrs in record.get("attrs", {}).items()
        if attrs and name_of(k)
    }
    return signature, constants, hints


def source_request(reference: str) -> VariantRequest:
    """A request that compiles a cached kernel again from its source file, as it was specialized:
    what `diff` and `passes`, which compile, start from when given `DIR/:NAME`."""
    entry, _ = find(reference)
    return entry_request(entry, reference)


def entry_request(entry: CacheEntry, reference: str) -> VariantRequest:
    """The request that compiles one entry again from its source file, as it was specialized."""
    file, _, _, source = kernel_source(entry)
    if not source or not Path(file).is_file():
        raise KernelFileError(f"{reference}: its source file {file or '(unknown)'} is not there to compile from")
    signature, constants, hints = recorded_specialization(entry)
    constexprs = tuple((n, parse(v)) for n, v in constants.items() if signature.get(n) == "constexpr")
    launched = _launched_scalars(entry)
    args = tuple(
        (n, launched.get(n, _specializing_as(t, hints.get(n, "")))) for n, t in signature.items() if t != "constexpr"
    )
    metadata = entry.metadata
    return VariantRequest(
        file=file,
        kernel=entry.name,
        constexprs=constexprs,
        args=args,
        target=entry.target,
        num_warps=metadata.get("num_warps"),
        num_stages=metadata.get("num_stages"),
    )


# An integer of each type that specializes as the recorded one did with the hint D (divisible by 16).
_DIVISIBLE = {"i32": 16, "i64": 2**31 + 16, "u64": 2**63}


def _specializing_as(type_: str, hint: str):
    """A value (or type) for a scalar that specializes to TYPE with HINT, as the recorded compile did:
    a type name gives no divisibility hint, so an integer that had one is given as a multiple of 16."""
    if "D" in hint and type_ in _DIVISIBLE:
        return _DIVISIBLE[type_]
    return parse(type_)


def _launched_scalars(entry: CacheEntry) -> dict[str, int | float | bool]:
    """The integer, float and bool arguments of the entry's first recorded launch, by parameter name:
    the values the program passed, which specialize (and feed heuristics) exactly as it did."""
    if not entry.launches:
        return {}
    launch = entry.launches[0]
    names, args = launch.get("params"), launch.get("args")
    if not isinstance(names, list) or not isinstance(args, list) or len(names) != len(args):
        return {}
    values = {}
    for name, arg in zip(names, args, strict=True):
        if isinstance(arg, dict) and arg.get("kind") in ("int", "bool") and isinstance(arg.get("value"), (int, bool)):
            values[name] = arg["value"]
        elif isinstance(arg, dict) and arg.get("kind") == "float" and isinstance(arg.get("value"), str):
            values[name] = float(arg["value"])
    return values


def read_compilation(reference: str) -> Compilation:
    """The Compilation of a cached kernel, from its artifacts alone: nothing is recompiled."""
    entry, problems = find(reference)
    return entry_compilation(entry, reference, problems)


def entry_compilation(entry: CacheEntry, reference: str, problems: list[str] | None = None) -> Compilation:
    """The Compilation of one entry (its SASS with line information), nothing recompiled."""
    spec, variant, target, artifacts = entry_parts(entry, reference, list(problems or ()), sass=True)
    return dataclasses.replace(to_compilation(spec, variant, artifacts, target), launches=entry.launches)


def entry_parts(
    entry: CacheEntry, reference: str, problems: list[str], sass: bool
) -> tuple[KernelSpec, Variant, Target, Artifacts]:
    """What a Compilation of an entry is made of; without `sass`, the caller disassembles (many at once)."""
    from ..triton_api.remarks import recorded_remarks
    from ..triton_api.tools import machine_code

    if entry.target not in TARGETS:
        raise UsageError(f"{reference}: compiled for {entry.target}, which tritonscope has no limits for")
    target = TARGETS[entry.target]
    if target.vendor.binary not in entry.stages:
        raise UsageError(f"{reference}: the entry has no binary ({target.vendor.binary})")
    binary = entry.path(target.vendor.binary).read_bytes()
    texts = {k: _artifact_text(entry.path(k)) for k in entry.stages if k != target.vendor.binary}
    texts.update(machine_code(target.backend, binary, texts.get("ptx"), target.arch, entry.metadata, sass=sass))
    file, first_line, def_line, source = kernel_source(entry)
    if file and not source:
        problems.append(f"the source {file} is not readable as it was compiled: shown without it")
    language = Language.TRITON if "ttir" in entry.stages else Language.GLUON  # a Gluon kernel starts at GLIR/TTGIR
    spec = KernelSpec(
        name=entry.name, file=file, line=def_line, first_line=first_line, source=source, params=(), language=language
    )
    signature, constants, hints = recorded_specialization(entry)
    variant = Variant(
        kernel=entry.name,
        file=reference,
        target=entry.target,
        constexprs={n: parse(v) for n, v in constants.items()},
        signature=signature,
        hints=hints,
        arguments={},
        options={k: entry.metadata[k] for k in OPTION_NAMES if isinstance(entry.metadata.get(k), int)},
        cached=True,
    )
    notices = (f"read from {entry.folder}, not recompiled", *problems)
    remarks = recorded_remarks(entry.metadata, Path(entry.folder).parent) or ()
    return spec, variant, target, Artifacts(texts, binary, entry.metadata, 0.0, notices, remarks=remarks)


def _artifact_text(path: Path) -> str:
    try:
        return path.read_text()
    except UnicodeDecodeError:
        raise UsageError(
            f"{path}: not text (a damaged cache entry)", hint="delete its folder and compile again"
        ) from None
