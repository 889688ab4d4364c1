"""The explorer under a real terminal: tmux runs `tritonscope explore` as a user would, send-keys
types, capture-pane reads the screen; and quitting (q, Ctrl-C, SIGTERM) leaves the terminal as it
was: the shell's screen back, its modes sane."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Terminal:
    """An 80x24 terminal of a tmux server of its own, running bash."""

    def __init__(self, name: str):
        self.socket = f"tritonscope-test-{os.getpid()}-{name}"
        self.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "t", "bash --norc --noprofile")
        self.tmux("set-option", "-t", "t", "status", "off")
        self.type(f"cd {shlex.quote(str(ROOT))} && PS1='$ ' && clear", "Enter")

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        return done.stdout

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def screen(self, colours: bool = False) -> str:
        return self.tmux("capture-pane", "-p", *(["-e"] if colours else []), "-t", "t")

    def wait_for(self, text: str, seconds: float = 180) -> str:
        deadline = time.monotonic() + seconds
        while text not in (shown := self.screen()):
            assert time.monotonic() < deadline, f"{text!r} never showed; the screen:\n{shown}"
            time.sleep(0.2)
        return shown

    def program(self) -> int:
        """The pid of the program bash runs in the foreground."""
        shell = int(self.tmux("list-panes", "-t", "t", "-F", "#{pane_pid}").split()[0])
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        return int(children[0])

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def terminal(request):
    made = Terminal(request.node.name[-20:].replace("[", "").replace("]", ""))
    yield made
    made.close()


EXPLORE = f"{shlex.quote(sys.executable)} -m tritonscope explore sample:vector_add --target sm90"


def _sane(terminal: Terminal, code: int) -> None:
    """The program ended with `code`, the shell's screen is back (not the explorer's), and the
    terminal's modes are the shell's again (line editing and echo on)."""
    shown = terminal.wait_for(f"exit={code}")
    assert "explore sample:vector_add" in shown and "add_kernel ·" not in shown
    terminal.type("stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\\n' ' '; echo", "Enter")
    modes = terminal.wait_for("icanon", 30)
    assert "-icanon" not in modes and "-echo " not in modes and "-isig" not in modes, modes


def test_the_explorer_in_a_real_terminal_links_panes_and_quits_cleanly(terminal):
    terminal.type(f"{EXPLORE}; echo exit=$?", "Enter")
    shown = terminal.wait_for("SASS")
    assert "add_kernel · sm90" in shown and "opened: BLOCK_SIZE=1024" in shown
    assert all(len(line) <= 80 for line in shown.splitlines())
    terminal.wait_for("SASS  (", 120)  # the SASS read (nvdisasm), after the first screen: its title counts lines
    for attempt in range(2):  # keys typed while the first screen still settles may be dropped (CI, loaded)
        terminal.type(":", "21", "Enter")  # x = tl.load(...)
        try:
            terminal.wait_for("21     8", 20)
            break
        except AssertionError:
            if attempt:
                raise
            terminal.type("Escape")  # a prompt the first keys left open, closed before they are typed again
    time.sleep(0.5)
    backgrounds = {}  # the SASS rows' addresses -> the background drawn behind their code
    for line in terminal.screen(colours=True).splitlines():
        found = re.search(r"/\*(00[0-9a-f]0)\*/", line)
        if found:
            backgrounds[found[1]] = set(re.findall(r"48;[0-9;]+m", line[: found.start()]))
    plain = backgrounds["0000"]  # LDC R1: not line 21's
    assert backgrounds["0020"] != plain and backgrounds["0040"] != plain, backgrounds  # LDC.64, CS2R: line 21's
    terminal.type("Tab", "/", "LDG.E", "Enter")  # the SASS pane: the first global load
    shown = terminal.wait_for("LDG.E", 30)
    assert "x = tl.load(x_ptr + offsets" in shown  # the source followed to the load's line
    terminal.type("q")
    _sane(terminal, 0)


def test_ctrl_c_and_sigterm_leave_the_terminal_as_it_was(terminal):
    terminal.type(f"{EXPLORE}; echo exit=$?", "Enter")
    terminal.wait_for("SASS")
    terminal.type("C-c")
    _sane(terminal, 130)
    terminal.type("clear", "Enter")
    terminal.type(f"{EXPLORE}; echo exit=$?", "Enter")
    terminal.wait_for("SASS")
    os.kill(terminal.program(), signal.SIGTERM)
    _sane(terminal, 143)


def test_a_file_that_is_not_a_kernel_is_said_before_any_screen(terminal):
    terminal.type(
        f"{shlex.quote(sys.executable)} -m tritonscope explore tests/kernels/no_kernels.py; echo exit=$?", "Enter"
    )
    shown = terminal.wait_for("exit=2", 120)
    assert "error:" in shown and "no_kernels.py" in shown
    assert "SASS" not in shown and "Traceback" not in shown
