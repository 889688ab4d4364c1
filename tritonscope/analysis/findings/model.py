"""What a finding is: the line, the evidence, the cause, what to try, and the request change that
the suggestion amounts to (`WhatIf`), which `tritonscope explain` compiles to say what it gives."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, NamedTuple

from ...core import inputs


class WhatIf(NamedTuple):
    """One change to the request that a finding's suggestion amounts to; app/explain.py compiles it.

    A typed tuple: it is hashable (what-ifs shared by findings are compiled once) and reads as
    the (what, name, value) it is."""

    what: Literal["option", "arg", "constexpr"]  # option: num_warps, num_stages, maxnreg, specialize
    name: str
    value: Any  # None: drop the option


class Cause(Enum):
    """Why Triton cannot make an access wider: what the advice is chosen by."""

    UNSPECIALIZED = "unspecialized"  # a value the launcher would specialize (1, a multiple of 16), left unhinted
    NOT_MULTIPLE_OF_16 = "not-multiple-of-16"  # a size or stride with no divisibility by 16
    UNALIGNED = "unaligned"  # a pointer not known to be 16-byte aligned
    GIVEN_AS_TYPE = "given-as-type"  # an argument given as a type: nothing is known of its value
    LAYOUT = "layout"  # each thread holds fewer than 128 contiguous bits


@dataclass(frozen=True)
class Finding:
    kind: str  # one of kinds.py's names
    line: int | None  # in the kernel's own file; None when it is the kernel's as a whole
    message: str
    evidence: str
    suggestion: str
    lines: tuple[int, ...] = ()  # every line it concerns (the spilling lines), `line` first
    what_if: tuple[WhatIf, ...] = ()  # the request changes the suggestion amounts to
    verified: str = ""  # what compiling `what_if` gave
    remarks: tuple[str, ...] = ()  # the MLIR remarks of Triton's compiler on its line that it explains
    time_share: float | None = None  # its line's share of the estimated time (analysis/line_time.py)


_INPUT_OF = {"constexpr": "constexprs", "arg": "args"}  # the input a what-if's value is given by


def what_if_flags(what_if: tuple[WhatIf, ...]) -> str:
    """A what-if as the command-line flags that ask for it (core/inputs.py): an option by its flag
    (`--num-warps 8`, `without --maxnreg`), a constexpr or an argument as printed (`-c NAME=VALUE`)."""
    words = []
    for what, name, value in what_if:
        if what == "option" and name == "specialize":
            words.append("with specialization" if value else inputs.named("no_specialize").spelled)
        elif what == "option" and value is None:
            words.append(f"without {inputs.named(name).flag}")
        elif what == "option":
            words.append(f"{inputs.named(name).flag} {value}")
        else:
            words.append(f"{inputs.named(_INPUT_OF[what]).spelled} {name}={value}")
    return " ".join(words)


def kib(n: int) -> str:
    return f"{n / 1024:.4g} KiB" if n >= 1024 else f"{n} B"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
