"""The request that compiles a captured (or cached) kernel again from its source file, rebuilt from
its record as it was specialized: what `diff` and `passes`, which compile, start from when given
`DIR/:NAME`, and what `diff DIR/ --vary triton=` compiles under each release."""

from __future__ import annotations

from pathlib import Path

from ..analysis.warp_specialize import module_warps
from ..core.errors import KernelFileError
from ..core.model import VariantRequest
from ..core.pysource import declared_constexprs
from ..core.script_definitions import script_kernel
from ..core.source import CachedKernel
from ..core.values import parse
from .entries import CacheEntry, artifact_text, as_published, capture_folder, find
from .recorded import kernel_source, recorded_specialization


def source_request(kernel: CachedKernel) -> VariantRequest:
    """A request that compiles a cached kernel again from its source file, as it was specialized:
    what `diff` and `passes`, which compile, start from when given `DIR/:NAME`."""
    entry, _ = find(kernel)
    return entry_request(entry, kernel.given)


def entry_request(entry: CacheEntry, reference: str) -> VariantRequest:
    """The request that compiles one entry again from its source file, as it was specialized."""
    file, _, _, source = kernel_source(entry)
    published = as_published(file, capture_folder(entry)) if file else file  # torch.compile's, in the capture
    file = published if Path(published).is_file() else file
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
        num_warps=_launched_warps(entry),
        num_stages=metadata.get("num_stages"),
        maxnreg=metadata.get("maxnreg"),
        source=_script_kernel(entry, file),  # type: ignore[arg-type]  # None: parsed from `file`
    )


def _script_kernel(entry: CacheEntry, file: str):
    """A kernel of the traced script itself (`__main__`) made from the script's definitions alone,
    never by running the program again (core/script_definitions.py); None for a kernel of a module."""
    if (entry.specialization or {}).get("module") != "__main__":
        return None
    return script_kernel(file, entry.name)


def _launched_warps(entry: CacheEntry) -> int | None:
    """The num_warps the launch gave: the TTGIR module's (Gluon's warp_specialize: 4 launched, the
    metadata's 8 counting the worker partitions)."""
    ttgir = artifact_text(entry.path("ttgir")) if "ttgir" in entry.stages else ""
    return module_warps(ttgir) or entry.metadata.get("num_warps")


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
