"""The command line's value forms, each parsed once into typed values (core/values.py):
FILE sources, targets, NAME=VALUE, NAME=V1,V2, A-B line ranges, X,Y,Z grids, AxB shapes, stage lists,
timeouts, autotune rules, budgets. The forms every front end shares are parsed in core/forms.py
(and budgets, which name check's figures, in app/check.py); the command line's own are here."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..core import source as sources
from ..core import targets
from ..core.errors import UsageError
from ..core.forms import (  # noqa: F401 - the command line's names for the shared forms
    assignments,
    autotune_rule,
    axes,
    check_dtype,
    command_target,
    line_range,
    sizes,
    stages,
    timeout,
)
from ..core.model import Budget
from ..core.values import parse_number


def source(given: str) -> sources.Source:
    """A FILE argument: a kernel file, a sample, a module reference, a cached kernel or a capture
    folder (core/source.py), what the disk says settled here, where the request is made."""
    return sources.parse(given)


def cached_kernel(given: str) -> sources.CachedKernel:
    """A DIR/:KERNEL argument (reproduce): a kernel of a capture or a Triton cache."""
    return sources.cached_kernel(given)


def target_name(text: str) -> str:
    """A --target of a request: a target's name or `auto`, resolved once the request is made (its notice with it)."""
    return targets.parse_name(text)


def cluster_address(text: str, named: str) -> str:
    """A Ray cluster's address as --cluster takes it: auto, HOST:PORT or ray://HOST:PORT; `named`
    says where it came from (`--cluster X`, or the variable TRITONSCOPE_CLUSTER) in the message."""
    host, _, port = text.strip().removeprefix("ray://").rpartition(":")
    if text.strip() == "auto" or (host and port.isdigit() and 0 < int(port) < 65536):
        return text.strip()
    raise UsageError(
        f"{named}: not a Ray cluster's address",
        hint="give auto, HOST:PORT or ray://HOST:PORT (ray start --head prints it)",
    )


def target(text: str) -> targets.Target:
    """A --target of a command that compiles no request (list, trace): the target itself."""
    return command_target(text)


def target_list(text: str, flag: str = "--targets") -> tuple[str, ...]:
    """A comma-separated list of targets (sm86,sm89,gfx942) as their names, each once, in the order given."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if not names:
        raise UsageError(f"{flag} is empty. Targets: {', '.join(targets.TARGETS)}")
    found = [targets.parse_name(name, flag) for name in names]
    if "auto" in found:
        raise UsageError(f"{flag}: name the targets (auto is one machine's GPU). Targets: {', '.join(targets.TARGETS)}")
    return tuple(dict.fromkeys(found))


def size_list(items: list[str] | None) -> list[int]:
    """--size values: integers, B**E (2**20), or A..B: every power of two from A to B (2**12..2**27)."""
    values = []
    for item in items or ():
        first, dots, last = item.partition("..")
        low, high = _size(first, item), _size(last, item) if dots else None
        if high is None:
            values.append(low)
        elif low > high or low & (low - 1) or high & (high - 1):
            raise UsageError(f"--size {item}: a range A..B goes from a power of two up to one (2**12..2**27)")
        else:
            values += [1 << e for e in range(low.bit_length() - 1, high.bit_length())]
    return list(dict.fromkeys(values))


def _size(text: str, item: str) -> int:
    value = parse_number(text.strip())
    if not isinstance(value, int) or value < 1:
        raise UsageError(f"--size expects a positive integer (4096, 2**20) or a range (2**12..2**27), got '{item}'")
    return value


def launch_keywords(items: list[str] | None, flag: str) -> list[str]:
    """NAME=VALUE items for one launch, checked and kept as text (a child process types them again)."""
    for name, values in axes(items):
        if len(values) > 1:
            raise UsageError(f"{flag} {name}: one launch takes one value, got {len(values)}")
    assignments(items, flag)
    return [f"{n.strip()}={v.strip()}" for n, _, v in (item.partition("=") for item in items or ())]


def budgets(items: Sequence[str | Budget] | None, where: str = "--budget") -> tuple[Budget, ...]:
    """FIGURE<=VALUE, FIGURE>=VALUE, FIGURE=VALUE...: `registers<=128`, `occupancy>=50%`, `shared<=96KiB`;
    a Budget made whole (--no-compiles-after MARK) as it is."""
    from ..app.check import budgets as parsed

    return parsed(items, where)


def on_read_value(text: str, flag: str = "--values") -> str:
    """--values' (and --on-read's) value: "host", "stop", or the number a value read is answered with
    ("zero" is 0)."""
    given = text.strip().lower()
    if given in ("host", "stop", "zero"):
        return "0" if given == "zero" else given
    try:
        number = float(given)
    except ValueError:
        raise UsageError(f"{flag} expects host, stop, zero or a number such as 1; got '{text}'") from None
    if not math.isfinite(number):
        raise UsageError(f"{flag} expects host, stop, zero or a finite number; got '{text}'")
    return given


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}
_UNITS.update({"t": 1 << 40, "tib": 1 << 40, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4})


def memory_size(text: str, flag: str = "--host-memory") -> int:
    """A size in bytes: 8GiB, 512MiB, 8G, 1.5GB, 1000000."""
    import re

    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", text)
    unit = found.group(2).lower() if found else ""
    if not found or unit not in _UNITS or float(found.group(1)) <= 0:
        raise UsageError(f"{flag} expects a size such as 8GiB, 512MiB or 16G; got '{text}'")
    return int(float(found.group(1)) * _UNITS[unit])


_RANGE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*(?:\.\.\s*(-?\d+))?\s*$")  # a sign: said below


def size_ranges(text: str) -> dict[str, tuple[int, int]]:
    """`batch=1..256,seq=1..8192` (or `seq=128`, one value): each declared size's inclusive range."""
    found: dict[str, tuple[int, int]] = {}
    for item in text.split(","):
        match = _RANGE.match(item)
        if not match:
            raise UsageError(
                f"--shapes expects NAME=LOW..HIGH, comma-separated (batch=1..256,seq=1..8192), got '{item}'"
            )
        name, low = match.group(1), int(match.group(2))
        high = int(match.group(3)) if match.group(3) is not None else low
        if high < low or low < 0:
            raise UsageError(f"--shapes {item}: the range must run from a size of 0 or more up to one no smaller")
        if name in found:
            raise UsageError(f"--shapes names {name} twice")
        if high >= 2**63:
            raise UsageError(f"--shapes {item}: a size is a 64-bit integer at most (under 2**63)")
        found[name] = (low, high)
    return found
