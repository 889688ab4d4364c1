"""The explorer's other screens: the keys (`?`), a kernel list (a folder, or a file of several
kernels), the variant editor (`v`) and the pass pipeline (`p`)."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from functools import partial
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..core.errors import UsageError
from ..core.model import VariantRequest
from ..core.quantities import count
from ..core.values import parse
from ..results.cache import CacheListing
from ..results.catalog import KernelList
from ..results.explore import IRSide, PassStep
from ..results.passes import PassesResult
from .listing import Content
from .panes import CodePane
from .session import UNSET, Knob, changed, stepped
from .widgets import StatusLine

KEYS = [
    ("↑ ↓  j k  PgUp PgDn  g G", "move the cursor in a pane (the mouse too: click a line, scroll)"),
    ("← →  h l", "scroll a pane's long lines left and right"),
    ("tab  shift+tab", "the next or previous pane"),
    ("s  S", "the focused pane's next or previous stage"),
    ("+  -", "one stage pane more or less (1 to 3)"),
    ("/  n  N", "search the focused pane, next and previous match"),
    (":", "go to a line of the focused pane (the source: the file's line number)"),
    ("v", "change the variant: constexprs, arguments, warps, stages, target, Triton"),
    ("b", "back to the variant before (from memory, at once)"),
    ("y", "copy the `tritonscope dump` command of the variant on screen"),
    ("p", "the pass pipeline: each pass's IR before and after it"),
    ("c", "the SASS's control codes beside each instruction (dump --control), or not"),
    ("r", "the resource panel and explain's findings (beside the panes when wide)"),
    ("f", "the findings (↑ ↓ j k): enter jumps every pane to a finding's line"),
    ("t", "light or dark theme"),
    ("?", "these keys"),
    ("q  ctrl+c", "quit"),
]


NOTES = (
    "A cursor on any line selects its Python line; every other pane highlights what came from it. "
    "Saving the kernel file recompiles it. The status line names the step compiling."
)


class Keys(Widget):
    """The keys in a column of their own, each meaning wrapped beside them to the width the box has
    (a meaning wrapped again by Textual at a narrower width put its words in the keys' column)."""

    GAP = 2  # columns between the longest keys and their meaning

    def render(self) -> Text:
        return self._text(self.content_size.width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._text(width).plain.splitlines())

    def _text(self, width: int) -> Text:
        column = max(len(keys) for keys, _ in KEYS) + self.GAP
        text = Text(no_wrap=True)
        for keys, meaning in KEYS:
            text.append(f"{keys:<{column}}", "bold")
            lines = textwrap.wrap(meaning, max(width - column, 20))
            text.append("\n".join([lines[0], *(" " * column + line for line in lines[1:])]) + "\n")
        text.append("\n" + "\n".join(textwrap.wrap(NOTES, max(width, 20))), "dim")
        return text


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "close"),
        Binding("j", "lines(1)", show=False),  # the panes' keys move here too
        Binding("k", "lines(-1)", show=False),
        Binding("G", "ends(1)", show=False),
        Binding("g", "ends(0)", show=False),
    ]
    AUTO_FOCUS = "#help"  # taller than a 24-row terminal: ↑ ↓ scroll it

    def __init__(self, app: Any):
        super().__init__()
        self._app = app

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Keys(id="keys")

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "keys: ↑ ↓ j k g G scroll, esc or q closes"

    def action_lines(self, by: int) -> None:
        self.query_one("#help").scroll_relative(y=by, animate=False)

    def action_ends(self, end: int) -> None:
        box = self.query_one("#help")
        box.scroll_end(animate=False) if end else box.scroll_home(animate=False)


class KernelListScreen(ModalScreen[VariantRequest | None]):
    """The kernels to choose from: a file's (several, none named), or a capture's or Triton cache's."""

    BINDINGS = [Binding("escape,q", "dismiss_none", "back")]
    AUTO_FOCUS = "#kernels"

    def __init__(self, listing: KernelList | CacheListing, request: VariantRequest):
        super().__init__()
        self.listing, self.request = listing, request

    def compose(self) -> ComposeResult:
        if isinstance(self.listing, KernelList):
            title = f"kernels of {self.listing.path.name}: enter opens one"
            options = [
                Option(f"{spec.name}  (line {spec.line})", id=spec.name)
                for spec in self.listing.kernels
                if not spec.is_helper
            ]
        else:
            title = f"kernels compiled in {self.listing.folder}: enter opens one"
            options = _compiled_options(self.listing)
        kernels = OptionList(*options, id="kernels")
        kernels.border_title = title
        # as wide as its widest line (its borders, padding and scrollbar: 6), 90% of the screen at most
        kernels.styles.width = max([len(title) + 4, *(len(str(o.prompt)) for o in options)]) + 6
        yield kernels

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:  # a compile of several: NAME@HASH8
        name = event.option.id or ""
        if isinstance(self.listing, KernelList):
            self.dismiss(replace(self.request, kernel=name))
        else:
            self.dismiss(VariantRequest(file=f"{str(self.listing.folder).rstrip('/')}/:{name}"))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class VariantScreen(ModalScreen):
    """The variant's values: ← → (or - +) step one (twice or half a power of two, the next type,
    target or release) and compile at once; enter types a value."""

    BINDINGS = [
        Binding("left,minus", "step(-1)", "less"),
        Binding("right,plus,equals_sign", "step(1)", "more"),
        Binding("enter", "edit", "type a value"),
        Binding("escape,v", "close", "close"),
    ]
    AUTO_FOCUS = "#knobs"
    TEXT = len("(not set: enter sets it)")  # the values' column: a value not set says so in it

    def __init__(self, app: Any, knobs: list[Knob], request: VariantRequest):
        super().__init__()
        self._app, self.knobs, self.request = app, knobs, request
        self._column = max(len(_label(k)) for k in knobs)  # the names' column

    def compose(self) -> ComposeResult:
        with Vertical(id="variant"):
            yield OptionList(*[Option(self._prompt(k), id=str(i)) for i, k in enumerate(self.knobs)], id="knobs")
            yield Input(id="value")
        yield StatusLine(id="variant-status")  # the compile each change starts, as the main screen says it
        yield Footer()

    def on_mount(self) -> None:
        knobs = self.query_one("#knobs", OptionList)
        knobs.border_title = "variant: ← → change, enter types, esc closes"
        # each value on one line: the names' column, the values', the borders, padding and scrollbar
        texts = max(self.TEXT, *(len(k.said) for k in self.knobs))
        self.query_one("#variant").styles.width = max(52, self._column + 1 + texts + 6)
        status, main = self.query_one(StatusLine), self._app.main.query_one("#status", StatusLine)
        self.watch(main, "standing", lambda text: setattr(status, "standing", text))
        self.watch(main, "said", lambda text: setattr(status, "said", text))

    def _prompt(self, knob: Knob) -> str:
        return f"{_label(knob):<{self._column}} {knob.said}"

    def _current(self) -> int | None:
        return self.query_one("#knobs", OptionList).highlighted

    def action_step(self, by: int) -> None:
        index = self._current()
        if index is not None:
            knob = self.knobs[index]
            if knob.what == "option" and knob.value is UNSET:  # Triton's default: from the value in effect
                knob = replace(knob, value=_in_effect(self.request, knob.name))
            self._set(index, stepped(knob, by > 0))

    @on(OptionList.OptionSelected, "#knobs")
    def _selected(self) -> None:  # enter, which the list takes before the screen's binding sees it
        self.action_edit()

    def action_edit(self) -> None:
        index = self._current()
        if index is None:
            return
        box = self.query_one("#value", Input)
        knob = self.knobs[index]
        box.value = "" if knob.value is UNSET else knob.text
        self.add_class("editing")
        box.focus()

    @on(Input.Submitted, "#value")
    def _typed(self, event: Input.Submitted) -> None:
        index = self._current()
        self.remove_class("editing")
        self.query_one("#knobs", OptionList).focus()
        if index is None or not event.value.strip():
            return
        knob = self.knobs[index]
        text = event.value.strip()
        try:
            value = text if knob.what in ("target", "triton") else parse(text)
        except UsageError as exc:
            self._app.notify(exc.message, severity="error")
            return
        if knob.what == "option" and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            self._app.notify(f"{knob.name} takes a whole number of 1 or more, not {text}", severity="error")
            return  # refused here, not compiled into `ValueError: invalid literal for int()` (h19e)
        self._set(index, knob.choices[0] if knob.what == "triton" and text == "running" else value)

    def _set(self, index: int, value: Any) -> None:
        knob = self.knobs[index]
        if value == knob.value:
            return
        self.request = changed(self.request, knob, value)
        self.knobs[index] = replace(knob, value=value, guessed="")  # the user's now
        knobs = self.query_one("#knobs", OptionList)
        knobs.replace_option_prompt_at_index(index, self._prompt(self.knobs[index]))
        self._app.ask(self.request)

    def action_close(self) -> None:
        if self.has_class("editing"):
            self.remove_class("editing")
            self.query_one("#knobs", OptionList).focus()
            return
        self.dismiss()


def _in_effect(request: VariantRequest, name: str) -> int:
    """An option left unset, as Triton's compile takes it: 4 warps; 3 stages (2 on AMD)."""
    if name == "num_warps":
        return 4
    target = request.target_info
    return 2 if target is not None and target.backend == "hip" else 3


def _label(knob: Knob) -> str:
    kinds = {"constexpr": "constexpr", "arg": "argument", "option": "option", "target": "", "triton": ""}
    return f"{knob.name} ({kinds[knob.what]})" if kinds[knob.what] else knob.name


PASS_LIST_WIDE, PASS_LIST_NARROW = 44, 40  # explorer.tcss's widths of the pass list


class PassesScreen(Screen):
    """The pass pipeline as `passes` lists it; the pass under the cursor shows its IR before and after,
    the lines it changed marked, the selected Python line linked in both."""

    BINDINGS = [
        Binding("escape,p", "app.pop_screen", "back"),
        Binding("q", "app.quit", "quit"),
        Binding("j", "pass_step(1)", show=False),  # the list moves as the panes do (they did nothing: h19e)
        Binding("k", "pass_step(-1)", show=False),
        Binding("g", "pass_end(0)", show=False),
        Binding("G", "pass_end(1)", show=False),
    ]
    AUTO_FOCUS = "#pipeline"

    def action_pass_step(self, by: int) -> None:
        pipeline = self.query_one("#pipeline", OptionList)
        pipeline.action_cursor_down() if by > 0 else pipeline.action_cursor_up()

    def action_pass_end(self, last: int) -> None:
        pipeline = self.query_one("#pipeline", OptionList)
        pipeline.action_last() if last else pipeline.action_first()

    def __init__(self, app: Any, passes: PassesResult):
        super().__init__()
        self._app, self.passes = app, passes
        self._steps: dict[int, PassStep] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="line")
        with Horizontal():
            yield OptionList(*_pass_options(self.passes.records, PASS_LIST_WIDE), id="pipeline")
            with Horizontal(id="sides"):
                yield CodePane(id="before")
                yield CodePane(id="after")
        yield Footer()

    def on_mount(self) -> None:
        self._fit(self.app.size.width < 120)

    def on_resize(self, event: events.Resize) -> None:
        if (event.size.width < 120) != self.has_class("narrow"):  # opened narrow, made wide: side by side then
            self._fit(event.size.width < 120)
        changed = sum(1 for r in self.passes.records if r.changed)
        passes = count(len(self.passes.records), "pass", "passes")
        pipeline = self.query_one("#pipeline", OptionList)
        pipeline.border_title = f"{passes}, {changed} changed"
        pipeline.border_subtitle = "↑↓ a pass · esc back"
        self._show_line()

    def _fit(self, narrow: bool) -> None:
        """The layout for the width, and the pass names cut to the list's."""
        pipeline = self.query_one("#pipeline", OptionList)
        at = pipeline.highlighted
        pipeline.clear_options()
        pipeline.add_options(_pass_options(self.passes.records, PASS_LIST_NARROW if narrow else PASS_LIST_WIDE))
        pipeline.highlighted = at
        self.set_class(narrow, "narrow")

    @on(OptionList.OptionHighlighted, "#pipeline")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = int(event.option.id or 0)
        if index not in self._steps:
            record = self.passes.records[index]
            self._steps[index] = PassStep.of(record, self._app.session.kernel_file or "")
        self._show(self._steps[index])

    def _show(self, step: PassStep) -> None:
        label = step.record.label
        sides = (("before", step.before, f"before {label}"), ("after", step.after, f"after {label}"))
        for name, side, title in sides:
            pane = self.query_one(f"#{name}", CodePane)
            pane.show(_side_content(title, side), keep_place=False)
            pane.link(self._app.session.line)

    @on(CodePane.Moved)
    def _moved(self, message: CodePane.Moved) -> None:
        if message.python_lines:
            self._app.session.line = message.python_lines[0]
            for pane in self.query(CodePane):
                pane.link(message.python_lines[0], scroll=pane is not message.pane)
            self._show_line()

    def _show_line(self) -> None:
        session = self._app.session
        if session.shown is not None and session.line is not None:
            text = session.shown.file_lines.get(session.line, "").strip()
            self.query_one("#line", Static).update(f"Python line {session.line}: {text}")


def _pass_options(records, width: int) -> list[Option]:
    """A row per pass in a list `width` columns wide: its number and counts, then its name, cut in the
    middle where it is longer than the rest of the row (`tritong…conversions#2`: both ends tell
    passes apart, most of which begin `triton`)."""
    changes = [_change(r) for r in records]
    column = max(map(len, changes), default=0)
    room = max(width - PASS_LIST_CHROME - 4 - column - 1, 8)
    named = zip(records, changes, strict=True)
    rows = [f"{r.index:>3} {change:<{column}} {_middle_cut(r.label, room)}" for r, change in named]
    return [
        Option(Text(row, style="bold" if r.changed else "dim"), id=str(r.index - 1))
        for r, row in zip(records, rows, strict=True)
    ]


PASS_LIST_CHROME = 6  # the list's border, padding and scroll bar


def _change(record) -> str:
    """`+79 -311`; a wide one as its lines changed in all (`±3.5k`), which leaves the name its room."""
    if record.changed is None:
        return "?"
    if not record.changed:
        return ""
    said = f"+{record.added} -{record.removed}"
    total = record.added + record.removed
    return said if len(said) <= 8 else f"±{total / 1000:.1f}k" if total >= 1000 else f"±{total}"


def _middle_cut(name: str, width: int) -> str:
    if len(name) <= width:
        return name
    head = (width - 1) * 2 // 5  # the end tells more apart (`...-conversions#2`)
    return f"{name[:head]}…{name[len(name) - (width - 1 - head) :]}"


def _side_content(title: str, side: IRSide | None) -> Content:
    if side is None:
        return Content(f"{title}: not dumped", (), "ttgir")
    return Content(
        title=title,
        lines=side.listing,
        lexer="ttgir",
        python_lines=partial(_get, side.sources),
        numbers=partial(_get, side.linked),
        changed=side.changed,
    )


def _get(table: dict[int, tuple[int, ...]], key: int) -> tuple[int, ...]:
    return table.get(key, ())


def _compiled_options(listing: CacheListing) -> list[Option]:
    """A capture's (or cache's) compiles, each its own row: a kernel compiled twice (BLOCK=256, then
    512) is two rows told apart by their options and hashes (one id for both crashed the list, h19e),
    named as `DIR/:NAME@HASH` picks them (CacheListing.picked_names)."""
    options, seen = [], set()
    for entry, key in zip(listing.entries, listing.picked_names(), strict=True):
        digest = key.partition("@")[2]
        if key in seen:  # no hash to tell them apart (a damaged entry): the first alone
            continue
        seen.add(key)
        warps, stages = entry.metadata.get("num_warps"), entry.metadata.get("num_stages")
        said = f"  warps {warps} stages {stages}" if warps is not None else ""
        also = f"  @{digest}" if key != entry.name else ""
        options.append(Option(f"{entry.name}  {entry.target}{said}  {', '.join(entry.stages)}{also}", id=key))
    return options
