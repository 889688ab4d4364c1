"""The host memory the simulated GPU's values may take (`--host-memory`, default half of this
machine's memory): computing values on the host holds the program's device tensors there, and a
model too large for that stops at its first read with one line, rather than swapping the machine
to a halt."""

from __future__ import annotations

import contextlib
import os

from .shared import contract

DEFAULT_SHARE = 0.5  # of the machine's physical memory
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class OverBudget(Exception):
    """Computing the value would take more host memory than the budget."""


def limit() -> int:
    """The budget in bytes: --host-memory, else half of the machine's physical memory."""
    given = os.environ.get(contract.ENV_HOST_MEMORY)
    if given:
        return int(given)
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * _PAGE * DEFAULT_SHARE)
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def resident() -> int:
    """This process's resident memory in bytes."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def peak() -> int:
    """The most resident memory this process held, in bytes."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def gib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB"


def check(needed: int = 0) -> None:
    """OverBudget where this process holds, or would hold with NEEDED bytes more, more than the budget."""
    budget, held = limit(), resident()
    if held + needed > budget:
        raise OverBudget(
            f"computing it on the host takes more memory than the budget of {gib(budget)} "
            f"(--host-memory; the traced program holds {gib(held)})"
        )


@contextlib.contextmanager
def watched():
    """A read's computation, checked against the budget before it starts."""
    check()
    yield
