"""A captured (or cached) kernel read back whole as a Compilation, from its artifacts alone:
nothing is recompiled (`dump DIR/:NAME`, `explain`, the capture diff and check)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..analysis.artifacts import to_compilation
from ..capture_hook import tritonscope_contract as contract
from ..core.errors import UsageError
from ..core.model import OPTION_NAMES, Artifacts, Compilation, KernelSpec, Variant
from ..core.pysource import unspecialized
from ..core.source import CachedKernel, cached_kernel
from ..core.stages import Language
from ..core.targets import Target, named
from ..core.values import parse
from .entries import CacheEntry, artifact, artifact_text, as_published, capture_folder, find
from .recorded import kernel_source, recorded_specialization


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
    binary = artifact(entry.path(target.vendor.binary))
    texts = {k: artifact_text(entry.path(k)) for k in entry.stages if k != target.vendor.binary}
    texts.update(machine_code(target.backend, binary, texts.get("ptx"), target.arch, entry.metadata, sass=sass))
    file, first_line, def_line, source = kernel_source(entry)
    if file and not source:
        shown = as_published(file, capture_folder(entry))
        problems.append(f"the kernel's source file {shown} is not there as it was compiled: shown without it")
    language = Language.TRITON if "ttir" in entry.stages else Language.GLUON  # a Gluon kernel starts at GLIR/TTGIR
    held = unspecialized(source, entry.name)  # the decorator read from the recorded source
    published = as_published(file, capture_folder(entry)) if file else file
    spec = KernelSpec(
        name=entry.name,
        file=file,
        published=published if published != file else None,
        line=def_line,
        first_line=first_line,
        source=source,
        params=(),
        language=language,
        do_not_specialize=held.get("do_not_specialize", ()),
        do_not_specialize_on_alignment=held.get("do_not_specialize_on_alignment", ()),
    )
    signature, constants, hints = recorded_specialization(entry)
    if not signature and (capture_folder(entry) / contract.CAPTURE_LOG).exists():  # a capture's, unread
        problems.append(
            f"{contract.CAPTURE_LOG} holds no readable record of this compile (@{str(entry.metadata.get('hash'))[:8]}):"
            " its signature, constants and hints are unknown"
        )
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
