"""The knob that sets a kernel's pipeline depth, in the advice's words and its what-if: the launch's
`num_stages`, or, where the kernel's loop sets its own from a constexpr
(`tl.range(..., num_stages=NUM_STAGES)`, Triton's block-scaled matmul tutorial), that constexpr: the
option does not reach such a loop, and advice naming it compiles to the same code."""

from __future__ import annotations

import re

from ...core.stages import Language
from .kernel import Kernel
from .model import WhatIf

_LOOP_STAGES = re.compile(r"tl\.range\([^\n]*?\bnum_stages\s*=\s*([A-Za-z_]\w*)")


def stages(k: Kernel) -> int:
    """The copies of each pipelined tile: the loop's constexpr where it sets its own, else num_stages;
    Gluon pipelines nothing (its buffers are the kernel's own allocations, whatever num_stages says)."""
    if k.c.kernel.language is Language.GLUON:
        return 1
    name = _constexpr(k)
    return int(k.c.variant.constexprs[name]) if name else k.c.options.get("num_stages") or 1


def fewer(k: Kernel, n: int) -> tuple[str, WhatIf]:
    """(`num_stages=2` or `NUM_STAGES=2`, the what-if that compiles it)."""
    name = _constexpr(k)
    if name:
        return f"{name}={n} (the loop's own num_stages)", WhatIf("constexpr", name, n)
    return f"num_stages={n}", WhatIf("option", "num_stages", n)


def _constexpr(k: Kernel) -> str | None:
    """The constexpr a loop of the kernel takes its num_stages from, where it is an integer."""
    found = _LOOP_STAGES.search(k.c.kernel.source)
    if found is None:
        return None
    value = k.c.variant.constexprs.get(found.group(1))
    return found.group(1) if isinstance(value, int) and not isinstance(value, bool) else None
