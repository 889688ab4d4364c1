"""Why Triton knows no divisibility (or alignment) of an argument an access is computed from, in the
user's terms: what is known of its value (given, given as a type, assumed because it was not given,
recorded at a capture's launch) and what held the launcher's hint back (--no-specialize, the kernel's
own do_not_specialize or do_not_specialize_on_alignment). Each reason comes with every request change
that would give the hint, so that the what-if explain compiles is the advice followed whole."""

from __future__ import annotations

import re
from typing import NamedTuple

from .kernel import Kernel
from .model import Cause, WhatIf

DNS, DNS_ALIGN = "do_not_specialize", "do_not_specialize_on_alignment"
# A value of each integer type divisible by 16 that keeps the type: a what-if for a value not given.
_DIVISIBLE = {"i64": 2**31 + 16, "u64": 2**63}
_HELD_BY = {DNS: Cause.DO_NOT_SPECIALIZE, DNS_ALIGN: Cause.DO_NOT_SPECIALIZE_ON_ALIGNMENT}


class Unknown(NamedTuple):
    """One argument's part in a narrow access: its name, the causes (what the advice is chosen by),
    the reason as a clause, and the request changes that would give it its hint."""

    name: str
    causes: tuple[Cause, ...]
    reason: str
    what_if: tuple[WhatIf, ...]


def hintable(k: Kernel, name: str) -> bool:
    """Whether the launcher could hint the argument (a pointer, an integer) and did not."""
    v = k.c.variant
    type_ = v.signature.get(name) or "constexpr"
    return "D" not in v.hints.get(name, "") and (type_.startswith("*") or type_[:1] in ("i", "u") and type_ != "u1")


def unknown(k: Kernel, name: str) -> Unknown:
    """Why `name` has no hint, and what would give it one."""
    if k.c.variant.signature[name].startswith("*"):
        return _pointer(k, name)
    return _integer(k, name)


def decorator_line(k: Kernel, list_name: str) -> str:
    """` at line N`: where the kernel's decorator names `list_name`, when its source shows it."""
    spec = k.c.kernel
    for number, text in enumerate(spec.source.splitlines(), start=spec.first_line):
        if number >= spec.line:
            break
        if re.search(rf"\b{list_name}\s*=", text):
            return f" at line {number}"
    return ""


def _held(k: Kernel, name: str, pointer: bool) -> str | None:
    """The decorator list that keeps the hint from the argument (a pointer's is only the alignment one)."""
    spec = k.c.kernel
    if not pointer and name in spec.do_not_specialize:
        return DNS
    return DNS_ALIGN if name in spec.do_not_specialize_on_alignment else None


def _pointer(k: Kernel, name: str) -> Unknown:
    v = k.c.variant
    causes, what_if, blocked = _blockers(k, name, pointer=True)
    if blocked:
        reason = f"{name} is {blocked}, so the launcher does not mark it 16-byte aligned"
        return Unknown(name, tuple(causes), reason, tuple(what_if))
    where = " at its recorded launch" if v.cached and _recorded(k, name) is not None else ""
    return Unknown(name, (Cause.UNALIGNED,), f"{name} was not known to be 16-byte aligned{where}", ())


def _blockers(k: Kernel, name: str, pointer: bool) -> tuple[list[Cause], list[WhatIf], str]:
    """What keeps the hint from the argument whatever its value (--no-specialize, the kernel's decorator
    list; where both do, both must go): the causes, the what-ifs that lift them, and how it is said
    (`under --no-specialize and in the kernel's do_not_specialize at line 5`)."""
    v = k.c.variant
    held = _held(k, name, pointer)
    causes: list[Cause] = []
    what_if: list[WhatIf] = []
    said: list[str] = []
    if not v.specialize:
        causes.append(Cause.UNSPECIALIZED)
        what_if.append(WhatIf("option", "specialize", True))
        said.append("under --no-specialize")
    if held:
        causes.append(_HELD_BY[held])
        what_if += [] if v.cached else [WhatIf("decorator", held, name)]
        said.append(f"in the kernel's {held}{decorator_line(k, held)}")
    return causes, what_if, " and ".join(said)


def _integer(k: Kernel, name: str) -> Unknown:
    v = k.c.variant
    value, known = _value(k, name)
    causes, what_if, blocked = _blockers(k, name, pointer=False)
    if value is None or value % 16 and value != 1:
        causes.append(Cause.NOT_MULTIPLE_OF_16 if value is not None or v.cached else _unknown_cause(k, name))
        rounded = _DIVISIBLE.get(v.signature[name], 16) if value is None else -(-value // 16) * 16
        what_if += [] if v.cached else [WhatIf("arg", name, rounded)]
    if not causes:  # a multiple of 16 a capture compiled with no hint and no decorator list to say why
        causes.append(Cause.UNSPECIALIZED)
    return Unknown(name, tuple(causes), _integer_reason(name, value, known, blocked), tuple(what_if))


def _integer_reason(name: str, value: int | None, known: str, blocked: str) -> str:
    """The clause: what is known of the value, and what kept the hint from it (`blocked`: `under
    --no-specialize`, `in the kernel's do_not_specialize at line 5`)."""
    if blocked and (value is None or value % 16 and value != 1):
        either = f"{known} is not a multiple of 16 either" if value is not None else known
        return f"{name} is {blocked}, so the launcher gives it no hint whatever its value, and {either}"
    said = f" {blocked}" if blocked and blocked.startswith("under") else f": {name} is {blocked}"
    if blocked and value == 1:
        return f"{known} is not specialized to the constant 1{said}"
    if blocked:
        return f"{known} is a multiple of 16 but has no hint{said}"
    if value is None:
        return f"{known}, so nothing is known of its value"
    if value % 16:
        return f"{known} is not a multiple of 16: no divisibility hint"
    return f"{known} is a multiple of 16, yet it was compiled with no hint"


def _unknown_cause(k: Kernel, name: str) -> Cause:
    return Cause.ASSUMED if name in k.c.variant.assumed else Cause.GIVEN_AS_TYPE


def value_of(k: Kernel, name: str) -> int | None:
    """An integer argument's value where it is known: given, or recorded at a capture's launch."""
    return _value(k, name)[0]


def _value(k: Kernel, name: str) -> tuple[int | None, str]:
    """(the integer's value where it is known, what the user is told of it: `n=4100`, `n=1000 at its
    recorded launch`, `n is given as the type i32`, `n was not given: tritonscope assumed an i32`)."""
    v = k.c.variant
    if v.cached:
        recorded = _recorded(k, name)
        if not isinstance(recorded, int) or isinstance(recorded, bool):
            return None, f"{name} was compiled with no hint, and no launch of it was recorded"
        launches = len(k.c.launches)
        where = "its recorded launch" if launches == 1 else f"the first of its {launches} recorded launches"
        return recorded, f"{name}={recorded} at {where}"
    value = v.arguments.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value, f"{name}={value}"
    if name in v.assumed:
        return None, f"{name} was not given: tritonscope assumed an {v.signature[name]}"
    return None, f"{name} is given as the type {value}"


def _recorded(k: Kernel, name: str) -> object | None:
    """The argument as the first recorded launch passed it: an integer's value, a tensor's record; None
    when no launch was recorded (a Triton cache, not a capture)."""
    if not k.c.launches:
        return None
    launch = k.c.launches[0]
    names, args = launch.get("params") or [], launch.get("args") or []
    if name not in names or len(names) != len(args):
        return None
    arg = args[names.index(name)]
    return arg.get("value") if isinstance(arg, dict) and arg.get("kind") == "int" else arg
