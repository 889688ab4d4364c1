"""Which of a Gluon kernel's architecture-specific operations a target lacks, read from its file.

Gluon exposes each architecture's instructions directly (Hopper's warpgroup MMA, Blackwell's
tcgen05 and tensor memory). Compiled for a target without them, Triton's lowering asserts and the
process aborts with no Python error to catch, so such a compile runs in a child process instead
(app/prepare.py), and this module names the likely reason for the message."""

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
