"""The process's exit status, one name per meaning (as httpie's status.py has)."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    SUCCESS = 0
    FAILED = 1  # the kernel failed to compile, a budget broke, a result was wrong
    USAGE = 2  # bad usage, input or environment
    BUG = 3  # a bug in tritonscope
    INTERRUPTED = 130  # Ctrl-C
