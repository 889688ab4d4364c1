"""The explorer at 80x24, 160x45 and 200x50 (issue 55): what a newcomer met in a real terminal, read
here off the screen Textual composes (every character drawn, not what a widget holds). A failed
compile keeps the panes their width, the error beneath them, and the source as saved; the findings
have rows at 80x24; the keys box keeps its keys apart from their meanings; a resize draws every
pane at its new width; the variant editor keeps each value on one line, says an option not given
takes Triton's default, and shows the status line while a change compiles; a kernel list is a box
of its own."""

from __future__ import annotations

import asyncio
import re
import shutil
import threading

import pytest
from conftest import make_request
from test_explorer import MATMUL, ROOT, opened, pane, settled, until, warm  # noqa: F401  (warm: a fixture)

from tritonscope.core.model import VariantRequest
from tritonscope.core.stages import Stage
from tritonscope.explorer.panes import CodePane
from tritonscope.explorer.screens import KEYS

SIZES = [(80, 24), (160, 45), (200, 50)]
IDS = [f"{w}x{h}" for w, h in SIZES]
MIXED = str(ROOT / "tests" / "kernels" / "mixed.py")


def side(width: int) -> int:
    """The panel's columns beside the panes, from 120: 30% of the screen, 42 to 72 (explorer.tcss)."""
    return min(max(int(width * 0.3), 42), 72) if width >= 120 else 0


def screen(app) -> list[str]:
    """Each row of the screen as the terminal shows it: every layer composed, the modal's too."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def drawn_as_it_holds(app, p: CodePane) -> None:
    """Each row the pane shows on screen is its row drawn at the pane's width now (its last column
    aside: the scroll thumb's)."""
    lines, region = screen(app), p.content_region
    top = int(p.scroll_y)
    for y in range(min(region.height, len(p.content.lines) - top)):
        on_screen = lines[region.y + y][region.x : region.right - 1]
        assert on_screen == p.row_text(top + y, region.width)[:-1], (p.id, y, on_screen)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_kernel_list_is_a_box_of_its_own(size, warm):  # noqa: F811
    """A file of several kernels opens on their list: a box as wide as its lines, nothing drawn
    around it (the screen behind has nothing to show yet)."""

    async def scenario():
        async with opened(VariantRequest(file=MIXED, target="sm90"), size=size, compiles=warm) as (app, pilot):
            box, lines = app.screen.query_one("#kernels").region, screen(app)
            inside = [line[box.x : box.right] for line in lines[box.y : box.bottom]]
            outside = [line[: box.x] + line[box.right :] for line in lines[box.y : box.bottom]]
            assert not "".join(outside + lines[: box.y] + lines[box.bottom : -1]).strip(), "\n".join(lines)
            for name, line in (("scale_kernel", 13), ("tuned_kernel", 29), ("row_kernel", 36)):
                assert any(f"{name}  (line {line})" in row for row in inside)

    asyncio.run(scenario())


async def _needing_a_value(app, pilot) -> None:
    """mixed.py's first kernel chosen from its list: its compile fails, BLOCK has no value."""
    await pilot.press("enter")
    await until(pilot, lambda: app.session.failure is not None)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_kernel_that_needs_a_value_keeps_the_source_its_width(size, warm):  # noqa: F811
    """scale_kernel, chosen, needs a value: its error sits beneath the source, which keeps its width."""

    async def scenario():
        async with opened(VariantRequest(file=MIXED, target="sm90"), size=size, compiles=warm) as (app, pilot):
            await _needing_a_value(app, pilot)
            source, error, code = pane(app, "source"), app.query_one("#error"), app.query_one("#code")
            width = size[0] - side(size[0])
            assert code.region.width == width and source.region.width == width  # not 2 columns
            assert error.region.y >= source.region.bottom and error.region.width == width
            assert source.content.title == "mixed.py" and any("def scale_kernel(" in t for _, t in source.content.lines)
            assert any("needs a value for constexpr BLOCK" in row for row in screen(app))
            # the explorer's key, not the command line's `-c BLOCK=...`; the cursor on the kernel's def
            assert "press v and give BLOCK a value" in str(app.main.error_pane.message)
            assert source.number == 13 and "def scale_kernel(" in source.row_text(source.cursor)
            drawn_as_it_holds(app, source)

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_variant_editor_keeps_a_value_a_line_and_the_status_in_view(size, warm):  # noqa: F811
    """`v` lists what to set, each value on one line, an option not given as taking Triton's default;
    the status line stays in view while the value typed compiles."""

    async def scenario():
        async with opened(VariantRequest(file=MIXED, target="sm90"), size=size, compiles=warm) as (app, pilot):
            await _needing_a_value(app, pilot)
            await pilot.press("v")
            lines = screen(app)
            for label, text in (("BLOCK (constexpr)", "(not set: enter sets it)"), ("num_warps", "Triton's default")):
                assert any(label in row and text in row for row in lines), "\n".join(lines)
            # held until the screen is read: the compile's end, and its early stages (drawn, they
            # take the status line's place; a warm cache makes them before the next frame)
            done, early, held = app.compiles.on_done, app.compiles.on_early, threading.Event()
            app.compiles.on_done = lambda ticket, outcome: (held.wait(60), done(ticket, outcome))
            if early is not None:
                app.compiles.on_early = lambda ticket, result: (held.wait(60), early(ticket, result))
            try:
                await pilot.press("enter", *"256", "enter")
                await pilot.pause()
                said = [row for row in screen(app) if "compiling: " in row]
                assert said and "BLOCK=256" in said[0], "\n".join(screen(app))
            finally:
                held.set()
                app.compiles.on_done, app.compiles.on_early = done, early
            await until(pilot, lambda: app.session.shown is not None)

    asyncio.run(scenario())


def test_the_variant_editor_says_which_argument_types_were_guessed(warm):  # noqa: F811
    """`v` listed `rows (arg) i32` for a type tritonscope assumed (no value anywhere), as it lists one the
    user gave; `list` and dump's header say it was assumed. A value the user sets is theirs."""

    async def scenario():
        masked = str(ROOT / "tests" / "kernels" / "masked_2d.py")
        request = make_request(masked, "sm90", constexprs=("BLOCK_R=32", "BLOCK_C=32"))
        async with opened(request, size=(100, 30), compiles=warm) as (app, pilot):
            await pilot.press("v")
            lines = screen(app)
            guessed = (("rows (argument)", "i32 (assumed: enter gives a value)"), ("src_ptr (argument)", "(inferred"))
            for label, said in guessed:
                assert any(label in row and said in row for row in lines), "\n".join(lines)
            await pilot.press("down", "down", "down", "down", "enter", *"4096", "enter")  # rows: the user's
            assert not any("rows (argument)" in row and "assumed" in row for row in screen(app)), "\n".join(screen(app))
            await settled(app, pilot)

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_keys_box_keeps_each_key_apart_from_its_meaning(size, warm):  # noqa: F811
    async def scenario():
        async with opened(VariantRequest(file="sample:vector_add", target="sm90"), size=size, compiles=warm) as (
            app,
            pilot,
        ):
            await pilot.press("colon", "2", "1", "enter", "plus")  # tl.load's line; a stage pane more
            added = pane(app, "stage-0")
            assert added.display and added.linked and added.content.title != pane(app, "stage-1").content.title
            await pilot.press("question_mark")
            _keys_apart(app)
            box = app.screen.query_one("#help")
            if box.max_scroll_y:  # taller than the screen: G, g, j and k move in it as in the panes
                await pilot.press("G")
                assert box.scroll_y == box.max_scroll_y
                await pilot.press("k", "g")
                assert box.scroll_y == 0

    asyncio.run(scenario())


def _keys_apart(app) -> None:
    """In the keys box, each key's meaning starts two columns after the longest keys at least, and a
    meaning wrapped goes on beneath its start, the keys' column left blank."""
    box, lines = app.screen.query_one("#help").region, screen(app)
    inner = [line[box.x + 1 : box.right - 2] for line in lines[box.y + 1 : box.bottom - 1]]
    column = max(len(keys) for keys, _ in KEYS) + 2
    seen = 0
    for keys, meaning in KEYS:
        rows = [i for i, row in enumerate(inner) if row.startswith(keys + "  ")]
        if not rows:
            continue
        row = rows[0]
        assert inner[row][column:].startswith(meaning.split()[0]), inner[row]
        seen += 1
        for after in inner[row + 1 :]:
            if not after[:column].isspace() or not after.strip():
                break
            assert after[column : column + 1] != " ", after  # a meaning going on, from its column
    assert seen >= 8, "\n".join(inner)


def _vector_add_copy(tmp_path) -> tuple:
    """The vector_add sample copied where a test saves over it: the file, and its text as it was."""
    kernel = tmp_path / "add.py"
    shutil.copy(ROOT / "sample_kernels" / "vector_add.py", kernel)
    return kernel, kernel.read_text()


async def _saved_broken(app, pilot, kernel, text: str) -> None:
    """TEXT saved over the watched kernel file, and the explorer's compile of it failed."""
    kernel.write_text(text)
    await until(pilot, lambda: app.session.failure is not None)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_bad_save_keeps_the_panes_their_width_and_shows_the_file_saved(size, tmp_path, warm):  # noqa: F811
    """A save that moves the kernel's lines and breaks one: the error beneath the panes, which keep
    their width, and the source pane shows the file as saved, on the line the error names."""
    kernel, good = _vector_add_copy(tmp_path)
    bad = good.replace("    output = x + y", "    # two lines more above the error\n    z = x\n    output = z + oops")
    bad_line = next(n for n, text in enumerate(bad.splitlines(), 1) if "z + oops" in text)

    async def scenario():
        async with opened(VariantRequest(file=str(kernel), target="sm90"), size=size, watch=True, compiles=warm) as (
            app,
            pilot,
        ):
            await settled(app, pilot)
            await _saved_broken(app, pilot, kernel, bad)
            source, stage, error = pane(app, "source"), pane(app, "stage-0"), app.query_one("#error")
            width = size[0] - side(size[0])
            assert app.query_one("#code").region.width == width and error.region.width == width
            assert error.region.y >= max(source.region.bottom, stage.region.bottom)
            panes = [p for p in app.query(CodePane) if p.display]
            if size[0] >= 120:  # side by side, each its share
                assert sum(p.region.width for p in panes) == width and min(p.region.width for p in panes) >= 40
            else:
                assert all(p.region.width == width for p in panes)
            assert f"{kernel}:{bad_line}:" in error.render().plain and stage.stale
            assert source.number == bad_line and "output = z + oops" in source.row_text(source.cursor)
            assert source.cursor in source.visible_rows()
            assert app.main.side.detail.said == ""  # not the last good variant's line (`output = x + y`)
            drawn_as_it_holds(app, source)

    asyncio.run(scenario())


def test_a_resize_in_the_error_state_draws_every_pane_at_its_new_width(tmp_path, warm):  # noqa: F811
    kernel, good = _vector_add_copy(tmp_path)

    async def scenario():
        request = VariantRequest(file=str(kernel), target="sm90")
        async with opened(request, size=SIZES[1], watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            await _saved_broken(app, pilot, kernel, good.replace("output = x + y", "output = x + oops"))
            for size in (SIZES[0], SIZES[2], SIZES[1]):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                for p in app.query(CodePane):
                    if p.display:
                        drawn_as_it_holds(app, p)

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_every_finding_has_a_row(size, warm):  # noqa: F811
    """The panel (`r` at 80 columns, beside the panes from 120) lists every finding of matmul, and `f`
    picks them where they can be read."""

    async def scenario():
        async with opened(MATMUL, size=size, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            findings = app.session.shown.explained.findings
            assert len(findings) >= 3
            if size[0] < 120:
                await pilot.press("r")
            box = app.query_one("#findings").region
            assert box.height - 2 >= len(findings), box
            await pilot.press("f", "down")
            lines = screen(app)
            inside = [line[box.x : box.right] for line in lines[box.y : box.bottom]]
            for f in findings:
                said = f"line {f.line}: {f.kind}" if f.line is not None else f"kernel: {f.kind}"
                assert any(said in row for row in inside), "\n".join(inside)
            detail = app.query_one("#detail")
            assert detail.region.height and findings[1].message.split()[0] in "".join(lines[detail.region.y :])

    asyncio.run(scenario())


def test_the_explorer_s_look_ships_with_the_package():
    """The CSS is a file of its own (explorer.tcss), named in the package data: an installed copy has it."""
    import tomllib

    from tritonscope.explorer.app import ExplorerApp

    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tritonscope"]
    assert ExplorerApp.CSS_PATH == "explorer.tcss" and "explorer/explorer.tcss" in shipped
    look = (ROOT / "tritonscope" / "explorer" / "explorer.tcss").read_text()
    assert "#findings" in look and "CodePane > .code--cursor" in look


def test_findings_take_j_and_k_and_a_stage_panes_cursor_is_on_its_linked_lines(warm):  # noqa: F811
    """`f` highlights the first finding and its detail shows whole (evidence, what to try), j and k
    move as the keys box says; a stage pane scrolled to the selected line's code has its cursor
    there, so a key in it moves on from there (it moved from the pane's first line, scrolling back
    to the top, which read as the pane losing its place)."""

    async def scenario():
        async with opened(MATMUL, size=(160, 45), compiles=warm) as (app, pilot):
            await pilot.press("colon", "3", "5", "enter")
            await pilot.pause()
            sass = next(p for p in app.query(CodePane) if p.id != "source" and "SASS" in p.border_title)
            linked = sorted(sass._rows[n] for n in sass.linked)
            assert linked and sass.cursor == linked[0] and sass.scroll_y <= sass.cursor
            sass.focus()
            await pilot.press("j")
            await pilot.pause()
            assert sass.cursor == linked[0] + 1 and sass.scroll_y > 0
            await pilot.press("f")
            await pilot.pause()
            findings = app.main.side.findings
            assert app.focused is findings and findings.highlighted == 0
            detail = str(app.main.side.detail.said)
            assert "evidence:" in detail and "try:" in detail
            shown = "\n".join(screen(app))
            assert "evidence:" in shown and "try:" in shown  # on screen: the detail has the rows
            await pilot.press("j")
            assert findings.highlighted == 1
            await pilot.press("k")
            assert findings.highlighted == 0

    asyncio.run(scenario())


def test_a_narrower_window_takes_stage_panes_away_and_a_wider_gives_them_back(warm):  # noqa: F811
    """Three stage panes at 200 columns, the window then 120 wide: side by side, each pane would be 20
    columns, its 18-column gutter and 2 of code; the source keeps room to be read, and the panes taken
    come back at 200."""

    async def scenario():
        async with opened(MATMUL, size=(200, 50), compiles=warm) as (app, pilot):
            await settled(app, pilot)
            await pilot.press("plus")  # a third stage pane
            await pilot.pause()
            code = app.query_one("#code")
            three = code.stages
            assert len(three) == 3
            await pilot.resize_terminal(120, 30)
            await pilot.pause()
            assert Stage.SASS in three and code.stages == (Stage.SASS,)  # the machine code kept, wherever it was
            assert pane(app, "source").region.width >= 34  # its gutter and 16 columns of code, at least
            await pilot.resize_terminal(200, 50)
            await pilot.pause()
            assert code.stages == three

    asyncio.run(scenario())


def test_a_window_opened_narrow_and_made_wide_shows_what_one_opened_wide_shows(warm):  # noqa: F811
    """Opened at 80 columns (SASS alone, stacked) and made 200 wide, it kept one stage pane where a
    window opened at 200 shows TTGIR beside SASS (h19e); `+` past what the width holds is refused, in
    words that say the width it needs (it left the source pane all gutter)."""

    async def scenario():
        async with opened(MATMUL, size=(80, 24), compiles=warm) as (app, pilot):
            await settled(app, pilot)
            code = app.query_one("#code")
            assert code.stages == (Stage.SASS,)
            await pilot.resize_terminal(200, 50)
            await pilot.pause()
            assert code.stages == (Stage.TTGIR, Stage.SASS)
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert code.stages == (Stage.SASS,)
            await pilot.press("plus")
            await pilot.pause()
            assert code.stages == (Stage.SASS,)
            said = str(app.main.status_line.said)
            assert said.startswith("2 stage panes need ") and "(this window has 120)" in said, said
            assert pane(app, "source").region.width >= 34
            await pilot.resize_terminal(80, 24)  # the window it spoke of is gone: so is what it said (h24b)
            await pilot.pause()
            assert "this window has" not in str(app.main.status_line.said)

    asyncio.run(scenario())


def test_at_80_columns_a_findings_advice_is_on_screen_and_the_rest_scrolls(warm):  # noqa: F811
    """At 80x24 the finding's detail stopped mid-sentence (`... passed to the kernel, or`), its `try:` lost:
    what to try comes before the evidence, and a detail longer than its place scrolls."""

    async def scenario():
        async with opened(MATMUL, size=(80, 24), compiles=warm) as (app, pilot):
            await settled(app, pilot)
            await pilot.press("r", "f")
            await pilot.pause()
            detail = app.main.side.detail
            said = str(detail.said)
            assert said.index("try:") < said.index("evidence:")
            assert "try:" in "\n".join(screen(app))
            assert detail.virtual_size.height <= detail.region.height or detail.max_scroll_y > 0

    asyncio.run(scenario())


def test_s_never_shows_a_stage_twice_and_c_says_where_the_control_codes_show(warm):  # noqa: F811
    """`s` cycled a pane onto the stage its neighbour shows (two PTX panes); `c` with no SASS pane said
    the codes were on and nothing changed on screen."""

    async def scenario():
        async with opened(MATMUL, size=(200, 50), compiles=warm) as (app, pilot):
            await settled(app, pilot)
            code = app.query_one("#code")
            assert code.stages == (Stage.TTGIR, Stage.SASS)
            first = next(p for p in app.query(CodePane) if p.id == "stage-0")
            first.focus()
            seen = []
            for _ in range(len(code.result.stages) + 1):
                await pilot.press("s")
                await pilot.pause()
                seen.append(code.stages)
            assert all(len(set(stages)) == len(stages) for stages in seen), seen
            assert {stages[0] for stages in seen} == set(code.result.stages) - {Stage.SASS}
            app.query_one("#stage-1", CodePane).focus()
            await pilot.press("s")  # the SASS pane onto another stage: no SASS shown
            await pilot.pause()
            assert Stage.SASS not in code.stages
            await pilot.press("c")
            await pilot.pause()
            assert "they show in a SASS pane" in str(app.main.status_line.said)

    asyncio.run(scenario())


def test_a_save_that_fixes_a_failed_compile_scrolls_the_stages_to_the_selected_line(tmp_path, warm):  # noqa: F811
    """The error's line selected, then a fix saved that changes the code: the new SASS arrives after
    the placeholders shown while ptxas and nvdisasm run (no rows), and is scrolled to the line's
    instructions, not left at its first row."""
    kernel, good = _vector_add_copy(tmp_path)

    async def scenario():
        request = VariantRequest(file=str(kernel), target="sm90")
        async with opened(request, size=SIZES[1], watch=True, compiles=warm) as (app, pilot):
            await settled(app, pilot)
            await _saved_broken(app, pilot, kernel, good.replace("output = x + y", "output = x + oops"))
            stage = pane(app, "stage-0")
            line = app.session.line
            kernel.write_text(good.replace("output = x + y", "output = x * y + 1.0"))
            await until(pilot, lambda: app.session.failure is None and app.session.shown.unread is None)
            await settled(app, pilot)
            await pilot.pause()
            assert app.session.line == line and stage.linked
            assert stage.cursor in stage.visible_rows(), (stage.cursor, stage.scroll_y)
            drawn_as_it_holds(app, stage)

    asyncio.run(scenario())


def test_the_panel_at_80_columns_takes_the_width_and_cuts_no_figure(warm):  # noqa: F811
    """`r` at 80x24: the panel was 72 columns wide (its wide-screen cap), the occupancy's meaning cut
    with `…`, and `1,040 B (1.016 KiB)` pushed its unit out of line with the other figures'."""

    async def scenario():
        async with opened(VariantRequest(file="sample:softmax", target="sm90"), size=(80, 24), compiles=warm) as (
            app,
            pilot,
        ):
            await settled(app, pilot)
            await pilot.press("r")
            await pilot.pause()
            assert app.query_one("#findings").region.width == 80
            box = app.query_one("#resources").region
            rows = screen(app)[box.y : box.bottom]
            assert not any("…" in row for row in rows), "\n".join(rows)
            meanings = {m.end() - 1 for row in rows if (m := re.compile(r"\S  \S").search(row, 15))}
            assert len(meanings) == 1, "\n".join(rows)  # every figure's meaning starts in one column
            assert any("limited" in row for row in rows) and any(row.strip() == "by warps" for row in rows)

    asyncio.run(scenario())


def test_the_pass_list_at_80_columns_keeps_a_pass_a_row(warm):  # noqa: F811
    """`p` at 80 columns: the pipeline's list was 30 columns wide, and `triton-rewrite-tensor-pointer`
    was split over two rows (`...-po` / `inter`), read as two passes; then cut at its end, 15 passes
    were `tritong…`. Each pass is one row, its counts first and its name cut in the middle where it
    is longer, in a list of half the screen; a resize to 200 puts before and after side by side."""

    async def scenario():
        async with opened(MATMUL, size=(80, 24), compiles=warm) as (app, pilot):
            await settled(app, pilot)
            await pilot.press("p")
            await until(pilot, lambda: bool(app.screen.query("#pipeline")), seconds=120)
            await pilot.pause()
            box = app.screen.query_one("#pipeline").region
            rows = [line[box.x + 1 : box.right - 1] for line in screen(app)[box.y + 1 : box.bottom - 1]]
            assert rows and all(re.match(r"\s*\d+ (\+\d+ -\d+|\?|) *\S", row) for row in rows if row.strip()), rows
            assert any(re.match(r"\s*\d+ \+\d+ -\d+ +\S", row) for row in rows), rows  # the counts whole, first
            assert box.width == 40, box  # half the screen: cut to 30, `tritong…` stood for 15 passes
            shown = [row.split()[-1] for row in rows if re.match(r"\s*\d+ ", row)]
            assert shown and all(name.count("…") <= 1 and not name.endswith("…") for name in shown), shown
            pipeline = app.screen.query_one("#pipeline")
            names = [str(pipeline.get_option_at_index(i).prompt).split()[-1] for i in range(pipeline.option_count)]
            cut = [name for name in names if "…" in name]
            assert cut and all(len(name.split("…")[1]) >= 5 for name in cut), names  # both ends kept
            assert "tritongpu-coalesce" in names, names
            assert any(n.startswith("tritong") and n.endswith("onversions#2") for n in names), names
            # opened narrow, made wide: before and after side by side (they stayed stacked, 170 columns each)
            await pilot.resize_terminal(200, 50)
            await pilot.pause()
            before, after = (app.screen.query_one(f"#{side}").region for side in ("before", "after"))
            assert before.y == after.y and before.right <= after.x, (before, after)

    asyncio.run(scenario())


def test_the_widths_the_docs_give_for_two_and_three_stage_panes_are_the_explorers():
    """docs/explore.md said three panes need 200 columns and two 160, where `+` refused two below 145 and
    took them from 145 (h24b): the docs' figures are the explorer's own rule."""
    from tritonscope.explorer.main import columns_for, room

    said = re.search(r"three need (\d+) columns, two (\d+)\)", (ROOT / "docs" / "explore.md").read_text())
    assert said, "docs/explore.md no longer says the widths"
    assert (int(said.group(1)), int(said.group(2))) == (columns_for(3), columns_for(2))
    assert room(columns_for(2) - 1) // 34 - 1 < 2 <= room(columns_for(2)) // 34 - 1
