"""`tritonscope explore` (issue 39), driven as a user drives it: keys and clicks through Textual's
headless harness (its Pilot), real kernels compiled by the real Triton in the explorer's child, and
what each pane shows asserted. The terminal itself is tested in tests/test_explorer_terminal.py."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gc
import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from tritonscope import explorer
from tritonscope.analysis.linemap import stage_lines
from tritonscope.core.model import VariantRequest
from tritonscope.core.stages import Stage
from tritonscope.explorer import collector
from tritonscope.explorer.app import ExplorerApp
from tritonscope.explorer.compiles import Compiles
from tritonscope.explorer.panes import CodePane
from tritonscope.explorer.screens import KernelListScreen, PassesScreen, VariantScreen
from tritonscope.results.explore import ExploreResult

ROOT = Path(__file__).resolve().parent.parent
WIDE, NARROW = (160, 48), (80, 24)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """One explorer's workers for the module's screens, Triton started once, and a Triton cache of the
    module's own: each variant's first compile is cold, and no path is shared with other tests."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TRITON_CACHE_DIR", str(tmp_path_factory.mktemp("triton-cache")))
        compiles = Compiles()
        yield compiles
        compiles.close()


@contextlib.asynccontextmanager
async def opened(request: VariantRequest, size=WIDE, watch: bool = False, compiles: Compiles | None = None):
    """The explorer on `request`, as `tritonscope explore` opens it: the first compile, then the screen;
    in `compiles`' warm workers if given (left running for the next test), else in its own."""
    opening = explorer.start(request, compiles)
    first = await asyncio.to_thread(opening.first)
    app = ExplorerApp(opening.compiles, request, first, watch)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:  # as a terminal shows its notes
            await pilot.pause()
            await until(pilot, lambda: app.session.shown is None or app.session.shown.unread is None)  # its SASS
            # and its follow-ups (the registers live per line): arriving after a key, they would redraw
            await until(pilot, lambda: not app.tickets.pending)
            yield app, pilot
    finally:
        opening.compiles.cancel() if compiles is not None else opening.compiles.close()


async def settled(app: ExplorerApp, pilot, seconds: float = 300) -> None:
    """Waits, the screen live, until no compile is in flight."""
    deadline = time.monotonic() + seconds
    while app.compiling:
        assert time.monotonic() < deadline, "the compile did not end"
        await pilot.pause(0.1)
    await pilot.pause()


async def until(pilot, condition, seconds: float = 300) -> None:
    """Waits, the screen live, until `condition()` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        await pilot.pause(0.1)


def pane(app: ExplorerApp, name: str) -> CodePane:
    return app.query_one(f"#{name}", CodePane)


def rows(p: CodePane, numbers) -> list[str]:
    return [p.row_text(p._rows[n]) for n in sorted(numbers)]


def children() -> set[int]:
    """This process's worker processes (`python -m tritonscope.isolate`)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
            if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"tritonscope.isolate" in cmdline:
                found.add(int(stat.parent.name))
    return found


MATMUL = VariantRequest(file="sample:matmul", target="sm90")


def test_line_33_of_matmul_highlights_its_sass_and_a_sass_line_its_python_line(warm):
    async def scenario():
        async with opened(MATMUL, compiles=warm) as (app, pilot):
            result = app.session.shown
            assert isinstance(result, ExploreResult) and app.main.code.stages == (Stage.SASS,)
            await pilot.press("colon", "3", "3", "enter")  # go to line 33 of the source
            source, sass = pane(app, "source"), pane(app, "stage-0")
            assert source.number == 33 and app.session.line == 33
            # dump --line's line map, read independently of the explorer
            expected = set(stage_lines(result.compilation, Stage.SASS, {(result.compilation.kernel.file, 33)}))
            assert sass.linked == expected and len(expected) > 5
            linked_rows = rows(sass, expected)
            assert any("LDGSTS" in row for row in linked_rows), linked_rows  # tl.load, copied asynchronously
            assert any(r in sass.visible_rows() for r in (sass._rows[n] for n in expected))  # scrolled to them
            assert "a = tl.load(a_ptrs" in app.main.side.detail.said
            # The cursor on an HGMMA line of the SASS: the source highlights the Python line it came from
            await pilot.click("#stage-0")
            await pilot.press("slash", *"HGMMA", "enter")
            hgmma = sass.number
            assert "HGMMA" in sass.row_text(sass.cursor)
            came_from = result.python_lines(Stage.SASS, hgmma)
            assert came_from and source.linked == {came_from[0]} and app.session.line == came_from[0]
            assert source.number == came_from[0] and source.cursor in source.visible_rows()
            await pilot.press("n")
            assert sass.number != hgmma and "HGMMA" in sass.row_text(sass.cursor)
            # Python's own full collections stopped; the explorer's run between the keys (collector.py)
            assert gc.get_threshold()[2] == collector.NEVER
            full = gc.get_stats()[2]["collections"]
            await pilot.press(*["pagedown"] * 6)
            assert gc.get_stats()[2]["collections"] > full
        assert gc.get_threshold()[2] < collector.NEVER  # given back with the screen

    asyncio.run(scenario())


def test_c_shows_and_hides_the_control_codes_beside_the_sass_at_80_columns(warm):
    async def scenario():
        async with opened(MATMUL, size=NARROW, compiles=warm) as (app, pilot):
            await settled(app, pilot)  # its registers live read too: nothing else writes the status line
            result = app.session.shown
            await pilot.press("colon", "3", "3", "enter")
            sass = pane(app, "stage-0")
            copies = [n for n in sass.linked if "LDGSTS" in sass.row_text(sass._rows[n])]
            assert copies and not any(result.controls[n] in sass.row_text(sass._rows[n]) for n in copies)
            footer = {key.description: key.region for key in app.query("FooterKey")}
            assert "codes" in footer and footer["codes"].right <= 80  # the key said on screen
            await pilot.press("c")
            for n in copies:  # the code and the instruction side by side, in 80 columns
                row = sass.row_text(sass._rows[n])
                assert result.controls[n] in row and "LDGSTS" in row and len(row) <= 80, row
            assert "S stall cycles" in app.query_one("#status").render().plain
            await pilot.press("c")
            assert not app.main.code.controls
            assert not any(result.controls[n] in sass.row_text(sass._rows[n]) for n in copies)
            await pilot.press("question_mark")  # at 80x24: the box whole, each meaning wrapped beside its keys
            box, keys = app.screen.query_one("#help"), app.screen.query_one("#keys").render().plain
            assert "control codes beside each instruction (dump --control)" in " ".join(keys.split())
            assert box.region.right <= 80 and box.region.bottom <= 24 and box.has_focus
            assert max(len(line) for line in keys.splitlines()) <= 77
            await pilot.press("end")  # taller than the screen: it scrolls to the last key
            assert box.scroll_y == box.max_scroll_y > 0
            assert all(line[:24].isspace() or line[:1] != " " for line in keys.splitlines() if line.strip())

    asyncio.run(scenario())


def test_changing_block_size_recompiles_marks_the_changes_and_comes_back_from_memory(warm):
    async def scenario():
        request = VariantRequest(file="sample:vector_add", target="sm90")
        async with opened(request, compiles=warm) as (app, pilot):
            before = app.session.shown
            assert before.compilation.variant.constexprs["BLOCK_SIZE"] == 1024
            await pilot.press("v")
            assert isinstance(app.screen, VariantScreen)
            assert app.screen.knobs[0].name == "BLOCK_SIZE"
            # <- twice, as a key held down types it: 1024 -> 512 -> 256, the 512 compile cancelled by the 256
            # one (Pilot's presses wait for the screen to settle, long enough for 512's stages to come)
            # the compile's end held back from the screen until the key below is in, however fast it is
            done, held = app.compiles.on_done, threading.Event()
            app.compiles.on_done = lambda ticket, outcome: (held.wait(60), done(ticket, outcome))
            app.screen.action_step(-1)
            app.screen.action_step(-1)
            assert app.compiling
            await pilot.press("escape")
            source = pane(app, "source")
            row = source.cursor
            await pilot.press("down")  # the screen is live while the child compiles
            assert source.cursor == row + 1 and app.compiling
            source.action_move(1)  # a key in, its move not yet told to the app, when a drawing comes:
            app.main.redraw()  # the cursor stays where the key put it
            assert source.cursor == row + 2
            held.set()
            await settled(app, pilot)
            assert source.cursor == row + 2  # the variant came in where the cursor was moved, not back
            after = app.session.shown
            assert after.compilation.variant.constexprs["BLOCK_SIZE"] == 256
            assert app.session.previous.request == before.request
            assert app.session.previous.explained.live_registers  # its registers live per line, read after it
            panel = app.query_one("#resources").render().plain
            old, new = before.compilation.resources, after.compilation.resources
            assert old.registers != new.registers or old.occupancy.percent != new.occupancy.percent
            if old.registers != new.registers:
                assert f"{new.registers - old.registers:+,} (was {old.registers})" in panel
            assert "(was " in panel and "per thread" in panel
            sass = pane(app, "stage-0")
            await settled(app, pilot)
            await pilot.pause(0.5)  # the diff is made in a thread
            expected = after.changed_lines(before)[Stage.SASS]
            assert sass.content.changed == expected and expected
            assert "▌" in sass.row_text(sass._rows[min(expected)])
            count = sum(len(lines) for lines in after.changed_lines(before).values())
            status = app.query_one("#status").render().plain
            assert status.endswith(f" · {count} lines changed (▌) · BLOCK_SIZE=256 (was 1024)"), status
            await pilot.press("y")
            assert "-c BLOCK_SIZE=256" in app.query_one("#status").render().plain
            await pilot.press("b")  # back: from memory, no compile
            assert app.session.shown.request == before.request and app.session.shown.explained.live_registers
            assert not app.compiling
            assert "from memory" in app.query_one("#status").render().plain

    asyncio.run(scenario())


def test_a_pane_draws_its_own_scroll_thumb_and_a_click_on_it_scrolls(warm):
    """The thumb in a pane's last column spans the share of the listing on screen, where it is; a click
    in that column scrolls there. A listing that fits has none."""
    from dataclasses import replace

    async def scenario():
        async with opened(MATMUL, compiles=warm) as (app, pilot):
            sass = pane(app, "stage-0")
            height, total = sass.scrollable_content_region.height, len(sass.content.lines)
            assert total > 4 * height  # the thumb is a quarter of the column or less

            def column() -> str:
                return "".join("".join(s.text for s in sass.render_line(y))[-1] for y in range(height))

            sass.scroll_to(y=0, animate=False, immediate=True)
            top = column()
            shown = -(-height * height // total)
            assert top == "▐" * shown + " " * (height - shown)
            # the column's last row (the border around it): the listing's end comes into view
            await pilot.click(sass, offset=(sass.outer_size.width - 2, sass.outer_size.height - 2))
            assert sass.scroll_y == sass.max_scroll_y and column() == " " * (height - shown) + "▐" * shown
            sass.show(replace(sass.content, lines=sass.content.lines[: height // 2]))  # one that fits: no thumb
            assert column() == " " * height
            source = pane(app, "source")  # scrolled sideways: the code moves, the gutter and the thumb stay
            assert source.max_scroll_x >= 4
            row = source.cursor - int(source.scroll_y)
            plain = "".join(s.text for s in source.render_line(row))
            source.scroll_to(x=4, animate=False, immediate=True)
            moved = "".join(s.text for s in source.render_line(row))
            assert len(moved) == len(plain) == source.scrollable_content_region.width
            lead = source._lead
            assert moved[:lead] == plain[:lead] and moved[lead:-5] == plain[lead + 4 : -1] and moved[-1] == plain[-1]

    asyncio.run(scenario())


def test_a_pane_given_what_it_shows_again_is_not_drawn_again_and_a_stage_still_made_says_so(warm):
    """A compile's next stages so far hold the ones before: a pane whose lines are the same takes the
    newer content (its links) and keeps the rows it has drawn. A stage Triton is still making, or the
    binary ptxas makes, is named in its pane's title."""
    from dataclasses import replace

    from tritonscope.explorer import contents
    from tritonscope.results.explain import ExplainResult

    async def scenario():
        async with opened(MATMUL, compiles=warm) as (app, pilot):
            p = pane(app, "stage-0")
            for y in range(p.scrollable_content_region.height):
                p.render_line(y)
            drawn = p._drawn
            assert drawn
            again = replace(p.content, numbers=lambda line: ())  # another result's links, the same lines
            p.show(again)
            assert p.content is again and p._drawn is drawn
            p.show(replace(again, changed=frozenset({p.content.lines[0][0]})))
            assert p._drawn is not drawn  # the changed lines marked: drawn again

    asyncio.run(scenario())
    from conftest import compiled

    c = compiled("sample:matmul", "sm90")
    so_far = replace(c, stages={s: t for s, t in c.stages.items() if s in (Stage.SOURCE, Stage.TTIR, Stage.TTGIR)})
    partial = ExploreResult(MATMUL, ExplainResult(so_far, (), ()), early=True, partial=True)
    coming = contents.stage(partial, Stage.LLIR)
    assert coming.title == "LLVM IR: coming…" and not coming.lines
    assert contents.stage(partial, Stage.SASS).title == "SASS: ptxas is making the binary…"
    assert contents.stage(partial, Stage.TTGIR).lines == partial.listings[Stage.TTGIR]


def _vector_add_copy(tmp_path: Path) -> tuple[Path, str, int]:
    """The vector_add sample copied for a test to save over: its path, its text, the line of `output = x + y`."""
    kernel = tmp_path / "add.py"
    shutil.copy(ROOT / "sample_kernels" / "vector_add.py", kernel)
    good = kernel.read_text()
    return kernel, good, next(n for n, t in enumerate(good.splitlines(), 1) if "output = x + y" in t)


def test_a_bad_save_shows_the_error_pane_and_keeps_the_last_stages_stale(tmp_path, warm):
    kernel, good, bad_line = _vector_add_copy(tmp_path)

    async def scenario():
        request = VariantRequest(file=str(kernel), target="sm90")
        async with opened(request, size=NARROW, watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)  # the registers live per line read too
            shown = app.session.shown
            source = pane(app, "source")
            assert source.number == shown.compilation.kernel.line and source.cursor in source.visible_rows()
            # the line the error will name at the pane's last row: the error pane takes rows from it
            source.go_to_number(bad_line - 1)
            height = source.scrollable_content_region.height
            source.scroll_to(y=source._rows[bad_line] - height + 1, animate=False, immediate=True)
            await pilot.pause()
            assert source.visible_rows()[-1] == source._rows[bad_line]
            kernel.write_text(good.replace("output = x + y", "output = x + undefined_thing"))
            deadline = time.monotonic() + 120
            while app.session.failure is None:
                assert time.monotonic() < deadline, "the save was not compiled"
                await pilot.pause(0.1)
            error = app.query_one("#error")
            assert error.display and app.screen.has_class("failed")
            message = error.render().plain
            assert f"{kernel}:{bad_line}:" in message and "undefined_thing" in message
            assert "output = x + undefined_thing" in message  # the kernel's own source line, as the CLI shows it
            assert app.session.shown is shown and pane(app, "stage-0").stale
            grey = app.query_one("#status").styles.color  # its figures and title greyed as its stages
            assert app.query_one("#resources").styles.color == app.query_one("#title").styles.color != grey
            # the source pane shows the file as saved, the line the error names: not the one compiled before
            assert not source.stale and "output = x + undefined_thing" in source.row_text(source._rows[bad_line])
            said = "compile failed · last good stages shown (stale) · save a fix, or change it (v)"
            assert app.query_one("#status").render().plain == said and len(said) <= NARROW[0] - 2  # whole at 80
            assert app.session.line == bad_line and source.number == bad_line
            await pilot.pause()
            assert source.cursor in source.visible_rows()  # in view, with the error pane's rows taken
            # the cursor moved in the file as saved selects its line: the fix's stages link to it (they
            # linked to the line selected before, the cursor elsewhere: h19e)
            store = next(n for n, t in enumerate(good.splitlines(), 1) if "tl.store" in t)
            source.focus()
            source.go_to_number(store)
            await pilot.pause()
            assert app.session.line == store
            kernel.write_text(good)  # fixed: compiled again, the error gone
            while app.session.failure is not None or app.compiling:
                assert time.monotonic() < deadline + 120, "the fixed file was not compiled"
                await pilot.pause(0.1)
            assert not app.screen.has_class("failed") and not pane(app, "stage-0").stale
            await pilot.pause()
            sass = pane(app, "stage-0")
            assert app.main.code.stages == (Stage.SASS,) and source.number == store and app.session.line == store
            assert sass.linked and sass.linked == set(app.session.shown.stage_lines(Stage.SASS, store))

    asyncio.run(scenario())


def test_a_saved_change_recompiles_and_marks_the_lines_it_changed(tmp_path, warm):
    kernel = tmp_path / "add.py"
    shutil.copy(ROOT / "sample_kernels" / "vector_add.py", kernel)
    before = kernel.read_text()

    async def scenario():
        async with opened(VariantRequest(file=str(kernel), target="sm90"), watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            app.main.code.stages = (Stage.TTIR,)
            old = app.session.shown
            kernel.write_text(before.replace("output = x + y", "output = x * y"))
            await until(pilot, lambda: app.session.shown is not old and not app.session.shown.early)
            await settled(app, pilot)
            await until(pilot, lambda: "lines changed" in app.query_one("#status").render().plain)
            new, session = app.session.shown, app.session
            assert session.previous is old and new.unread is None  # the new variant's SASS read too
            status = app.query_one("#status").render().plain
            count = int(re.search(r"(\d+) lines changed", status).group(1))
            ttir = pane(app, "stage-0")
            assert count > 0 and ttir.content.changed, status
            assert status.endswith("changed (▌) · against the file before the save"), status
            assert any("arith.mulf" in text for text in rows(ttir, ttir.content.changed))

    asyncio.run(scenario())


def test_a_save_of_a_helper_file_the_kernel_imports_recompiles(tmp_path, warm):
    """The explorer followed the kernel's file alone: a save of the helper it imports showed nothing."""
    helper = tmp_path / "combining.py"
    helper.write_text("import triton\n\n\n@triton.jit\ndef combine(x, y):\n    return x + y\n")
    kernel = tmp_path / "add.py"
    source = (ROOT / "sample_kernels" / "vector_add.py").read_text()
    kernel.write_text("from combining import combine\n" + source.replace("output = x + y", "output = combine(x, y)"))

    async def scenario():
        async with opened(VariantRequest(file=str(kernel), target="sm90"), watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            assert app.session.shown.helpers == (str(helper.resolve()),)
            app.main.code.stages = (Stage.TTIR,)
            old = app.session.shown
            helper.write_text(helper.read_text().replace("x + y", "x * y"))
            await until(pilot, lambda: app.session.shown is not old and not app.session.shown.early)
            await settled(app, pilot)
            ttir = pane(app, "stage-0")
            assert any("arith.mulf" in text for _, text in ttir.content.lines)

    asyncio.run(scenario())


def test_the_pass_view_shows_a_pass_before_and_after_linked_to_the_source_line(warm):
    async def scenario():
        async with opened(MATMUL, compiles=warm) as (app, pilot):
            await pilot.press("colon", "3", "5", "enter")  # line 35: the tl.dot
            await pilot.press("p")
            await settled(app, pilot)
            assert isinstance(app.screen, PassesScreen)
            listing = app.screen.query_one("#pipeline")
            await pilot.press("G")  # the list's own keys, as the panes' (they did nothing: h19e)
            assert listing.highlighted == len(app.screen.passes.records) - 1
            await pilot.press("k", "k", "j", "g")
            assert listing.highlighted == 0
            records = app.screen.passes.records
            coalesce = next(r for r in records if r.name == "tritongpu-accelerate-matmul")
            listing = app.screen.query_one("#pipeline")
            listing.highlighted = coalesce.index - 1
            await pilot.pause()
            before, after = app.screen.query_one("#before", CodePane), app.screen.query_one("#after", CodePane)
            assert before.content.title == "before tritongpu-accelerate-matmul"
            assert any("tt.dot " in t for _, t in before.content.lines)
            assert any("ttng.warp_group_dot" in t for _, t in after.content.lines)
            assert after.content.changed and before.content.changed  # the pass changed the dot
            changed_rows = rows(after, after.content.changed)
            assert any("warp_group_dot" in row for row in changed_rows)
            assert after.linked and any("warp_group_dot" in row for row in rows(after, after.linked))
            assert "Python line 35: accumulator = tl.dot" in app.screen.query_one("#line").render().plain
            # a line chosen among the passes is the one selected back on the stages
            other = next(n for n, _ in after.content.lines if after.content.python_lines(n)[:1] not in ((), (35,)))
            chosen = after.content.python_lines(other)[0]
            after.go_to_number(other)
            await pilot.pause()
            assert app.session.line == chosen
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, PassesScreen)
            assert app.session.line == chosen and pane(app, "source").number == chosen
            # what the pass list's keys do was said on the main screen, hidden, and stood there after escape
            assert "escape goes back" not in app.query_one("#status").render().plain  # h24b
            # the status stands on the variant again, not on the capture's "capturing ... 0.0 s" (h19e)
            await pilot.press("j", "k")
            await pilot.pause()
            assert "capturing the pass pipeline" not in app.query_one("#status").render().plain

    asyncio.run(scenario())


def test_a_newer_request_cancels_the_older_and_leaves_no_process(warm):  # its cold Triton cache
    others = children()  # the module's warm workers

    async def scenario():
        # fused attention: its compile (a second or more) outlasts the time the test takes to see it begun
        request = VariantRequest(file="sample:fused_attention", target="sm90")
        async with opened(request) as (app, pilot):
            opened_with = app.session.shown.compilation.variant.constexprs["BLOCK_N"]
            app.ask(request.with_value("BLOCK_N", 128, constexpr=True))
            await until(pilot, lambda: app.tickets.step)  # the child has begun compiling it
            app.ask(request.with_value("BLOCK_N", 16, constexpr=True))
            await settled(app, pilot)
            assert app.session.shown.compilation.variant.constexprs["BLOCK_N"] == 16
            # 128 never shown whole (its stages before the binary may have been): the diff is against the first
            assert app.session.previous.compilation.variant.constexprs["BLOCK_N"] == opened_with != 128
            assert len(children() - others) <= 2  # the one that compiled and the spare: the cancelled one is gone
        assert not children() - others

    asyncio.run(scenario())


def test_the_layout_stacks_at_80x24_and_the_panel_opens_with_r(warm):
    async def scenario():
        async with opened(VariantRequest(file="sample:softmax", target="sm90"), size=NARROW, compiles=warm) as (
            app,
            pilot,
        ):
            source, stage = pane(app, "source"), pane(app, "stage-0")
            assert source.region.x == stage.region.x and source.region.y < stage.region.y  # stacked
            assert source.region.width == 80 and not app.query_one("#side").display
            await pilot.press("r")
            assert app.query_one("#side").display and not app.query_one("#code").display
            assert "registers" in app.query_one("#resources").render().plain
            await pilot.press("r", "plus")
            assert app.query_one("#stage-1", CodePane).display and len(app.main.code.stages) == 2
            await pilot.press("question_mark")
            assert "copy the `tritonscope dump` command" in app.screen.query_one("#keys").render().plain
            await pilot.press("escape", "y")  # the command, cut in the status line, whole in a note
            command = app.session.command_line()
            assert len(command) > 78 and app.query_one("#status").render().plain.endswith("…")
            await pilot.pause()
            noted = " ".join(str(toast.render()) for toast in app.screen.query("Toast"))
            assert " ".join(command.split()) in " ".join(noted.split()), noted
            # a status longer than the screen is cut at its end, visibly, and fitted again when wider
            said = "compiled in 0.4 s · 12 lines changed (▌) · " + ", ".join(f"BLOCK_{i}=1024" for i in range(7))
            app.main.stand(said)
            await pilot.pause()
            status = app.query_one("#status").render().plain
            assert len(status) <= 78 and status.endswith("…") and status.startswith(said[:60])
            await pilot.resize_terminal(160, 48)
            await pilot.pause()
            assert app.query_one("#status").render().plain == said

    asyncio.run(scenario())


def test_a_file_of_several_kernels_opens_on_its_kernel_list(warm):
    async def scenario():
        request = VariantRequest(file=str(ROOT / "tests" / "kernels" / "mixed.py"), target="sm90")
        async with opened(request, compiles=warm) as (app, pilot):
            assert isinstance(app.screen, KernelListScreen)
            names = [app.screen.query_one("#kernels").get_option_at_index(i).id for i in range(3)]
            assert names == ["scale_kernel", "tuned_kernel", "row_kernel"]
            await pilot.press("down", "enter")  # the autotuned one: its first config
            await until(pilot, lambda: app.session.shown is not None)
            assert app.session.shown.compilation.kernel.name == "tuned_kernel"
            assert pane(app, "source").number == app.session.shown.compilation.kernel.line

    asyncio.run(scenario())


def test_a_kernel_chosen_that_needs_a_value_shows_its_file_and_v_sets_it(warm):
    """At 80x24: the kernel list's first kernel has a constexpr with no default. Its compile fails
    before any stage: the source pane shows the file, `v` lists the value to set, enter types it,
    and the variant compiles with the kernel's `def` in view."""

    async def scenario():
        request = VariantRequest(file=str(ROOT / "tests" / "kernels" / "mixed.py"), target="sm90")
        async with opened(request, size=NARROW, compiles=warm) as (app, pilot):
            await pilot.press("enter")  # scale_kernel
            await until(pilot, lambda: app.session.failure is not None)
            assert "scale_kernel needs a value for constexpr BLOCK" in app.query_one("#error").render().plain
            source = pane(app, "source")
            assert source.content.title == "mixed.py" and "def scale_kernel(" in source.content.lines[12][1]
            await pilot.press("v")
            assert isinstance(app.screen, VariantScreen)
            knobs = [(k.name, k.text) for k in app.screen.knobs]
            assert knobs[:2] == [("BLOCK", "(not set: enter sets it)"), ("in_ptr", "inferred")]  # its arguments too
            assert ("num_warps", "Triton's default") in knobs
            await pilot.press("enter", *"256", "enter")
            await until(pilot, lambda: app.session.shown is not None)
            await pilot.press("escape")
            await settled(app, pilot)
            shown = app.session.shown
            assert shown.compilation.kernel.name == "scale_kernel"
            assert shown.compilation.variant.constexprs["BLOCK"] == 256
            assert app.session.failure is None and not app.screen.has_class("failed")
            assert source.number == shown.compilation.kernel.line == 13 and source.cursor in source.visible_rows()

    asyncio.run(scenario())


ONE_KERNEL = """import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""


def test_a_file_of_one_kernel_that_needs_a_value_opens_and_v_sets_it(tmp_path, warm):
    """`explore k.py`, its one kernel's BLOCK given no value: it exited 2 before any screen, while the
    same kernel chosen from a list opens and asks for it. It opens, the error says to press v, and the
    variant screen lists BLOCK."""
    kernel = tmp_path / "k.py"
    kernel.write_text(ONE_KERNEL)

    async def scenario():
        async with opened(VariantRequest(file=str(kernel), target="sm90"), size=NARROW, compiles=warm) as (
            app,
            pilot,
        ):
            await until(pilot, lambda: app.session.failure is not None)
            assert "needs a value for constexpr BLOCK (press v" in app.query_one("#error").render().plain
            title = app.query_one("#title").render().plain  # the first row named nothing
            assert title.strip() == "k.py · sm90 · not compiled", title
            findings = app.query_one("#findings")  # it was an empty box
            assert [str(option.prompt) for option in findings.options] == [findings.WAITING]
            await pilot.press("v")
            assert isinstance(app.screen, VariantScreen)
            assert [(k.name, k.text) for k in app.screen.knobs][0] == ("BLOCK", "(not set: enter sets it)")
            await pilot.press("enter", *"128", "enter")
            await until(pilot, lambda: app.session.shown is not None)
            assert app.session.shown.compilation.variant.constexprs["BLOCK"] == 128

    asyncio.run(scenario())


def test_a_value_not_given_is_told_from_one_given_as_none():
    """The editor of a variant that has not compiled: a constexpr without a default, the arguments and
    an option not given are to be set (the arguments were missing); a constexpr given as None is None."""
    from tritonscope.app.walk.load import load_file
    from tritonscope.explorer.session import asked_knobs

    mixed = str(ROOT / "tests" / "kernels" / "mixed.py")
    spec = load_file(mixed).pick("scale_kernel").spec
    request = VariantRequest(file=mixed, kernel="scale_kernel", constexprs=(("DTYPE", None),), num_warps=8)
    assert [(k.name, k.text) for k in asked_knobs(request, spec, ("sm90",))] == [
        ("BLOCK", "(not set: enter sets it)"),
        ("DTYPE", "None"),
        *(
            (name, "inferred") for name in ("in_ptr", "out_ptr", "row_stride", "n", "scale")
        ),  # as tritonscope types them
        ("num_warps", "8"),
        ("num_stages", "Triton's default"),
        ("target", "auto"),
    ]


def test_a_liger_kernel_explored_from_its_module(warm):
    """A real library's kernel, named as a module (liger imports torch: in the child only)."""
    from test_corpus_liger import CASES, liger_ops

    from tritonscope.cli.options import request_from_words

    liger_ops()
    case = next(c for c in CASES if c.kernel == "_rms_norm_forward_kernel")
    request = request_from_words(
        "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel", [*case.flags.split(), "--target", "sm90"], "test"
    )

    async def scenario():
        async with opened(request, compiles=warm) as (app, pilot):
            result = app.session.shown
            source_text = result.file_lines
            load = next(n for n, t in source_text.items() if "X_row = tl.load(x_base + col_offsets" in t)
            await pilot.press("colon", *str(load), "enter")
            sass = pane(app, "stage-0")
            assert sass.linked and sass.linked == set(result.stage_lines(Stage.SASS, load))
            assert any("LDG.E" in row for row in rows(sass, sass.linked))
            assert pane(app, "source").border_title.startswith("_rms_norm_forward_kernel  (rms_norm.py)")
            assert "registers" in app.query_one("#resources").render().plain

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def softmax_in_steps():
    """softmax on sm90 as the explorer's worker makes it (Triton's stages first, then the SASS read),
    and as a whole compile explained gives it: (first, full, whole)."""
    from tritonscope.app import explore
    from tritonscope.app.explain import explain_compilation
    from tritonscope.app.walk.prepare import compile_request

    request = VariantRequest(file="sample:softmax", target="sm90")
    first = explore.explored(request)
    full = explore.with_machine_code(first)
    return first, full, explain_compilation(compile_request(request), live=False)


def test_the_stages_come_first_and_the_sass_after_them_as_explain_reads_it(softmax_in_steps):
    """The first screen waits for Triton's stages only; the SASS read after them (nvdisasm) gives the
    explorer what a whole compile gives explain: the same SASS, line map, resources and findings."""
    from tritonscope.app.walk.prepare import MACHINE_CODE_PENDING
    from tritonscope.explorer import contents

    first, full, whole = softmax_in_steps
    assert isinstance(first, ExploreResult) and first.unread is not None
    assert Stage.SASS not in first.stages and Stage.PTX in first.stages and Stage.PTX in first.listings
    assert MACHINE_CODE_PENDING in first.compilation.notices and not first.explained.findings
    assert contents.stage(first, Stage.SASS).title == "SASS: being read (nvdisasm)…"
    assert full.unread is None and MACHINE_CODE_PENDING not in full.compilation.notices
    assert full.compilation.stages[Stage.SASS] == whole.compilation.stages[Stage.SASS]
    assert full.compilation.line_map == whole.compilation.line_map and full.compilation.line_map[Stage.SASS]
    assert full.compilation.resources == whole.compilation.resources
    assert [(f.kind, f.line) for f in full.explained.findings] == [(f.kind, f.line) for f in whole.findings]
    assert full.compilation.compile_seconds == first.compilation.compile_seconds


def test_the_sass_read_brings_dump_controls_codes_and_explain_times_each_line(softmax_in_steps):
    """The control codes come with the SASS, as `dump --control` writes them, in the SASS pane's gutter
    when asked for; the source gutter gives explain's share of the estimated time, and a line's cost
    the waits that make it."""
    from tritonscope.analysis import scoreboards
    from tritonscope.explorer import contents

    first, full, whole = softmax_in_steps
    assert first.controls is None and contents.controls_missing(first) is None  # they come with the SASS
    schedule = scoreboards.schedule(whole.compilation)  # dump --control's
    assert full.controls == {s.listing_line: schedule.controls[s.offset].text for s in schedule.listing.instructions}
    assert contents.controls_missing(full) is None
    assert not contents.stage(full, Stage.SASS).gutter and not contents.stage(full, Stage.PTX, controls=True).gutter
    sass = contents.stage(full, Stage.SASS, controls=True)
    loads = [n for n, text in sass.lines if "LDG.E" in text]
    assert loads and all(re.fullmatch(r"B[-0-5]{6}:R[-0-5]:W[0-5]:[-Y]:S\d\d", sass.gutter[n][0]) for n in loads)
    # the source: the line explain estimates the costliest, its share beside its instructions
    top = whole.time.ranked[0]
    gutter = contents.source(full).gutter[top.line][0]
    instructions = next(c.instructions.total for c in whole.lines if c.line == top.line)
    assert gutter.split()[:2] == [str(instructions), f"{top.share:.0%}"] and top.share > 0.3
    waited = next(t for t in whole.time.lines if any(w.kind == "global load" for w in t.waits_on))
    said = next(w.said for w in waited.waits_on if w.kind == "global load")
    cost = contents.cost_of(full, waited.line)
    assert f"{waited.share:.0%} of the estimated time" in cost and said in cost and "waits on the loads of line" in said


def test_an_amd_variant_has_no_control_codes_and_its_gutter_counts_instructions():
    from conftest import compiled

    from tritonscope.app.explain import explain_compilation
    from tritonscope.explorer import contents

    c = compiled("sample:vector_add", "gfx942")
    request = VariantRequest(file="sample:vector_add", target="gfx942")
    result = ExploreResult(request, explain_compilation(c, live=False))
    assert result.controls is None and result.explained.time is None
    said = contents.controls_missing(result)
    assert said == "no control codes on gfx942: they are NVIDIA SASS's, and AMDGCN has none"
    counts = {cost.line: cost.instructions.total for cost in result.explained.lines}
    busiest = max(counts, key=lambda line: counts[line])  # a load's or the store's: a full bar, shaded the most
    gutter = contents.source(result).gutter
    assert gutter[busiest] == (f"{counts[busiest]:>4} ████    ", 4)
    assert "tl.store(" in result.file_lines[busiest] or "tl.load(" in result.file_lines[busiest]
    eighths = {char: index for index, char in enumerate(" ▏▎▍▌▋▊▉█")}
    shorter = 0
    for line, count in counts.items():  # each bar its line's share of the busiest, in eighths of 4 cells
        figures, heat = gutter[line]
        assert figures[:4] == f"{count:>4}"
        assert sum(eighths[char] for char in figures[5:9]) == round(count / counts[busiest] * 32)
        assert heat == min(int(count / counts[busiest] * 5), 4)
        shorter += 0 < count < counts[busiest]
    assert shorter >= 2  # the offsets' and the mask's lines at least, each bar shorter


def test_the_stages_come_as_triton_makes_them_and_are_the_compile_s_own(warm):
    """A changed variant's stages reach the screen as Triton makes them: TTIR while TTGIR is made, ...,
    TTIR to PTX while ptxas makes the binary; each hand-over holds the ones before, with the same
    texts, line maps and listings as the whole result that follows them, which alone the session keeps."""
    from tritonscope.analysis.artifacts import BINARY_PENDING
    from tritonscope.explorer.session import Session

    came: list[tuple[str, object]] = []
    done = threading.Event()
    kept = warm.on_step, warm.on_done, warm.on_early
    warm.on_step = None
    warm.on_early = lambda ticket, result: came.append(("early", result))
    warm.on_done = lambda ticket, outcome: (came.append(("done", outcome.unwrap())), done.set())
    request = VariantRequest(file="sample:fused_attention", target="sm90").with_value("BLOCK_N", 32, constexpr=True)
    try:
        warm.submit(request)  # its LLVM IR takes a second or more: what came before is read meanwhile
        assert done.wait(600)
    finally:
        warm.on_step, warm.on_done, warm.on_early = kept
    assert [what for what, _ in came][-1] == "done" and len(came) >= 3
    earlies, whole = [result for _, result in came[:-1]], came[-1][1]
    assert whole.unread is not None and not whole.early  # the SASS is read next, as before
    before_binary = [Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX]
    for early in earlies:
        assert early.early and BINARY_PENDING in early.compilation.notices and Stage.SASS not in early.stages
        assert list(early.stages) == before_binary[: len(early.stages)]  # in the pipeline's order, none skipped
        assert early.partial == (early.stages[-1] is not Stage.PTX)
        for stage in early.stages:
            assert early.compilation.stages[stage] == whole.compilation.stages[stage]
            assert early.compilation.line_map[stage] == whole.compilation.line_map[stage]
            assert early.listings[stage] == whole.listings[stage]
    counts = [len(early.stages) for early in earlies]
    assert counts == sorted(set(counts)) and counts[0] < 4 and counts[-1] == 4  # growing, the first before the PTX
    assert "mma" in earlies[-1].compilation.stages[Stage.PTX]  # the whole PTX, its tensor-core instructions in it

    session = Session(request)
    before = copy.copy(whole)  # stands for the variant on screen before the change
    session.arrived("before", before)
    for early in earlies:
        session.show(early)
        assert session.shown is early and session.previous is before  # the diff's other side: what was on screen
    session.arrived("changed", whole)
    assert session.previous is before and session.shown is whole  # not the early stages
    assert all(not result.early for result in session.memory.values())


def test_the_panel_says_a_figure_that_has_no_number_changed():
    """A variant that spills has a stack row (`192 words, 768 B`) whose change has no number: the panel
    says what it was; it raised a TypeError and ended the explorer (num_warps 8 -> 4 on matmul with a
    256-wide tile, at every terminal size)."""
    from dataclasses import replace

    from tritonscope.app import explore
    from tritonscope.explorer import contents

    base = VariantRequest(file="sample:matmul", target="sm90", constexprs={"BLOCK_SIZE_N": 256})
    before = explore.explored(replace(base, num_warps=8))
    after = explore.explored(replace(base, num_warps=4))
    assert after.compilation.resources.spills > before.compilation.resources.spills
    changes = {name: change for name, _, change, _ in contents.resources(after, before)}
    assert changes["spills"].startswith("+") and "(was " in changes["spills"]
    unnumbered = [change for name, _, change, _ in contents.resources(after, before) if change.startswith("was ")]
    assert unnumbered, changes  # the stack's change, said without a sign


def test_what_a_key_said_gives_way_to_the_compiles_line_at_the_next_key(warm):
    """A search's miss (`'ZZZZ' is not in ...`) and a hint stayed on the status line after the keys that
    followed, while the state they spoke of had changed; the compile's own line comes back now."""

    async def scenario():
        async with opened(MATMUL, compiles=warm) as (app, pilot):
            status = app.main.status_line
            standing = status.standing
            assert standing.startswith("opened: BLOCK_SIZE_M=128") and status.said == ""
            await pilot.click("#stage-0")
            await pilot.press("slash", *"ZZZZ", "enter")
            assert status.said.startswith("'ZZZZ' is not in") and str(status.render()).startswith("'ZZZZ'")
            await pilot.press("down")
            assert status.said == "" and str(status.render()).startswith(standing[:20])

    asyncio.run(scenario())


def test_a_cache_of_one_kernel_compiled_twice_lists_each_compile(warm, tmp_path):
    """Two compiles of one kernel (BLOCK=256, then 512) in a capture or a Triton cache had one id in the
    kernel list: textual's DuplicateID crashed explore (exit 3, h19e). Each is its own row, NAME@HASH8,
    and enter opens the one chosen."""
    from tritonscope.app.walk.prepare import compile_request

    cache = tmp_path / "cache"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TRITON_CACHE_DIR", str(cache))
        for block in (256, 512):
            request = VariantRequest(file="sample:vector_add", target="sm90", constexprs=(("BLOCK_SIZE", block),))
            compile_request(request)

    async def scenario():
        async with opened(VariantRequest(file=f"{cache}/"), compiles=warm) as (app, pilot):
            assert isinstance(app.screen, KernelListScreen)
            kernels = app.screen.query_one("#kernels")
            ids = [kernels.get_option_at_index(i).id for i in range(kernels.option_count)]
            assert len(ids) == 2 and all(i.startswith("add_kernel@") for i in ids) and ids[0] != ids[1]
            await pilot.press("down", "enter")
            await until(pilot, lambda: app.session.shown is not None)
            assert app.session.shown.compilation.binary  # the second compile, read back

    asyncio.run(scenario())


def test_a_syntax_error_saved_puts_the_cursor_on_its_line(tmp_path, warm):
    """The error pane named `add.py:N: syntax error` and the cursor went to the kernel's def, the line
    out of view (h19e): it goes to the line the error names, as for a NameError."""
    kernel, good, bad_line = _vector_add_copy(tmp_path)

    async def scenario():
        request = VariantRequest(file=str(kernel), target="sm90")
        async with opened(request, size=NARROW, watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            kernel.write_text(good.replace("output = x + y", "output = x +"))
            deadline = time.monotonic() + 120
            while app.session.failure is None:
                assert time.monotonic() < deadline, "the save was not compiled"
                await pilot.pause(0.1)
            assert f"add.py:{bad_line}: syntax error" in app.query_one("#error").render().plain
            await pilot.pause()
            source = pane(app, "source")
            assert app.session.line == bad_line and source.number == bad_line and source.cursor in source.visible_rows()

    asyncio.run(scenario())


def test_an_option_left_at_tritons_default_steps_from_its_value_and_refuses_a_word(warm):
    """num_warps at "Triton's default": ←/→ did nothing, and `banana` typed for it was compiled into
    `ValueError: invalid literal for int()` (h19e). → steps from the value in effect (4 to 8); a word
    is refused in a note, nothing compiled."""

    async def scenario():
        request = VariantRequest(file=str(ROOT / "tests" / "kernels" / "mixed.py"), target="sm90")
        async with opened(request, compiles=warm) as (app, pilot):
            await pilot.press("enter")  # scale_kernel: it needs a value, nothing compiled
            await until(pilot, lambda: app.session.failure is not None)
            await pilot.press("v")
            warps = next(i for i, k in enumerate(app.screen.knobs) if k.name == "num_warps")
            assert app.screen.knobs[warps].text == "Triton's default"
            app.screen.query_one("#knobs").highlighted = warps
            app.screen.action_step(1)
            assert app.screen.request.num_warps == 8
            await settled(app, pilot)
            asked = app.screen.request
            app.screen.query_one("#knobs").highlighted = warps
            await pilot.press("enter", *"banana", "enter")
            await pilot.pause()
            assert app.screen.request == asked and not app.compiling
            noted = " ".join(str(toast.render()) for toast in app.screen.query("Toast"))
            assert "num_warps takes a whole number of 1 or more, not banana" in noted

    asyncio.run(scenario())
