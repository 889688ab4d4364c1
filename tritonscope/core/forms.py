"""The value forms every front end takes (the command line, the agent server, the explorer), each
parsed once into typed values (core/values.py), and the VariantRequest they make: NAME=VALUE
items, a name's values to vary, line ranges, stage lists, sizes, time limits, dtypes, autotune
rules. The command line gives them as text (cli/argtypes.py); the agent server as JSON, whose
strings take the command line's rules and whose numbers, booleans and null are already typed."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from . import inputs, targets
from . import source as sources
from .autotune_rule import FORMS as AUTOTUNE_FORMS
from .autotune_rule import AutotuneRule
from .errors import UsageError
from .model import FromRun, VariantRequest
from .stages import Stage
from .values import SCALAR_TYPES, TypeName, canonical_type, parse

Typed = inputs.Value  # a value as JSON gives it


def typed(value: Typed) -> Any:
    """A JSON value as the command line would type it: a string by the command line's rules ("fp16" is
    the dtype, "1024" the int, '"1"' the string), a number, boolean or null as it is."""
    return parse(value) if isinstance(value, str) else value


def typed_pairs(values: Mapping[str, Typed] | None, flag: str) -> tuple[tuple[str, Any], ...]:
    """A JSON object of names to values (constexprs, arguments) as typed (name, value) pairs."""
    pairs = []
    for name, value in (values or {}).items():
        if not str(name).strip():
            raise UsageError(f"{flag}: a name is empty")
        if isinstance(value, (list, dict)):
            raise UsageError(f"{flag} {name}: one value (a number, true/false, null or a string), not {value!r}")
        pairs.append((str(name).strip(), typed(value)))
    return tuple(pairs)


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
    found: dict[str, list[str]] = {}
    for item in items or ():
        name, sep, values = item.partition("=")
        parts = _split_values(values)
        if not sep or not name.strip() or not any(v.strip() for v in parts):
            raise UsageError(f"--vary expects NAME=V1,V2,..., got '{item}'")
        if not all(v.strip() for v in parts):  # `128,,256`: a value left out by mistake, not dropped
            raise UsageError(f"--vary {item}: a value is empty (two commas, or one at an end)")
        if name.strip() in found:
            raise UsageError(f"--vary names {name.strip()} twice")
        found[name.strip()] = parts
    return typed_axes(found)


def typed_axes(given: Mapping[str, Iterable[Typed]] | None) -> list[tuple[str, tuple[Any, ...]]]:
    """Each name's values to vary, typed: a release's as names (3.10 is not 3.1), others as `typed`."""
    found = []
    for name, values in (given or {}).items():
        name = str(name).strip()
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise UsageError(f"vary {name}: give a list of values, e.g. [4, 8]")
        kept = [v for v in values if not (isinstance(v, str) and not v.strip())]
        as_text = name == "triton"
        parts = tuple(str(v).strip() if as_text else typed(v) for v in kept)
        if not as_text:  # a value given twice (M=16,16) is one variant; a release against itself is a check
            parts = tuple({(type(v).__name__, repr(v)): v for v in parts}.values())
        if not name or not parts:
            raise UsageError(f"vary expects a name and its values, got {name or '(no name)'}={list(values)}")
        found.append((name, parts))
    return found


def _split_values(text: str) -> list[str]:
    """V1,V2,... split at the commas outside quotes and brackets (`tensordesc<bf16[64, 64]>`)."""
    values: list[str] = []
    current: list[str] = []
    quote, depth = None, 0
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


def stages(text: str | Iterable[str] | None, flag: str = "--stage") -> tuple[Stage, ...] | None:
    """A stage list (comma-separated text, or names), in pipeline order; None when not given."""
    if text is None:
        return None
    words = text.split(",") if isinstance(text, str) else list(text)
    names = [word.strip().lower() for word in words if word.strip()]
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


LONGEST = 7 * 24 * 3600.0  # seconds: a time limit past a week is no limit (and past 2**31 overflows timers)


def timeout(seconds: float, flag: str = "--timeout") -> float:
    """A time limit: positive, and at most LONGEST (a larger one, `inf` included, is LONGEST)."""
    if math.isnan(seconds) or seconds <= 0:
        raise UsageError(f"{flag} must be a positive number of seconds, not {seconds}")
    return min(seconds, LONGEST)


def command_target(text: str) -> targets.Target:
    """The target of a command that compiles no request (list, trace): resolved where it is given."""
    return targets.resolve_target(text)[0]


def check_dtype(text: str) -> TypeName:
    """The --dtype value: an element type such as fp16, bf16, i32."""
    canonical = canonical_type(text)
    if canonical is None or canonical.is_pointer:
        raise UsageError(f"unknown dtype '{text}'. Known: {', '.join(SCALAR_TYPES)}")
    return canonical


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
        bad_value = not re.fullmatch(r"[\w.+-]+", value.strip())  # `bogus===`: a value of "=="
        if not name.strip() or bad_value or not re.fullmatch(r"\w+", name.strip()):
            raise UsageError(f"--autotune expects {AUTOTUNE_FORMS}; got '{text}'")
        settings.append((name.strip(), value.strip()))
    if len({name for name, _ in settings}) < len(settings):
        raise UsageError(f"--autotune names a setting twice: '{text}'")
    return AutotuneRule("config", settings=tuple(settings), given=given)


def variant_request(
    source: sources.Source,
    kernel: str | None = None,
    *,
    from_run: FromRun | None = None,
    resolve_target: bool = True,
    **values: Any,
) -> VariantRequest:
    """The request of a parsed source and typed values (constexprs and args as (name, value) pairs,
    dtype, target, the options, config, specialize, triton): a module reference `pkg.module:kernel`
    becomes its module's file and the kernel. Its `--target auto` is resolved here, once, with its
    notice (`VariantRequest.resolved`), unless the command reads `auto` itself (`fit`: every target)."""
    file, kernel = file_and_kernel(source, kernel)
    request = VariantRequest(file=file, source=source, kernel=kernel, from_run=from_run, **values)
    return request.resolved() if resolve_target else request


def request_of(values: Mapping[str, Any], front: str = inputs.API, resolve_target: bool = True) -> VariantRequest:
    """The request of the variant inputs given as Python values by a front end's names (core/inputs.py):
    the agent server's JSON, the Python API's keywords. A name the front end does not take is refused
    with those it takes; strings take the command line's rules (`typed`); the kernel's name, the
    compile options and the config go to the request as they are."""
    given = inputs.by_name(values, front)
    file = given.pop("file")
    source = sources.parse(file) if isinstance(file, str) else file
    typed: dict[str, Any] = {
        "constexprs": typed_pairs(given.pop("constexprs", None), "constexprs"),
        "args": typed_pairs(given.pop("args", None), "args"),
        "dtype": check_dtype(dtype) if (dtype := given.pop("dtype", None)) else None,
        "target": targets.parse_name(given.pop("target", None) or "auto"),
        "specialize": not given.pop("no_specialize", False),
        "triton": release.strip() if (release := given.pop("triton", None)) else None,
    }
    return variant_request(source, **given, **typed, resolve_target=resolve_target)


def file_and_kernel(source: sources.Source, kernel: str | None) -> tuple[str, str | None]:
    """A module reference `pkg.module:kernel` as the module's file and the kernel; else as given."""
    if not isinstance(source, sources.ModuleReference):
        return source.given, kernel
    if source.kernel and kernel and source.kernel != kernel:
        raise UsageError(f"{source} names the kernel {source.kernel}, and -k names {kernel}: give one")
    return source.path, kernel or source.kernel
