"""The `--json` documents of what there is: the samples, a file's kernels, the installed Triton
releases, a cache's kernels and what `trace` captured (docs/json-schema.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .json import JsonRenderer

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.cache import CacheListing
    from ..results.catalog import EnvsListing, KernelList, SamplesResult
    from ..results.trace import TraceResult


class ListingsJson(JsonRenderer):
    """Lists of samples, kernels, releases and cached or captured compiles."""

    def samples(self, r: SamplesResult):
        rows = [
            {"name": s.name, "kernels": list(s.kernels), "description": s.description, "path": str(s.path)}
            for s in r.samples
        ]
        return {"samples": rows}

    def kernel_list(self, r: KernelList):
        return {"file": str(r.path), "kernels": list(r.kernels), "defaults": r.defaults, "notices": list(r.notices)}

    def envs(self, r: EnvsListing):
        envs = [{"release": release, "path": str(path), "bytes": size} for release, path, size in r.envs]
        return {"folder": str(r.folder), "running": r.running, "envs": envs}

    def cache(self, r: CacheListing):
        return {
            "folder": str(r.folder),
            "kernels": [_entry(r.folder, e, name) for e, name in zip(r.entries, r.picked_names(), strict=True)],
            "skipped": list(r.skipped),
            "simulated_device": r.simulated,
            "autotune": list(r.autotune),
        }

    def trace(self, r: TraceResult):
        body = {"out": str(r.out), "returncode": r.returncode, "kernels": list(r.kernels), "launches": r.launches}
        body.update(target=r.target, stopped=r.stopped, on_read=r.on_read, answered_reads=list(r.answered))
        body.update(interrupted=r.interrupted, compiles=r.compiles, binaries=r.binaries, written=r.written)
        return body


def _entry(folder, e, picked: str) -> dict[str, Any]:
    return {
        "name": e.name,
        "reference": f"{folder}/:{picked}",  # with @HASH where the name was compiled more than once
        "target": e.target,
        "folder": str(e.folder),
        "options": {k: e.metadata.get(k) for k in ("num_warps", "num_stages", "num_ctas")},
        "stages": list(e.stages),
        "bytes": e.size,
        "modified": e.modified,
        "captured": e.specialization is not None,
        "launches": list(e.launches),
    }
