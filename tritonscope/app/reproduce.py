"""`tritonscope reproduce DIR/:KERNEL`: a standalone script that launches a captured kernel again.

The script (app/script_template.py plus the data written here) needs torch, Triton and a GPU,
not tritonscope. It compiles with the specialization the capture recorded and checks the hash
of the assembly: the PTX (or AMDGCN) is what ran, and its hash holds across installations of
one Triton release, where Triton's own compile hash (its cache key) also covers where Triton
is installed and the cache-invalidating environment.
"""

from __future__ import annotations

import ast
import hashlib
import pprint
import shlex
from pathlib import Path

from ..captures.entries import CacheEntry, as_published, capture_folder, find
from ..core import fileio, inputs
from ..core.errors import KernelFileError, UsageError
from ..core.source import CachedKernel
from ..core.values import format_value
from ..results.trace import ReproduceResult
from .script_template import CODE

# Triton's metadata that is not a compile option (or, as extern_libs, names files of one installation).
_NOT_OPTIONS = {"hash", "name", "target", "shared", "tmem_size", "triton_version", "extern_libs", "tensordesc_meta"}
_NOT_OPTIONS |= {"global_scratch_size", "global_scratch_align", "profile_scratch_size", "profile_scratch_align"}


def reproduce(kernel: CachedKernel, number: int = 1) -> ReproduceResult:
    entry, _ = find(kernel)
    reference = kernel.given
    launch = pick_launch(entry, reference, number)
    if entry.specialization is None:
        raise UsageError(f"{reference}: not from a `tritonscope trace` capture (no recorded specialization)")
    notes = []
    text = script(entry, launch, reference, notes)
    dump = dump_command(entry, launch, reference)
    source = entry.specialization.get("file", "")
    return ReproduceResult(reference, entry.name, number, len(entry.launches), launch, text, dump, tuple(notes), source)


def pick_launch(entry: CacheEntry, reference: str, number: int) -> dict:
    if not entry.launches:
        raise UsageError(
            f"{reference}: no launch of {entry.name} was recorded",
            hint="trace records launches on a GPU (--launches N); a kernel compiled but never run has none",
        )
    if not 1 <= number <= len(entry.launches):
        count = len(entry.launches)
        raise UsageError(f"--launch {number}: {entry.name} has {count} recorded launch(es), numbered 1 to {count}")
    return entry.launches[number - 1]


def assembly(entry: CacheEntry) -> tuple[str, str]:
    """(the assembly stage the script compares, the sha256 of the captured one)."""
    kind = "ptx" if "ptx" in entry.stages else "amdgcn"
    if kind not in entry.stages:
        raise UsageError(f"{entry.folder}: the entry has neither PTX nor AMDGCN to check a reproduction against")
    try:
        data = fileio.read_input(entry.path(kind))
    except OSError as exc:
        raise UsageError(f"{entry.path(kind)}: not readable ({exc.strerror or exc})") from None
    return kind, hashlib.sha256(data).hexdigest()


def script(entry: CacheEntry, launch: dict, reference: str, notes: list[str]) -> str:
    """The whole script: a docstring, the captured data as Python literals, then the code."""
    record = entry.specialization or {}
    kind, digest = assembly(entry)
    target = entry.metadata["target"]
    data = {
        "KERNEL": entry.name,
        "IMPORT": kernel_import(record, notes, capture_folder(entry)),
        **embedded_source(record, entry.name),
        "SIGNATURE": record.get("signature", {}),
        "CONSTANTS": constants(record, launch),
        "ATTRS": {ast.literal_eval(k): v for k, v in record.get("attrs", {}).items()},
        "TARGET": (target["backend"], target["arch"], target["warp_size"]),
        "OPTIONS": {k: v for k, v in entry.metadata.items() if k not in _NOT_OPTIONS},
        "GRID": tuple(launch["grid"]),
        "PARAMS": launch.get("params") or list(record.get("signature", {})),
        "ARGS": launch["args"],
        "SEED": 0,
        "ASSEMBLY": kind,
        "ASSEMBLY_SHA256": digest,
        "CAPTURED_HASH": entry.metadata.get("hash"),
        "ENVIRONMENT": record.get("environment", {}),  # e.g. the ptxas torch.compile had Triton use
    }
    lines = [f"{name} = {pprint.pformat(value, width=110, sort_dicts=False)}" for name, value in data.items()]
    return header(entry, launch, reference) + "\n".join(lines) + "\n" + CODE


def header(entry: CacheEntry, launch: dict, reference: str) -> str:
    return (
        "#!/usr/bin/env python3\n"
        f'"""Launches {entry.name} again as `tritonscope trace` saw it launched ({reference}, grid '
        f"{'x'.join(map(str, launch['grid']))}).\n\n"
        "Standalone: needs torch, Triton (the capture used Triton "
        f"{entry.metadata.get('triton_version', '?')}) and a GPU, not tritonscope. Compiles the kernel with the "
        "captured\nspecialization and options, checks that the assembly's hash equals the captured one, makes "
        "random\narguments (seeded) with the captured shapes, strides and dtypes, launches with the captured grid\n"
        'and prints the time (triton.testing.do_bench). Exit status 1 when the hash differs.\n"""\n\n'
    )


def kernel_import(record: dict, notes: list[str], capture: Path) -> dict | None:
    """How the script gets the kernel from its file: by module name (with the folder to put on
    sys.path) or by path; None when the source has to be embedded instead."""
    file, module = record.get("file"), record.get("module")
    if not file or not Path(file).is_file() or not _unchanged(record):
        shown = as_published(file, capture) if file else f"the file of {record.get('name') or 'the kernel'}"
        if file and shown != file and Path(shown).is_file():  # written in trace's staging folder, renamed since
            notes.append(
                f"the kernel's source is embedded, compiled under the name it had while trace wrote the capture "
                f"(its PTX's line information names it): {shown}"
            )
        else:
            notes.append(f"the kernel's source is embedded: {shown} is not there as it was compiled")
        return None
    if module in (None, "__main__"):
        notes.append(f"the kernel's source is embedded: importing {file} would run that program")
        return None
    parts = module.split(".")
    path = Path(file)
    relative = Path(*parts[:-1], f"{parts[-1]}.py") if path.name != "__init__.py" else Path(*parts, "__init__.py")
    if path.as_posix().endswith("/" + relative.as_posix()):
        return {"module": module, "root": str(path.parents[len(relative.parts) - 1]), "file": file}
    return {"file": file}


def _unchanged(record: dict) -> bool:
    """The file still holds the kernel's source at the line it was compiled from."""
    try:
        lines = fileio.read_input_text(record["file"]).splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return False
    first, source = int(record.get("first_line") or 1), record.get("source", "")
    return "".join(lines[first - 1 : first - 1 + len(source.splitlines())]) == source


def embedded_source(record: dict, name: str) -> dict:
    """The kernel's source with its decorators made one `@triton.jit` (torch.compile's stack
    their own above it) and blank lines, so that every line keeps its number, and Triton's cache
    key, which counts the first line, can match; the file name it was compiled under; the
    globals its body uses."""
    source = record.get("source", "")
    lines = source.splitlines(keepends=True)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None
    function = next((n for n in getattr(tree, "body", []) if isinstance(n, ast.FunctionDef)), None)
    if function is not None and function.decorator_list:
        start = min(d.lineno for d in function.decorator_list) - 1
        lines[start : function.lineno - 1] = ["@triton.jit\n"] + ["\n"] * (function.lineno - 2 - start)
    return {
        "SOURCE_FILE": record.get("file") or f"<{name}>",
        "FIRST_LINE": int(record.get("first_line") or 1),
        "SOURCE": "".join(lines),
        "GLOBALS": record.get("globals", {}),
    }


def constants(record: dict, launch: dict) -> dict:
    """The compile's constants by Triton's parameter path, each as an argument description: the
    typed value the capture recorded, else the launch's value of that parameter."""
    typed = record.get("constant_values") or {}
    found = {}
    for key, text in record.get("constants", {}).items():
        path = ast.literal_eval(key)
        if key in typed:
            found[path] = typed[key]
        elif isinstance(path, tuple) and len(path) == 1 and path[0] < len(launch["args"]):
            found[path] = launch["args"][path[0]]
        else:
            raise KernelFileError(f"the capture has no value for the constant {key} = {text}")
    return found


def dump_command(entry: CacheEntry, launch: dict, reference: str) -> str:
    """The `tritonscope dump` line that specializes the kernel as this launch did: pointer types
    and scalar values (dump applies the launcher's rules to them), constexprs, options. A kernel
    whose source file is gone (torch.compile's) is read back from the capture instead."""
    record = entry.specialization or {}
    file, signature = record.get("file"), record.get("signature", {})
    if not file or not Path(file).is_file() or record.get("module") == "__main__":
        return shlex.join(["tritonscope", "dump", reference])
    words = ["tritonscope", "dump", file, *inputs.command_words({"kernel": entry.name, "target": entry.target})]
    c, a = inputs.named("constexprs").spelled, inputs.named("args").spelled
    for (name, kind), arg in zip(signature.items(), launch["args"], strict=False):
        if kind.startswith("*"):
            words += [a, f"{name}={kind}"]
        elif kind == "constexpr" and arg["kind"] in ("int", "bool", "float", "str", "none"):
            words += [c if _declared_constexpr(record, name) else a, f"{name}={_text(arg)}"]
        elif arg["kind"] in ("int", "bool", "float"):
            words += [a, f"{name}={_text(arg)}"]
    for option in ("num_warps", "num_stages"):
        if isinstance(entry.metadata.get(option), int):
            words += inputs.command_words({option: entry.metadata[option]})
    return shlex.join(words)


def _declared_constexpr(record: dict, name: str) -> bool:
    """A parameter the source annotates constexpr (not an argument Triton specialized to a constant, a 1 or None)."""
    try:
        tree = ast.parse(record.get("source", ""))
    except SyntaxError:
        return False
    function = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    params = function.args.args if function is not None else []
    return any(a.arg == name and a.annotation is not None and "constexpr" in ast.unparse(a.annotation) for a in params)


def _text(arg: dict) -> str:
    if arg["kind"] == "none":
        return "None"
    if arg["kind"] == "float":
        return arg["value"]
    return format_value(arg["value"])
