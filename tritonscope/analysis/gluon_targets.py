"""Which of a Gluon kernel's architecture-specific operations a target lacks, read from its file.

Gluon exposes each architecture's instructions directly (Hopper's warpgroup MMA, Blackwell's
tcgen05 and tensor memory). Compiled for a target without them, Triton's lowering asserts and the
process aborts with no Python error to catch, so such a compile runs in a child process instead
(app/walk/prepare.py), and this module names the likely reason for the message."""

from __future__ import annotations

import re

# operation (as written in the source) -> (the architectures that have it, who they are)
_NEEDS: dict[str, tuple[frozenset[int], str]] = {
    "warpgroup_mma": (frozenset({90}), "Hopper (sm90)"),
    "tcgen05_": (frozenset({100, 103, 110}), "datacenter Blackwell (sm100, sm103, sm110)"),
    "allocate_tensor_memory": (frozenset({100, 103, 110}), "datacenter Blackwell (sm100, sm103, sm110)"),
}


def missing_operations(source: str, backend: str, arch: int | str) -> list[str]:
    """The operations the source uses that the target has not: 'warpgroup_mma (Hopper (sm90) only)'."""
    found = []
    for name, (archs, who) in _NEEDS.items():
        if re.search(rf"\b{re.escape(name)}", source) and (backend != "cuda" or int(arch) not in archs):
            found.append(f"{name.rstrip('_')} ({who} only)")
    return found


def layouts_for_other_warps(source: str, warp_size: int) -> list[str]:
    """The BlockedLayouts written in the source whose threads per warp (the product of their second
    argument, `threads_per_warp`) are not the target's warp size: 'line 10: [4, 8] is 32 threads'.
    A Gluon layout is written for one warp size; AMD's CDNA runs 64 lanes, NVIDIA and RDNA 32.
    Only literal lists are read: a layout computed at run time is not judged."""
    import ast
    import math

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "BlockedLayout"
        ):
            continue
        given = {k.arg: k.value for k in node.keywords}
        threads = node.args[1] if len(node.args) > 1 else given.get("threads_per_warp")
        if isinstance(threads, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int) for e in threads.elts
        ):
            counts = [e.value for e in threads.elts]  # type: ignore[attr-defined]
            if math.prod(counts) != warp_size:
                found.append(f"line {node.lineno}: threads_per_warp {counts} is {math.prod(counts)} threads")
    return found
