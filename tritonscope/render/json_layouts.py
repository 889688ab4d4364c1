"""The `--json` documents of who holds and covers what: `layout` (a layout's owners, a kernel's
layouts, a shared layout's banks) and `grid` (docs/json-schema.md).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from .json import JsonRenderer

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.grid import GridResult
    from ..results.layout import LayoutListResult, LayoutResult, SharedLayoutResult


class LayoutsJson(JsonRenderer):
    """Layouts and launch grids."""

    def layout(self, r: LayoutResult):
        own = r.ownership
        owners = {",".join(map(str, e)): [list(o) for o in who] for e, who in sorted(own.owners.items())}
        return {
            "layout": r.layout.text,
            "origin": r.origin,
            "shape": list(own.shape),
            "warps": own.warps,
            "lanes": own.lanes,
            "registers": own.registers,
            "owners": owners,
        }

    def layout_list(self, r: LayoutListResult):
        return {
            "kernel": r.kernel,
            "language": r.language,
            "target": r.target,
            "layouts": [asdict(u) for u in r.layouts],
            "accesses": [asdict(a) for a in r.accesses],
        }

    def shared_layout(self, r: SharedLayoutResult):
        banks = {",".join(map(str, e)): b for e, b in sorted(r.banks.items())} if r.banks is not None else None
        return {
            "layout": r.layout,
            "gluon": r.gluon,
            "shape": list(r.shape),
            "bits": r.bits,
            "banks": banks,
            "banks_from": r.banks_from,
            "accesses": [asdict(a) for a in r.accesses],
            "origin": r.origin,
        }

    def grid(self, r: GridResult):
        body: dict[str, Any] = {
            "kernel": r.variant.kernel,
            "grid": list(r.size),
            "programs": [asdict(p) for p in r.programs],
        }
        if r.wave:
            body["wave"] = {"programs": r.wave, "distinct_input_tiles": r.wave_loads}
        return body
