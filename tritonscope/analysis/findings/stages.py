"""The knob that sets a kernel's pipeline depth, in the advice's words and its what-if: the launch's
`num_stages`, or, where the kernel's loop sets its own (`tl.range(..., num_stages=NUM_STAGES)`,
Triton's block-scaled matmul tutorial; `tl.range(..., num_stages=3)`), the loop's: the option does
not reach such a loop, and advice naming it compiles to the same code. A constexpr is compiled as
asked; a number written in the loop is the file's to edit, and no what-if compiles that."""

from __future__ import annotations

import re

from ...core.stages import Language, Stage
from .kernel import Kernel
from .model import WhatIf

_PIPELINED = ("ttg.async_copy_global_to_local", "ttg.async_commit_group", "async_tma_copy", "ttg.local_store")
_LOOP_STAGES = re.compile(r"tl\.range\([^\n]*?\bnum_stages\s*=\s*([A-Za-z_]\w*|\d+)")


def stages(k: Kernel) -> int:
    """The copies of each pipelined tile: the loop's constexpr or number where it sets its own, else
    num_stages; Gluon pipelines nothing (its buffers are the kernel's own allocations, whatever
    num_stages says)."""
    if k.c.kernel.language is Language.GLUON:
        return 1
    name, written = _loop_setting(k)
    if name:
        return int(k.c.variant.constexprs[name])
    return written[0] if written else k.c.options.get("num_stages") or 1


def reaches(k: Kernel) -> bool:
    """Whether num_stages reaches the code: the pipeliner's products are in the TTGIR (NVIDIA's async
    copies and TMA loads, AMD's shared buffers stored in a loop). A kernel with none (a transpose, whose
    shared memory is its layout conversion's scratch) was told num_stages=2 "needs less shared memory",
    and its own what-if compiled the same code (h26a)."""
    text = k.c.stages.get(Stage.TTGIR, "")
    return any(marker in text for marker in _PIPELINED)


def fewer(k: Kernel, n: int) -> tuple[str, tuple[WhatIf, ...]]:
    """(`num_stages=2` or `NUM_STAGES=2`, the what-ifs that compile it: none for a number written in
    the loop, the file's own edit)."""
    name, written = _loop_setting(k)
    if name:
        return f"{name}={n} (the loop's own num_stages)", (WhatIf("constexpr", name, n),)
    if written:
        return f"num_stages={n} in the loop's own tl.range (line {written[1]}; the option does not reach it)", ()
    return f"num_stages={n}", (WhatIf("option", "num_stages", n),)


def _loop_setting(k: Kernel) -> tuple[str | None, tuple[int, int] | None]:
    """Where a loop of the kernel sets its own num_stages: (the integer constexpr it names, None), or
    (None, (the number written, its kernel-file line)); (None, None) where none does."""
    source = k.c.kernel.source
    found = _LOOP_STAGES.search(source)
    if found is None:
        return None, None
    if found.group(1).isdigit():
        return None, (int(found.group(1)), k.c.kernel.first_line + source.count("\n", 0, found.start()))
    value = k.c.variant.constexprs.get(found.group(1))
    return (found.group(1) if isinstance(value, int) and not isinstance(value, bool) else None), None
