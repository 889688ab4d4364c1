"""One compile summarized for comparing captures: its figures (those `check` holds to budgets),
its instruction mix, explain's findings and a digest of its machine code; and what pairing keys
on, taken from the capture's records (source, specialization, launch shapes)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from ..analysis import instruction_mix, normalize
from ..captures.entries import CacheEntry
from ..captures.recorded import kernel_source, recorded_specialization
from ..core import launches
from ..core.model import OPTION_NAMES, Compilation


def of(compilation: Compilation, findings: bool = True) -> dict[str, Any]:
    """The figures, mix, findings and code digest of a compilation (no what-ifs compiled). Without
    `findings` (a SASS read without line information), findings are None: not read."""
    from .check import figures
    from .explain import explain_compilation

    # explain's findings, less the registers live per line: findings are compared by kind and message,
    # which they do not change (only where an occupancy finding points), and nvdisasm would run per compile.
    explained = explain_compilation(compilation, None, live=False)
    values = figures(explained)
    values.pop("findings", None)  # compared one by one, below
    stage = compilation.variant.target_info.vendor.machine_code
    text = compilation.stages.get(stage, "")
    mix = Counter(op.kind for _, op in instruction_mix.classify(stage, text))
    code = "\n".join(normalize.comparable(stage, text)) if text else ""
    return {
        "target": compilation.variant.target,
        "triton_version": str(compilation.metadata.get("triton_version", compilation.triton_version)),
        "figures": values,
        "mix": {k: n for k, n in sorted(mix.items()) if k != "other"},
        "findings": tuple(explained.findings) if findings else None,
        "code": hashlib.sha256(code.encode()).hexdigest()[:16],
    }


def keys(folder: Path, entry: CacheEntry) -> dict[str, Any]:
    """The entry's name, hash, source digest, specialization and distinct launch shapes."""
    _, _, _, source = kernel_source(entry)
    signature, constants, hints = recorded_specialization(entry)
    spec = [(f"s:{n}", t) for n, t in signature.items() if t != "constexpr"]
    spec += [(f"c:{n}", v) for n, v in constants.items()]
    spec += [(f"h:{n}", h) for n, h in hints.items() if h]
    spec += [(k, str(entry.metadata[k])) for k in OPTION_NAMES if entry.metadata.get(k) is not None]
    shapes = dict.fromkeys(f"grid {launches.grid_text(x)}: {launches.tensor_shapes(x)}" for x in entry.launches)
    hash_ = str(entry.metadata["hash"])
    return {
        "name": entry.name,
        "hash": hash_,
        "source": hashlib.sha256(source.encode()).hexdigest()[:16] if source else "",
        "specialization": tuple(sorted(spec)),
        "shapes": tuple(shapes),
        "reference": f"{folder}/:{entry.name}@{hash_[:8]}",
        "recorded": entry.specialization is not None,
    }
