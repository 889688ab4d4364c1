"""A dump as files: one per stage, the binary, and report.json (the `dump --json` document)."""

from __future__ import annotations

from ..core.stages import Stage
from ..results.dump import DumpResult
from .json import report


class FilesRenderer:
    def render(self, result: DumpResult) -> dict[str, bytes]:
        """File name -> content, for every stage, the binary and the JSON report."""
        c = result.compilation
        base = c.variant.kernel
        files: dict[str, bytes] = {}
        for stage, text in c.stages.items():
            name = f"{base}.source.py" if stage is Stage.SOURCE else f"{base}{stage.extension}"
            files[name] = text.encode()
        files[f"{base}.{c.binary_ext}"] = c.binary
        files["report.json"] = report(c).encode()
        return files
