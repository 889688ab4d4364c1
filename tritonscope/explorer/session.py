"""What the explorer holds: the variant on screen and the one before it, the compiles it has seen
(kept in memory, so a variant seen before comes back at once), the last compile's failure, and the
Python line selected. Plain state, no widgets: the app draws it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.model import OPTION_NAMES, KernelSpec, ParamKind, VariantRequest
from ..core.source import local_file
from ..core.values import TypeName, format_value
from ..results.explore import CompileFailure, ExploreResult

Key = tuple[VariantRequest, str]  # a request and the digest of its kernel file when it was asked for


def file_digest(path: str | None, helpers: tuple[str, ...] = ()) -> str:
    """The kernel file's content, and its helper files' (those it imports), as a short digest: a
    saved change makes every variant new."""
    if not path:
        return ""
    digest = hashlib.sha1()
    for file in (path, *helpers):
        try:
            digest.update(Path(file).read_bytes())
        except OSError:
            digest.update(b"\0gone")
    return digest.hexdigest()


@dataclass
class Session:
    request: VariantRequest  # the variant asked for last (on screen, or compiling)
    shown: ExploreResult | None = None  # what the panes show
    previous: ExploreResult | None = None  # the variant shown before it: the diff's other side
    failure: CompileFailure | None = None  # the last compile failed: the panes show the last good one, stale
    line: int | None = None  # the Python line selected (a line of the kernel's file)
    how: str = ""  # how the variant on screen came: "compiled in 0.4 s", "from memory"
    memory: dict[Key, ExploreResult] = field(default_factory=dict)
    helpers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a kernel file's, as its last compile read
    _changes: dict[tuple[int, int], Any] = field(default_factory=dict)

    @property
    def kernel_file(self) -> str | None:
        return self.shown.compilation.kernel.file if self.shown is not None else None

    def key(self, request: VariantRequest) -> Key:
        file = local_file(request.source)
        if file is None:
            return (request, "")
        return (request, file_digest(str(file), self.helpers.get(str(file), ())))

    def key_of(self, result: ExploreResult) -> Key:
        """The key `result` is kept under: its request and its kernel file as it was compiled (after a
        save, the variant before it has the same request and another file)."""
        return next((key for key, kept in self.memory.items() if kept is result), self.key(result.request))

    def remembered(self, request: VariantRequest) -> ExploreResult | None:
        return self.memory.get(self.key(request))

    def arrived(self, key: Key, result: ExploreResult) -> None:
        """A compile shown: kept in memory, and the one it replaces kept as the diff's other side."""
        self.memory[key] = result
        self.show(result)

    def show(self, result: ExploreResult) -> None:
        """`result` on screen; the one it replaces becomes the diff's other side, unless it was the stages
        before the binary of a compile (`early`): the variant before that one stays it."""
        if self.shown is not None and self.shown is not result and not self.shown.early:
            self.previous = self.shown
        elif self.shown is result and self.failure is not None:  # a failed save undone: itself its other side
            self.previous = result  # (the variant before it stood, its changes said again as new: h24b)
        self.shown, self.failure, self.request = result, None, result.request
        file = local_file(result.request.source)
        if file is not None and not result.early:
            self.helpers[str(file)] = result.helpers

    def failed(self, failure: CompileFailure) -> None:
        """A compile failed: the variant on screen stays (its stages stale), unless it was the stages
        before the binary of the compile that failed (ptxas did): the last good one comes back."""
        if self.shown is not None and self.shown.early:
            self.shown = self.previous
        self.failure = failure

    def completed(self, key: Key, result: ExploreResult) -> str | None:
        """A variant completed (its SASS read, its registers live): kept, and which one it replaces,
        found by its key (after a save, both have the same request): "shown" (drawn again),
        "previous" (the diff's other side), or None (neither any more)."""
        previous = self.previous is not None and self.key_of(self.previous) == key
        shown = self.shown is not None and self.key_of(self.shown) == key
        self.memory[key] = result
        if previous:
            self.previous = result
            return "previous"
        if shown and self.failure is None:
            self.shown = result
            return "shown"
        return None

    def changes(self) -> dict:
        """The lines of each stage that differ from the previous variant's, kept per pair (computed once)."""
        if self.shown is None or self.previous is None:
            return {}
        pair = (id(self.previous), id(self.shown))
        if pair not in self._changes:
            self._changes[pair] = self.shown.changed_lines(self.previous)
        return self._changes[pair]

    def command_line(self) -> str:
        """The `tritonscope dump` command that compiles the variant on screen."""
        return self.shown.compilation.variant.command_line() if self.shown is not None else ""


UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()  # a value not given (None is one)


@dataclass(frozen=True)
class Knob:
    """One value of the variant that the keyboard changes: a constexpr, an argument, an option, the
    target or the Triton release."""

    what: str  # constexpr, arg, option, target, triton
    name: str
    value: Any
    choices: tuple[Any, ...] = ()  # the values it steps through, where it has a list (Triton's: the running first)
    guessed: str = ""  # an argument's type tritonscope guessed: "assumed" (no value anywhere) or "inferred"

    @property
    def text(self) -> str:
        if self.value is UNSET:  # an option takes Triton's default, an argument its inferred type; a constexpr none
            return {"option": "Triton's default", "arg": "inferred"}.get(self.what, "(not set: enter sets it)")
        if self.what == "triton":
            return f"{self.value} (running)" if self.value == self.choices[0] else str(self.value)
        return format_value(self.value)

    @property
    def said(self) -> str:
        """The text, and where tritonscope guessed an argument's type, that it did: the launch may differ."""
        return f"{self.text} ({self.guessed}: enter gives a value)" if self.guessed else self.text


POINTER_TYPES = tuple(TypeName(t) for t in ("*fp16", "*bf16", "*fp32", "*fp8e4nv", "*i8", "*i32", "*i64"))


def knobs(result: ExploreResult, target_names: tuple[str, ...]) -> list[Knob]:
    """The variant's values, in the order the editor lists them."""
    v = result.compilation.variant
    found = [Knob("constexpr", name, value) for name, value in v.constexprs.items()]
    for name, value in v.arguments.items():
        choices = POINTER_TYPES if isinstance(value, TypeName) and value.startswith("*") else ()
        guessed = "assumed" if name in v.assumed else "inferred" if name in v.inferred else ""
        found.append(Knob("arg", name, value, choices, guessed))
    options = result.compilation.options
    found += [Knob("option", name, options.get(name)) for name in OPTION_NAMES if name in ("num_warps", "num_stages")]
    found.append(Knob("target", "target", v.target, target_names))
    if len(result.releases) > 1:
        found.append(Knob("triton", "triton", result.request.triton or result.releases[0], result.releases))
    return found


def asked_knobs(request: VariantRequest, spec: KernelSpec | None, target_names: tuple[str, ...]) -> list[Knob]:
    """The values of a variant that has not compiled (its first compile failed: a constexpr with no
    value, a value Triton rejects): those the request gives, and where the kernel's parameters are
    known, its constexprs that have no default and its arguments not given, to be set here."""
    given = dict(request.constexprs)
    params = spec.params if spec is not None else ()
    names = [p.name for p in params if p.kind == ParamKind.CONSTEXPR and not p.has_default]
    names += [name for name in given if name not in names]
    found = [Knob("constexpr", name, given.get(name, UNSET)) for name in names]
    found += [Knob("arg", name, value) for name, value in request.args]
    given_args = {name for name, _ in request.args}
    for p in params:  # the arguments not given: to set here, as the editor lists a compiled variant's
        if p.kind != ParamKind.CONSTEXPR and p.name not in given_args:
            found.append(Knob("arg", p.name, UNSET, POINTER_TYPES if p.kind == ParamKind.POINTER else ()))
    options = {name: getattr(request, name) for name in ("num_warps", "num_stages")}
    found += [Knob("option", name, UNSET if value is None else value) for name, value in options.items()]
    found.append(Knob("target", "target", request.target, target_names))
    return found


def stepped(knob: Knob, up: bool) -> Any:
    """The knob's next value: the next of its choices, twice or half a power of two, one more or less."""
    if knob.choices:
        index = knob.choices.index(knob.value) if knob.value in knob.choices else -1
        return knob.choices[(index + (1 if up else -1)) % len(knob.choices)]
    value = knob.value
    if isinstance(value, bool) or value is None:
        return not value if isinstance(value, bool) else value
    if isinstance(value, int):
        if value > 0 and value & (value - 1) == 0:
            return value * 2 if up else max(value // 2, 1)
        return value + (1 if up else -1)
    return value


def changed(request: VariantRequest, knob: Knob, value: Any) -> VariantRequest:
    """The request with one knob set to `value`."""
    if knob.what in ("constexpr", "arg"):
        return request.with_value(knob.name, value, constexpr=knob.what == "constexpr")
    if knob.what == "option":
        return replace(request, **{knob.name: value})
    if knob.what == "target":
        return request.for_target(value)
    return replace(request, triton=None if value == knob.choices[0] else value)  # the running one: none asked
