"""A program for `trace` that starts a program of its own (a `sleep`), says so in ./started and
waits: the signal rows of tests/test_faults.py check that its child ends with it."""

import pathlib
import subprocess
import time

subprocess.Popen(["sleep", "300"])
pathlib.Path("started").write_text("started\n")
time.sleep(300)
