"""A kernel the user's own process compiled and launched (`ts.launched`, `ts.capture`), as `dump`
shows it: a Compilation made from what Triton kept of the compile (triton_api/launched.py reads it
there: the stages, the binary, the metadata, the specialization), nothing recompiled. Its source is
the kernel's file or notebook cells, loaded here as any request's are."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..analysis.artifacts import to_compilation
from ..core.errors import UsageError
from ..core.model import OPTION_NAMES, Artifacts, KernelSpec, Variant
from ..core.source import Source
from ..core.targets import Target, named
from ..results.dump import DumpResult
from .walk.load import load_file

if TYPE_CHECKING:
    from ..triton_api.launched import Launched

NOT_RECOMPILED = "launched in this process: Triton's compiled kernel read back, not recompiled"


def dump_launched(source: Source | None, kernel: str, launched: Launched) -> DumpResult:
    """The dump of one launched kernel; `source` None: one compiled from IR, shown without its Python."""
    from ..triton_api.tools import machine_code

    metadata = json.loads(launched.metadata)
    target = _target(metadata)
    texts = dict(launched.texts)
    texts.update(machine_code(target.backend, launched.binary, texts.get("ptx"), target.arch, metadata))
    spec = _spec(source, kernel, launched.name)
    variant = Variant(
        kernel=launched.name,
        file=source.given if source is not None else launched.name,
        target=target.name,
        constexprs=dict(launched.constexprs),
        signature=dict(launched.signature),
        hints=dict(launched.hints),
        arguments={},
        options={k: metadata[k] for k in OPTION_NAMES if isinstance(metadata.get(k), int)},
        cached=True,
    )
    artifacts = Artifacts(texts, launched.binary, metadata, 0.0, (NOT_RECOMPILED,))
    compilation = to_compilation(spec, variant, artifacts, target)
    return DumpResult(compilation, tuple(compilation.stages))


def _target(metadata: dict[str, Any]) -> Target:
    given = metadata.get("target") or {}
    arch = given.get("arch")
    name = f"sm{arch}" if given.get("backend") == "cuda" else str(arch)
    target = named(name)
    if target is None:
        raise UsageError(
            f"the kernel was compiled for {given.get('backend')}:{arch}, which tritonscope has no limits for"
        )
    return target


def _spec(source: Source | None, kernel: str, name: str) -> KernelSpec:
    if source is None:
        return KernelSpec(name=name, file="", line=1, first_line=1, source="", params=())
    return load_file(source).pick(kernel).spec
