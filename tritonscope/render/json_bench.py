"""The `--json` documents of timings on a GPU: `bench`, a captured kernel's launches replayed, and
the same program under several Triton releases (docs/json-schema.md).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from .json import JsonRenderer

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.bench import BenchResult, ReleaseTimings, ReplayResult


class BenchJson(JsonRenderer):
    """Measured times; release timings hold other results, drawn by their own families."""

    def bench(self, r: BenchResult):
        return {"file": r.file, "peak": asdict(r.peak), "results": [asdict(m) for m in r.results]}

    def replay(self, r: ReplayResult):
        return {
            "capture": r.reference,
            "kernel": r.kernel,
            "file": r.file,
            "peak": asdict(r.peak),
            "launches": [asdict(t) for t in r.launches],
        }

    def release_timings(self, r: ReleaseTimings):
        return {
            "subject": r.subject,
            "releases": list(r.releases),
            "runs": [None if run is None else self.body(run) for run in r.runs],
            "errors": list(r.errors),
            "ratios": [{"launch": key, "ratios": ratios} for key, ratios in r.ratios()],
            "passes": None if r.passes is None else self.body(r.passes),
            "passes_error": r.passes_error,
        }
