"""The explorer's speed (issue 39), as ratios measured in one run.

1. First full screen: `tritonscope explore KERNEL` in a real pseudo-terminal (160x48), from the
   command's start to the screen holding the kernel (its status line drawn), against a bare script
   that imports Triton and makes the same `triton.compile` call; both with Triton's cache cold (a
   fresh folder each run), tritonscope's user cache as after its first use. Target: at most 1.3x.
2. A cursor move in the source pane with every stage open (the three largest stages' panes and the
   source, fused attention): the time to re-highlight every pane, that is the app's handling of
   the move and the drawing of every visible row of every pane, and the same through Textual's own
   loop (a key sent as a terminal sends it, to the frame composed). Median and worst case.
   Target: at most 50 ms.
3. A changed constexpr: from the key to its stages on screen, against the bare compile of that
   variant in a process that has imported Triton and compiled the kernel's first variant. One
   change per run, each a new variant (BLOCK_SIZE_N 64, 32, 16, 256, then BLOCK_SIZE_K), the next
   asked once the one before has settled; the whole sequence made by R fresh explorers in turn
   (`--rounds`, Triton's cache cold in each), each variant's median time against the median of
   its bare compiles (one compile may take 1.5x the next on a shared machine); the median and
   the worst of these ratios. Then one change of the
   cursor-move kernel (fused attention), whose ptxas takes a larger share. The stages on screen
   are TTIR to PTX, all of them painted: each shows as Triton makes the next, the PTX while ptxas
   makes the binary, whose registers and SASS follow.
   Target: at most 1.2x. Beside it, the CPU seconds the explorer's main thread spends on the
   screen's updates meanwhile, and how many of them were layout passes (each draws every widget).
4. A variant seen before (`b`): from the key to its stages on screen. Target: at most 100 ms.

Run: python benchmarks/explore.py [--runs N] [--rounds R] [--kernel sample:matmul]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time

BARE = """
import importlib.util, json, sys, time
started = time.perf_counter()
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend

spec = json.loads(sys.argv[1])
loaded = importlib.util.spec_from_file_location("kernel", spec["file"])
module = importlib.util.module_from_spec(loaded)
loaded.loader.exec_module(module)
kernel = getattr(module, spec["kernel"])
target = GPUTarget("cuda", spec["arch"], 32)
backend = make_backend(target)
for variant in spec["variants"]:
    params = list(variant["signature"])
    attrs = {(params.index(n),): backend.parse_attr(h) for n, h in variant["hints"].items() if h}
    source = ASTSource(kernel, variant["signature"], variant["constants"], attrs)
    began = time.perf_counter()
    triton.compile(source, target=target, options=variant["options"])
    print(json.dumps({"compile": time.perf_counter() - began, "since_start": time.perf_counter() - started}))
"""


def bare_spec(request, changes: list) -> dict:
    """What the bare script compiles: the request as tritonscope specializes it, then each change."""
    from tritonscope.app.walk.prepare import prepare

    variants = []
    for made in [request, *changes]:
        prepared = prepare(made)
        v = prepared.variant
        constants = dict(v.constexprs)
        constants |= {n: v.arguments[n] for n, t in v.signature.items() if t == "constexpr" and n not in constants}
        variants.append({"signature": v.signature, "constants": constants, "hints": v.hints, "options": v.options})
    return {"file": prepared.kernel.spec.file, "kernel": prepared.kernel.spec.name, "arch": 90, "variants": variants}


def run_bare(spec: dict, env: dict) -> list[dict]:
    """The bare script's timings (cold cache): per variant, its compile, and the time since start."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BARE, json.dumps(spec)], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    timings = [json.loads(line) for line in done.stdout.splitlines()]
    timings[0]["wall"] = wall - (timings[-1]["since_start"] - timings[0]["since_start"]) if len(timings) > 1 else wall
    return timings


def first_screen(kernel: str, env: dict) -> float:
    """Seconds from `tritonscope explore` started in a 160x48 pseudo-terminal to its first full screen."""
    import fcntl
    import struct
    import termios

    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    started = time.perf_counter()
    words = [sys.executable, "-m", "tritonscope", "explore", kernel, "--target", "sm90", "--no-watch"]
    process = subprocess.Popen(words, stdin=child, stdout=child, stderr=child, env=env, close_fds=True)
    os.close(child)
    seen, drawn = b"", None
    while drawn is None and time.perf_counter() - started < 600:
        if select.select([main], [], [], 0.05)[0]:
            try:
                seen += os.read(main, 65536)
            except OSError:
                break
            if b"opened:" in seen:
                drawn = time.perf_counter() - started
    os.write(main, b"q")
    try:
        while process.poll() is None:  # its output read to the end: a full pty would block its exit
            if select.select([main], [], [], 0.1)[0]:
                try:
                    os.read(main, 65536)
                except OSError:
                    break
        process.wait(60)
    finally:
        os.close(main)
    if drawn is None:
        raise SystemExit(f"the explorer never drew its screen:\n{seen[-2000:].decode(errors='replace')}")
    return drawn


async def in_app(kernel: str, changes: list[tuple[str, int]], bare_of=None) -> dict:
    """Cursor moves, changed constexprs (one after the other, each a new variant), a variant seen
    before: timed in one explorer (headless). `bare_of(change)`: the bare compile of that variant,
    run just before it, so that each ratio is of two neighbouring measurements."""
    from tritonscope import explorer
    from tritonscope.core.model import VariantRequest
    from tritonscope.explorer.app import ExplorerApp

    request = VariantRequest(file=kernel, target="sm90")
    opening = explorer.start(request)
    first = await asyncio.to_thread(opening.first)
    app = ExplorerApp(opening.compiles, request, first, watch=False)
    changed, bares, paints = [], [], []
    try:
        async with app.run_test(size=(240, 60)) as pilot:
            await pilot.pause()
            moves = await _cursor_moves(app, pilot)
            for change in changes:
                if bare_of is not None:
                    bares.append(await asyncio.to_thread(bare_of, change))
                ask = request.with_value(*change, constexpr=True)
                painted = _Painting(app.main)
                changed.append(await _timed_until(app, pilot, lambda ask=ask: app.ask(ask)))
                paints.append(painted.done())
                await _settled(app, pilot)
            back = await _timed_until(app, pilot, lambda: app.action_previous_variant(), back=True)
    finally:
        opening.compiles.close()
    return {**moves, "changed": changed, "bares": bares, "back": back, "paints": paints}


class _Painting:
    """The main screen's updates (layout and paint) from a key to its stages on screen: the CPU seconds
    of the explorer's main thread they took, and how many were layout passes. A loaded machine
    stretches the wall time, not this work."""

    def __init__(self, screen):
        self.screen, self.seconds, self.layouts = screen, 0.0, 0
        self._update = screen._on_timer_update

        def timed() -> None:
            self.layouts += bool(screen._layout_required)
            began = time.thread_time()
            self._update()
            self.seconds += time.thread_time() - began

        screen._on_timer_update = timed

    def done(self) -> tuple[float, int]:
        self.screen._on_timer_update = self._update
        return self.seconds, self.layouts


async def _cursor_moves(app, pilot) -> dict:
    """Every stage open (the three largest stages' panes), the cursor moved down the kernel's lines:
    each move timed twice: calling the app and drawing every visible row (direct), and as a key
    sent to Textual, from the key to the frame composed with every pane's rows drawn (through)."""
    from textual import events

    result = app.session.shown
    main = app.main
    main.code.stages = tuple(sorted(result.stages, key=lambda s: len(result.listings[s]))[-3:])
    await pilot.pause()
    source = app.query_one("#source")
    source.go_to_number(result.compilation.kernel.line)
    panes = list(app.query("CodePane"))
    stages = [pane for pane in panes if pane is not source]
    last = max(n for n in result.file_lines if any(pane.content.numbers(n) for pane in stages))
    selected: list[int] = []  # for each move of the source's cursor: the frames sent before it
    painted: list[float] = []  # when each frame was sent to the terminal
    select, display = main.select, app._display

    def timed_select(line, moved) -> None:
        select(line, moved)
        if moved is source:  # not a result's follow-up, which selects the line again
            selected.append(len(painted))

    def timed_display(screen, renderable) -> None:  # before what waits for the frame (call_after_refresh)
        painted.append(time.perf_counter())
        display(screen, renderable)

    main.select, app._display = timed_select, timed_display
    direct, through = [], []
    for _ in range(60):
        if source.number + 2 > last:  # past the kernel's last line that became code: back to its first
            source.go_to_number(result.compilation.kernel.line)
            await pilot.pause()
        began = time.perf_counter()
        source.action_move(1)
        main.select(source.number, source)
        for pane in panes:
            for y in range(pane.scrollable_content_region.height):
                pane.render_line(y)
        direct.append(time.perf_counter() - began)
        await pilot.pause()
        count, row = len(selected), source.cursor
        began = time.perf_counter()
        app._driver.send_message(events.Key("j", "j"))  # as a terminal's key arrives
        while source.cursor == row:
            await asyncio.sleep(0.0005)
        while len(selected) == count and source.content.python_lines(source.number):  # the line selected
            await asyncio.sleep(0.0005)
        frames = selected[-1] if len(selected) > count else len(painted)
        if len(painted) == frames:
            app.screen._on_timer_update()  # the frame composed and sent now (at Textual's next frame otherwise)
        through.append((painted[frames] if len(painted) > frames else time.perf_counter()) - began)
        await pilot.pause()
    main.select, app._display = select, display
    lines = {s.value: len(result.listings[s]) for s in main.code.stages}
    return {"direct": direct, "through": through, "lines": lines}


async def _settled(app, pilot) -> None:
    """The variant's follow-ups (its SASS, its live registers) done, as when a person reads the screen
    before the next key."""

    def settled() -> bool:
        shown = app.session.shown
        return not app.compiling and shown.unread is None and bool(shown.explained.live_registers)

    while not settled():
        await pilot.pause(0.05)
    await pilot.pause(1.0)  # the spare worker started again, and its first compile done


async def _timed_until(app, pilot, act, back: bool = False) -> float:
    """Seconds from `act` (a key's action) to its variant's stages on screen: every stage before the
    binary shown (those Triton made first show sooner), and painted (the registers live per line,
    read by another nvdisasm run, come after them)."""
    before = app.session.shown
    began = time.perf_counter()
    act()
    while app.session.shown is before or app.session.shown.partial:
        await asyncio.sleep(0.002)  # the app's loop runs meanwhile (a pilot's pause would wait for it to idle)
    app.screen._on_timer_update()  # painted now (else at the screen's next update)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="first screens timed, and constexpr changes (up to 7)")
    parser.add_argument("--rounds", type=int, default=5, help="fresh explorers making the constexpr changes")
    parser.add_argument("--kernel", default="sample:matmul")
    parser.add_argument("--moves-kernel", default="sample:fused_attention")
    args = parser.parse_args()
    from tritonscope.core.model import VariantRequest

    distinct = [("BLOCK_SIZE_N", n) for n in (64, 32, 16, 256)] + [("BLOCK_SIZE_K", k) for k in (16, 128, 256)]
    changes = distinct[: max(args.runs, 1)]  # each a variant not seen before
    base = VariantRequest(file=args.kernel, target="sm90")
    spec = bare_spec(base, [])
    firsts, bares = [], []
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "XDG_CACHE_HOME": home}
        subprocess.run([sys.executable, "-m", "tritonscope", "dump", "sample:vector_add", "--json"], env=env,
                       capture_output=True, check=True)  # fmt: skip  # tritonscope's user cache as after first use
        for _ in range(args.runs):  # in turns, each with Triton's cache cold
            with tempfile.TemporaryDirectory() as cache:
                bares.append(run_bare(spec, {**env, "TRITON_CACHE_DIR": cache})[0]["wall"])
            with tempfile.TemporaryDirectory() as cache:
                firsts.append(first_screen(args.kernel, {**env, "TRITON_CACHE_DIR": cache}))

        def bare_of(kernel: str):
            """The bare compile of a change of `kernel`, after its first variant, in a cold cache of its own."""
            request = VariantRequest(file=kernel, target="sm90")

            def compile_time(change) -> float:
                variants = bare_spec(request, [request.with_value(*change, constexpr=True)])
                with tempfile.TemporaryDirectory() as cache:
                    return run_bare(variants, {**env, "TRITON_CACHE_DIR": cache})[1]["compile"]

            return compile_time

        with tempfile.TemporaryDirectory() as cache:
            os.environ.update(XDG_CACHE_HOME=home, TRITON_CACHE_DIR=cache)
            large = [("BLOCK_N", 32)]  # fused attention: ptxas takes a larger share
            moves = asyncio.run(in_app(args.moves_kernel, large, bare_of(args.moves_kernel)))
        rounds = []
        for _ in range(args.rounds):  # each a fresh explorer, Triton's cache cold: every change compiles
            with tempfile.TemporaryDirectory() as cache:
                os.environ.update(XDG_CACHE_HOME=home, TRITON_CACHE_DIR=cache)
                rounds.append(asyncio.run(in_app(args.kernel, changes, bare_of(args.kernel))))
    _report(args, firsts, bares, moves, rounds, changes, large)


def _report(args, firsts, bares, moves, rounds, changes, large) -> None:
    ms = [1000 * t for t in moves["direct"]]
    loop = [1000 * t for t in moves["through"]]
    first, bare = statistics.median(firsts), statistics.median(bares)
    print(f"1. first full screen of {args.kernel}, cold (median of {args.runs}): explore {first:.2f} s, "
          f"bare triton.compile {bare:.2f} s: {first / bare:.2f}x (target <= 1.3x)")  # fmt: skip
    print(f"   runs: explore {', '.join(f'{t:.2f}' for t in firsts)}; bare {', '.join(f'{t:.2f}' for t in bares)}")
    print(f"2. cursor move on {args.moves_kernel}, panes {moves['lines']} + source: re-highlight every pane "
          f"median {statistics.median(ms):.1f} ms, worst {max(ms):.1f} ms (target <= 50 ms); through Textual's "
          f"loop (key to frame) median {statistics.median(loop):.1f} ms, worst {max(loop):.1f} ms")  # fmt: skip
    shown = [statistics.median(r["changed"][i] for r in rounds) for i in range(len(changes))]
    bare_compiles = [statistics.median(r["bares"][i] for r in rounds) for i in range(len(changes))]
    ratios = [s / b for s, b in zip(shown, bare_compiles, strict=True)]
    print(f"3. changed constexpr on {args.kernel}, each variant's median of {len(rounds)} rounds against the median "
          f"of its bare compiles (each just before it): median {statistics.median(ratios):.2f}x, worst "
          f"{max(ratios):.2f}x (target <= 1.2x)")  # fmt: skip
    for index, (name, value) in enumerate(changes):
        each = ", ".join(f"{r['changed'][index]:.2f}/{r['bares'][index]:.2f}" for r in rounds)
        print(f"   {args.kernel} {name}={value}: stages on screen in {shown[index]:.2f} s, bare compile "
              f"{bare_compiles[index]:.2f} s: {ratios[index]:.2f}x (rounds: {each})")  # fmt: skip
    for (name, value), on_screen, bare in zip(large, moves["changed"], moves["bares"], strict=True):
        print(f"   {args.moves_kernel} {name}={value} (one round): stages on screen in {on_screen:.2f} s, bare "
              f"compile {bare:.2f} s: {on_screen / bare:.2f}x")  # fmt: skip
    paints = [paint for r in rounds for paint in r["paints"]]
    cpu = [1000 * p[0] for p in paints]
    print(f"   painting them, the explorer's main thread (CPU): median {statistics.median(cpu):.0f} ms, worst "
          f"{max(cpu):.0f} ms; layout passes: median {statistics.median(p[1] for p in paints):.0f}, "
          f"most {max(p[1] for p in paints)}")  # fmt: skip
    back = statistics.median(r["back"] for r in rounds)
    print(f"4. a variant seen before: on screen in {1000 * back:.0f} ms, median of {len(rounds)} (target <= 100 ms)")


if __name__ == "__main__":
    main()
