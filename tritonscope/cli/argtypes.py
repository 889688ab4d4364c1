"""The command line's value forms, each parsed once into typed values (core/values.py):
FILE sources, targets, NAME=VALUE, NAME=V1,V2, A-B line ranges, X,Y,Z grids, AxB shapes, stage lists,
timeouts, autotune rules."""

from __future__ import annotations

import math
import re
from typing import Any

from ..core import source as sources
from ..core import targets
from ..core.autotune_rule import FORMS as AUTOTUNE_FORMS
from ..core.autotune_rule import AutotuneRule
from ..core.errors import UsageError
from ..core.model import Budget
from ..core.stages import Stage
from ..core.values import SCALAR_TYPES, TypeName, canonical_type, parse, parse_number


def source(given: str) -> sources.Source:
    """A FILE argument: a kernel file, a sample, a module reference, a cached kernel or a capture
    folder (core/source.py), what the disk says settled here, where the request is made."""
    return sources.parse(given)


def cached_kernel(given: str) -> sources.CachedKernel:
    """A DIR/:KERNEL argument (reproduce): a kernel of a capture or a Triton cache."""
    return sources.cached_kernel(given)


def target_name(text: str) -> str:
    """A --target of a request: a target's name or `auto`, which prepare resolves where it compiles."""
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
    return targets.resolve(text)[0]


def target_list(text: str, flag: str = "--targets") -> tuple[str, ...]:
    """A comma-separated list of targets (sm86,sm89,gfx942) as their names, each once, in the order given."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if not names:
        raise UsageError(f"{flag} is empty. Targets: {', '.join(targets.TARGETS)}")
    found = [targets.parse_name(name) for name in names]
    if "auto" in found:
        raise UsageError(f"{flag}: name the targets (auto is one machine's GPU). Targets: {', '.join(targets.TARGETS)}")
    return tuple(dict.fromkeys(found))


def assignments(items: list[str] | None, flag: str) -> tuple[tuple[str, Any], ...]:
    """NAME=VALUE items as (name, typed value) pairs; a later value for a name wins."""
    pairs: dict[str, Any] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"{flag} expects NAME=VALUE, got '{item}'")
        pairs[name.strip()] = parse(value)
    return tuple(pairs.items())


def axes(items: list[str] | None) -> list[tuple[str, tuple[Any, ...]]]:
    """--vary NAME=V1,V2,... items as (name, typed values); a quoted value may hold commas."""
    found: list[tuple[str, tuple[Any, ...]]] = []
    for item in items or ():
        name, sep, values = item.partition("=")
        typed = str.strip if name.strip() == "triton" else parse  # releases are names: 3.10 is not 3.1
        parts = tuple(typed(v) for v in _split_values(values) if v.strip())
        if not sep or not name.strip() or not parts:
            raise UsageError(f"--vary expects NAME=V1,V2,..., got '{item}'")
        if any(n == name.strip() for n, _ in found):
            raise UsageError(f"--vary names {name.strip()} twice")
        found.append((name.strip(), parts))
    return found


def _split_values(text: str) -> list[str]:
    """V1,V2,... split at the commas outside quotes and brackets (`tensordesc<bf16[64, 64]>`)."""
    values, current, quote, depth = [], [], None, 0
    for char in text:
        if quote is None and depth == 0 and char == ",":
            values.append("".join(current))
            current = []
            continue
        if char in "\"'" and quote in (None, char):
            quote = None if quote else char
        elif quote is None and char in "[<(":
            depth += 1
        elif quote is None and char in "]>)" and depth:
            depth -= 1
        current.append(char)
    return [*values, "".join(current)]


def line_range(line: int | None, lines: str | None) -> tuple[int, int] | None:
    """--line N or --lines A-B as (first, last); None when neither is given."""
    if line is not None and lines is not None:
        raise UsageError("give --line or --lines, not both")
    if line is not None:
        return line, line
    if lines is None:
        return None
    first, sep, last = lines.partition("-")
    try:
        low, high = int(first), int(last if sep else first)
    except ValueError:
        raise UsageError(f"--lines expects A-B, e.g. --lines 40-44; got '{lines}'") from None
    return min(low, high), max(low, high)


def stages(text: str | None, flag: str = "--stage") -> tuple[Stage, ...] | None:
    """A comma-separated stage list, in pipeline order; None when not given."""
    if text is None:
        return None
    names = [word.strip().lower() for word in text.split(",") if word.strip()]
    known = ", ".join(s.value for s in Stage)
    if not names:
        raise UsageError(f"{flag} is empty. Stages: {known}")
    for name in names:
        if name not in {s.value for s in Stage}:
            raise UsageError(f"unknown stage '{name}'. Stages: {known}")
    return tuple(s for s in Stage if s.value in names)


def sizes(text: str, flag: str, separator: str) -> tuple[int, ...]:
    """X,Y,Z (a grid) or AxB (a shape) as positive integers."""
    try:
        values = tuple(int(v) for v in text.lower().split(separator))
    except ValueError:
        example = "X[,Y[,Z]]" if separator == "," else "64x64"
        raise UsageError(f"{flag} expects {example}, got '{text}'") from None
    if not values or min(values) < 1:
        raise UsageError(f"{flag} {text}: every size must be a positive integer")
    return values


def timeout(seconds: float, flag: str = "--timeout") -> float:
    if not math.isfinite(seconds) or seconds <= 0:
        raise UsageError(f"{flag} must be a positive number of seconds, not {seconds}")
    return seconds


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


_BUDGET = re.compile(r"^\s*([A-Za-z_]+)\s*(<=|>=|==|=|<|>)\s*(\d+(?:\.\d+)?)\s*(%|KiB|kib|KB|kb|B)?\s*$")
_BYTES = ("shared", "local_bytes", "conversion_bytes")


def budgets(items: list[str] | None, where: str = "--budget") -> tuple[Budget, ...]:
    """FIGURE<=VALUE, FIGURE>=VALUE, FIGURE=VALUE...: `registers<=128`, `occupancy>=50%`, `shared<=96KiB`."""
    from ..app.check import FIGURES

    found = []
    for item in items or ():
        match = _BUDGET.match(str(item))
        names = ", ".join(FIGURES)
        if not match:
            raise UsageError(f"{where} expects FIGURE<=VALUE (or >=, <, >, =), got '{item}'. Figures: {names}")
        figure, op, number, unit = match.groups()
        if figure not in FIGURES:
            raise UsageError(f"{where} {item}: no figure named '{figure}'. Figures: {names}")
        if unit == "%" and figure != "occupancy" or unit and unit != "%" and figure not in _BYTES:
            raise UsageError(f"{where} {item}: {figure} is not measured in {unit}")
        limit = float(number) * (1024 if unit and unit.lower() in ("kib", "kb") else 1)
        found.append(Budget(figure, "==" if op == "=" else op, limit, str(item).strip()))
    return tuple(found)


def check_dtype(text: str) -> TypeName:
    """The --dtype value: an element type such as fp16, bf16, i32."""
    canonical = canonical_type(text)
    if canonical is None or canonical.is_pointer:
        raise UsageError(f"unknown dtype '{text}'. Known: {', '.join(SCALAR_TYPES)}")
    return canonical


def on_read_value(text: str) -> str:
    """--on-read's value: "stop", or the number a value read is answered with ("zero" is 0)."""
    given = text.strip().lower()
    if given in ("stop", "zero"):
        return "stop" if given == "stop" else "0"
    try:
        number = float(given)
    except ValueError:
        raise UsageError(f"--on-read expects stop, zero or a number such as 1; got '{text}'") from None
    if not math.isfinite(number):
        raise UsageError(f"--on-read expects stop, zero or a finite number; got '{text}'")
    return given


def autotune_rule(text: str) -> AutotuneRule:
    """--autotune's value, checked before the program runs."""
    given = text.strip()
    if given in ("first", "last"):
        return AutotuneRule(given, given=given)  # type: ignore[arg-type]
    if re.fullmatch(r"\d+", given):
        return AutotuneRule("index", index=int(given), given=given)
    settings = []
    for item in given.split(","):
        name, _, value = item.replace(":", "=", 1).partition("=")
        if not name.strip() or not value.strip() or not re.fullmatch(r"\w+", name.strip()):
            raise UsageError(f"--autotune expects {AUTOTUNE_FORMS}; got '{text}'")
        settings.append((name.strip(), value.strip()))
    if len({name for name, _ in settings}) < len(settings):
        raise UsageError(f"--autotune names a setting twice: '{text}'")
    return AutotuneRule("config", settings=tuple(settings), given=given)
