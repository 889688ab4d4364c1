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
import re
from pathlib import Path

from ..analysis.artifacts import to_compilation
from ..core import autotune_rule, fileio, schemas
from ..core.autotune_rule import AutotuneRule
from ..core.errors import KernelFileError, UsageError
from ..core.model import OPTION_NAMES, Artifacts, Compilation, KernelSpec, Variant, VariantRequest
from ..core.pysource import declared_constexprs
from ..core.source import CachedKernel, cached_kernel
from ..core.stages import Language
from ..core.targets import Target, named
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


def cache_root(folder: Path) -> Path:
    """The cache inside a capture directory, or the folder itself."""
    return folder / "cache" if (folder / CAPTURE_LOG).exists() and (folder / "cache").is_dir() else folder


def entries(folder: Path) -> list[CacheEntry]:
    """Every compiled kernel in a cache or capture directory, newest first."""
    return scan(folder)[0]


def scan(folder: Path) -> tuple[list[CacheEntry], list[str]]:
    """(every compiled kernel, newest first; one line per file that is not a readable entry)."""
    fileio.recover(folder)  # a capture whose --force swap was cut short by a kill: put back
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
        metadata = schemas.parse(fileio.read_input_text(meta))
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"not readable ({getattr(exc, 'strerror', None) or exc})"
    except schemas.Invalid as exc:
        return {}, str(exc)
    wrong = schemas.problem(metadata, schemas.METADATA)
    return (metadata, None) if wrong is None else ({}, f"not Triton's metadata: {wrong}")


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


def find(kernel: CachedKernel) -> tuple[CacheEntry, list[str]]:
    """The newest entry a `DIR/:NAME` reference names, and the problems met reading DIR."""
    name = kernel.name
    found, problems = scan(kernel.folder_path)
    candidates = [e for e in found if e.name == name]
    if not candidates:
        names = sorted({e.name for e in found})
        related = [p for p in problems if f"{name}.json" in p]
        raise KernelFileError(
            f"no kernel named '{name}' in {kernel.folder_path}. Kernels there: {', '.join(names) or 'none'}"
            + "".join(f"\n  {p}" for p in related),
            hint="tritonscope cache list DIR shows them",
        )
    return candidates[0], problems


def _capture_log(folder: Path) -> tuple[dict[str, dict], list[str]]:
    """The capture's records by compile hash, and a line per record that could not be read."""
    records: dict[str, dict] = {}
    lines, problems = _log_records(folder / CAPTURE_LOG, schemas.COMPILE_RECORD, "compile record")
    for record in lines:
        records[record["hash"]] = record
    return records, problems


def capture_folder(entry: CacheEntry) -> Path:
    """The capture (or cache) folder an entry was found in: OUT of `trace -o OUT` for OUT/cache/KEY."""
    cache_folder = Path(entry.folder).parent
    return cache_folder.parent if (cache_folder.parent / CAPTURE_LOG).exists() else cache_folder


def as_published(file: str, folder: Path) -> str:
    """A path the traced program saw inside the capture while it was written (the hidden staging
    folder `.NAME.new.PID.xxxx` beside it: torch.compile writes its kernels there) as the same
    path in the capture folder the user has. The record keeps the path as compiled: it is in the
    kernel's line information and its PTX, which a reproduction must match."""
    parent, name = folder.resolve().parent, folder.resolve().name
    match = re.match(rf"^{re.escape(str(parent))}/\.{re.escape(name)}\.new\.\d+\.[^/]+(/.*)?$", file)
    return str(folder.resolve()) + (match.group(1) or "") if match else file


def _log_records(log: Path, shape: dict, what: str) -> tuple[list[dict], list[str]]:
    """The records of a capture's log that have the shape they should, and a line naming the file,
    line and field of each that has not (a line cut short when the traced program was killed, say)."""
    if not log.exists() and not log.is_symlink():
        return [], []
    try:
        text = fileio.read_input(log).decode(errors="replace")
    except OSError as exc:
        return [], [f"{log}: not readable ({exc.strerror or exc}), skipped"]
    records, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = schemas.parse(line)
            wrong = schemas.problem(record, shape)
        except schemas.Invalid as exc:
            wrong = str(exc)
        if wrong is None:
            records.append(record)
        else:
            problems.append(f"{log}:{number}: not a {what} ({wrong}), skipped")
    return records, problems


def _launch_log(folder: Path) -> tuple[dict[str, list[dict]], list[str]]:
    """The capture's recorded launches by compile hash, and a line per record that could not be read."""
    launches: dict[str, list[dict]] = {}
    records, problems = _log_records(folder / LAUNCH_LOG, schemas.LAUNCH_RECORD, "launch record")
    for record in records:
        launches.setdefault(record["hash"], []).append(record)
    return launches, problems


def environment_for_capture(
    out: Path, launches: int = 3, device: dict | None = None, autotune: AutotuneRule | None = None
) -> dict[str, str]:
    """The environment `trace` runs a program with: compiles land in OUT/cache, each one logged, and
    each compiled kernel's first LAUNCHES launches (in each process) are logged too. With DEVICE
    (core/targets.py: Target.simulated_device) the program runs against that simulated GPU, where
    AUTOTUNE (default: the first) picks the candidate each autotuned kernel launches."""
    hook = Path(__file__).resolve().parent.parent / "capture_hook"
    path = os.environ.get("PYTHONPATH", "")
    simulated = {
        "TRITONSCOPE_SIMULATED_DEVICE": json.dumps(device) if device else "",
        "TRITONSCOPE_STOPPED": str(out / STOP_RECORD) if device else "",
        "TRITONSCOPE_AUTOTUNE_LOG": str(out / AUTOTUNE_LOG) if device else "",
        autotune_rule.ENVIRONMENT: autotune.as_environment() if device and autotune else "",
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
    try:  # only a regular file is read: a named pipe there would never end the read
        lines = fileio.read_input(folder / AUTOTUNE_LOG).decode(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            record = schemas.parse(line)
        except schemas.Invalid:
            continue
        if isinstance(record, dict) and isinstance(record.get("kernel"), str):
            choices.append(record)
    device = _json_file(folder / SIMULATED_RECORD)
    return tuple(choices), device if isinstance(device, dict) else None


def _json_file(path: Path):
    """A small JSON file of a capture, or None when it is missing, not a regular file, or not JSON."""
    try:
        return schemas.parse(fileio.read_input_text(path))
    except (OSError, UnicodeDecodeError, schemas.Invalid):
        return None


def stop_record(folder: Path) -> str | None:
    """The line saying where a simulated run stopped the program, or None if it was not stopped."""
    record = _json_file(folder / STOP_RECORD)
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
    ttir = _artifact_text(entry.path(first_ir)) if first_ir else ""
    match = re.search(r'^#loc\d* = loc\("((?:\\.|[^"\\])*)":(\d+):\d+\)', ttir, re.MULTILINE)
    if not match or not Path(match.group(1)).is_file():
        return (match.group(1) if match else ""), 1, 1, ""
    file, def_line = match.group(1), int(match.group(2))
    try:
        text = fileio.read_input_text(file)
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


def source_request(kernel: CachedKernel) -> VariantRequest:
    """A request that compiles a cached kernel again from its source file, as it was specialized:
    what `diff` and `passes`, which compile, start from when given `DIR/:NAME`."""
    entry, _ = find(kernel)
    return entry_request(entry, kernel.given)


def entry_request(entry: CacheEntry, reference: str) -> VariantRequest:
    """The request that compiles one entry again from its source file, as it was specialized."""
    file, _, _, source = kernel_source(entry)
    if not source or not Path(file).is_file():
        raise KernelFileError(f"{reference}: its source file {file or '(unknown)'} is not there to compile from")
    signature, constants, hints = recorded_specialization(entry)
    launched = _launched_scalars(entry)
    # Triton records an argument specialized to a constant (a 1, a None) as a constexpr too: only the
    # parameters the kernel declares constexpr are given as such, the others as the value they had.
    declared = declared_constexprs(source, entry.name)
    constant = {n: parse(v) for n, v in constants.items() if signature.get(n) == "constexpr"}
    constexprs = tuple((n, v) for n, v in constant.items() if declared is None or n in declared)
    args = tuple(
        (n, launched.get(n, constant[n] if t == "constexpr" else _specializing_as(t, hints.get(n, ""))))
        for n, t in signature.items()
        if t != "constexpr" or (declared is not None and n not in declared and n in constant)
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


def read_compilation(kernel: CachedKernel | str) -> Compilation:
    """The Compilation of a cached kernel, from its artifacts alone: nothing is recompiled. A str
    is a `DIR/:NAME` reference."""
    if isinstance(kernel, str):
        kernel = cached_kernel(kernel)
    entry, problems = find(kernel)
    return entry_compilation(entry, kernel.given, problems)


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

    target = named(entry.target)
    if target is None:
        raise UsageError(f"{reference}: compiled for {entry.target}, which tritonscope has no limits for")
    if target.vendor.binary not in entry.stages:
        raise UsageError(f"{reference}: the entry has no binary ({target.vendor.binary})")
    binary = _artifact(entry.path(target.vendor.binary))
    texts = {k: _artifact_text(entry.path(k)) for k in entry.stages if k != target.vendor.binary}
    texts.update(machine_code(target.backend, binary, texts.get("ptx"), target.arch, entry.metadata, sass=sass))
    file, first_line, def_line, source = kernel_source(entry)
    if file and not source:
        shown = as_published(file, capture_folder(entry))
        problems.append(f"the kernel's source file {shown} is not there as it was compiled: shown without it")
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


def _artifact(path: Path) -> bytes:
    """A file of a cache entry (only a regular file: a pipe there would never end the read)."""
    try:
        return fileio.read_input(path)
    except OSError as exc:
        raise UsageError(
            f"{path}: not readable ({exc.strerror or exc})", hint="delete its folder and compile again"
        ) from None


def _artifact_text(path: Path) -> str:
    try:
        return _artifact(path).decode()
    except UnicodeDecodeError:
        raise UsageError(
            f"{path}: not text (a damaged cache entry)", hint="delete its folder and compile again"
        ) from None
