"""The code area: the kernel's source and one to three stage panes, linked by the selected Python
line. It owns which stages its panes show (`stages`), whether the SASS shows its control codes
(`controls`), whether they are the last good ones of a compile that failed (`stale`), and the
lines marked as changed against the variant before; a variant drawn repaints only the panes whose
listing it changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive

from ..core.stages import Stage
from ..results.explore import ExploreResult
from . import contents
from .panes import CodePane

PANES = 3  # stage panes at most
WIDEST = 200  # columns from which TTGIR is shown too at first
MIN_PANE = 34  # columns a pane needs side by side: its gutter (18) and some code


def coming(result: ExploreResult) -> set[Stage]:
    """The stages a variant has, or will have once Triton makes them (and the binary), or once its
    machine code is read."""
    c = result.compilation
    vendor = c.variant.target_info.vendor
    if result.early:
        return {*result.stages, *vendor.stages_for(c.kernel.language)[1:]}
    return set(result.stages) | ({vendor.machine_code} if result.unread is not None else set())


def first_stages(result: ExploreResult, width: int) -> tuple[Stage, ...]:
    """The stages shown at first: the machine code, and TTGIR beside it from WIDEST columns."""
    machine = result.compilation.variant.target_info.vendor.machine_code
    wanted = [Stage.TTGIR, machine] if width >= WIDEST else [machine]
    return tuple(s for s in wanted if s in coming(result)) or tuple(result.stages[-1:])


class CodeArea(Vertical):
    stages: reactive[tuple[Stage, ...]] = reactive((), init=False)  # the stage panes' stages, in order
    controls = reactive(False, init=False)  # the SASS panes' gutter: each instruction's control code (`c`)
    stale = reactive(False, init=False)  # the last good stages of a variant whose compile failed, greyed

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.result: ExploreResult | None = None
        self.line: int | None = None  # the Python line selected
        self.source = CodePane(id="source")
        self._stage_panes = [CodePane(id=f"stage-{index}") for index in range(PANES)]
        self._marks: dict[Stage, frozenset[int]] = {}  # the lines changed, per stage
        self._marked_against: ExploreResult | None = None  # the variant they were changed against
        self._dropped: tuple[tuple[int, Stage], ...] = ()  # (place, stage) a narrower window took, given back
        self._chosen = False  # how many panes the user chose (`+`/`-`): the window's width no longer decides

    def compose(self) -> ComposeResult:
        yield self.source
        for index, pane in enumerate(self._stage_panes):
            pane.display = index < len(self.stages)  # none until a variant is drawn
            yield pane

    @property
    def stage_panes(self) -> list[CodePane]:
        """The stage panes shown, in order."""
        return self._stage_panes[: len(self.stages)]

    def watch_stages(self) -> None:
        for index, pane in enumerate(self._stage_panes):
            pane.display = index < len(self.stages)
        self.draw(self.result)
        self.select(self.line, self.source)  # a pane's new stage: its lines of the selected one

    def watch_controls(self) -> None:
        self.draw(self.result)
        self.select(self.line, self.source)

    def watch_stale(self, stale: bool) -> None:
        for pane in (self.source, *self._stage_panes):
            pane.stale = stale

    def show(self, result: ExploreResult, stages: tuple[Stage, ...], before: ExploreResult | None) -> None:
        """Draws `result` in `stages` (the panes' own, unless they show a stage it will not have); the
        lines marked as changed are kept where they were marked against `before`."""
        if self._marked_against is not before:
            self._marks, self._marked_against = {}, None
        self.result = result
        self.stale = False
        if stages != self.stages:
            self.set_reactive(CodeArea.stages, stages)
            for index, pane in enumerate(self._stage_panes):
                pane.display = index < len(stages)
        self.draw(result)

    def draw(self, result: ExploreResult | None) -> None:
        """Each pane given what it shows now: one given the same listing is not drawn again. The
        source's cursor stays where a key put it: the line the session knows may be the one before."""
        if result is None:
            return
        self.source.show(contents.source(result))
        for pane, stage in zip(self.stage_panes, self.stages, strict=True):
            shown = contents.stage(result, stage, self._marks.get(stage, frozenset()), self.controls)
            pane.show(shown, keep_place=pane.content.title.startswith(stage.title))

    def mark(self, changes: dict[Stage, frozenset[int]], against: ExploreResult) -> None:
        """The lines of each stage that differ from `against` (the variant before), marked `▌`."""
        self._marks, self._marked_against = changes, against
        for pane, stage in zip(self.stage_panes, self.stages, strict=True):
            pane.mark(changes.get(stage, frozenset()))

    def select(self, line: int | None, moved: CodePane | None) -> None:
        """Every pane but the one `moved` scrolls to the lines `line` became, and highlights them."""
        self.line = line
        for pane in (self.source, *self._stage_panes):
            pane.link(line, scroll=pane is not moved)
        source = self.source
        if moved is not source and line is not None and source.number != line:
            source.go_to_number(line)

    def step(self, pane: CodePane, by: int) -> None:
        """The stage pane `pane` shows the next (or previous) stage of the variant."""
        if self.result is None or not pane.id or not pane.id.startswith("stage-"):
            return
        stages, index = list(self.result.stages), int(pane.id.split("-")[1])
        chosen = list(self.stages)
        at = stages.index(chosen[index]) if chosen[index] in stages else -1  # one still coming: from the start
        others = set(chosen) - {chosen[index]}
        for step in range(1, len(stages) + 1):  # past the stages other panes show: no stage twice
            if stages[(at + by * step) % len(stages)] not in others:
                chosen[index] = stages[(at + by * step) % len(stages)]
                break
        self.stages = tuple(chosen)

    def fit(self, columns: int | None) -> None:
        """As many stage panes as `columns` (the panes' share of a wide window; None: stacked, each its
        rows) holds side by side with the source, each MIN_PANE wide; those a narrower window took
        come back as it grows."""
        room = PANES if columns is None else max(columns // MIN_PANE - 1, 1)
        coming_now = coming(self.result) if self.result is not None else set()
        shown = list(self.stages)
        for index, stage in self._dropped:  # back where they were
            if stage in coming_now and stage not in shown:
                shown.insert(min(index, len(shown)), stage)
        if not shown or (len(self.stages) <= room and not self._dropped):
            return
        kept = self._kept(tuple(shown), room)
        self._dropped = tuple((index, stage) for index, stage in enumerate(shown) if stage not in kept)
        if kept != self.stages:
            self.stages = kept

    def grow(self, wanted: tuple[Stage, ...]) -> None:
        """The stages a window opened at its width shows (`wanted`, first_stages'), where this one shows
        fewer and the user has not chosen how many (`+`/`-`): one opened at 80 columns and made 200
        wide showed no TTGIR (h19e)."""
        if self._chosen or len(wanted) <= len(self.stages) or self._dropped:
            return
        self.stages = tuple(s for s in wanted if s not in self.stages) + self.stages

    def _kept(self, shown: tuple[Stage, ...], room: int) -> tuple[Stage, ...]:
        """The stages `room` panes keep of those `shown`: the first ones, and the machine code whatever
        its place (a narrower window took SASS, the stage the explorer opens on, and left TTGIR)."""
        machine = self.result.compilation.variant.target_info.vendor.machine_code if self.result else None
        if machine not in shown[room:]:
            return shown[:room]
        others = [s for s in shown if s is not machine][: room - 1]
        return tuple(s for s in shown if s is machine or s in others)

    def count(self, by: int) -> None:
        """One stage pane more (the last stage not shown, at the front) or less (the last), 1 to PANES."""
        result = self.result
        if result is None:
            return
        self._dropped, self._chosen = (), True  # the user's choice from now on
        chosen = list(self.stages)
        count = min(max(len(chosen) + by, 1), PANES, len(result.stages))
        while len(chosen) < count:
            unused = [s for s in result.stages if s not in chosen]
            chosen.insert(0, (unused or list(result.stages))[-1])
        self.stages = tuple(chosen[:count])
