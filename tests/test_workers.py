"""The worker pool (isolate.py): a warmed worker imports the module its tasks will call before the
first task comes, so its start-up overlaps the parent's work."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tritonscope.isolate import Program, Task, Workers


def _probe_module(folder, name: str) -> None:
    """A module whose import leaves a file behind: proof that it was imported, and when."""
    (folder / f"{name}.py").write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(folder)!r}, 'imported').write_text(' '.join(sorted(sys.modules)))\n"
        "def loaded(name):\n"
        "    return name in sys.modules\n"
    )


def test_a_warmed_worker_imports_its_module_before_any_task(tmp_path):
    _probe_module(tmp_path, "probe_preload")
    marker = tmp_path / "imported"
    with Workers(env={"PYTHONPATH": str(tmp_path)}) as workers:
        workers.warm(preload="probe_preload")
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the warmed worker did not import its module without a task"
        # The same worker then serves the task, the module already loaded.
        assert workers.call(Task("probe_preload:loaded", ("probe_preload",))) is True


def test_a_preload_that_fails_leaves_the_worker_serving(tmp_path):
    _probe_module(tmp_path, "probe_after")
    (tmp_path / "broken_preload.py").write_text("raise RuntimeError('broken on import')\n")
    with Workers(env={"PYTHONPATH": str(tmp_path)}) as workers:
        workers.warm(preload="broken_preload")
        assert workers.call(Task("probe_after:loaded", ("broken_preload",))) is False
        outcome = workers.run([Task("broken_preload:anything")])[0]
        assert not outcome.ok and "broken on import" in outcome.error


def _counting_module(folder, name: str) -> Path:
    """A module that appends its importing process's id to a file: who imported it, and how often."""
    log = folder / "importers"
    (folder / f"{name}.py").write_text(
        f"import os\nwith open({str(log)!r}, 'a') as f:\n    f.write(f'{{os.getpid()}}\\n')\n"
        "def pid():\n    return os.getpid()\n"
    )
    return log


def test_a_pool_s_workers_share_one_import_of_their_preload(tmp_path):
    """This environment's workers are forked from one process that imported the preload (a fork
    server): the second worker costs a fork, not Python's and Triton's start-up again."""
    log = _counting_module(tmp_path, "probe_shared")
    with Workers(jobs=2, env={"PYTHONPATH": str(tmp_path)}) as workers:
        workers.warm(preload="probe_shared", count=2)
        handles = [workers.submit(Task("time:sleep", (0.5,))) for _ in range(2)]  # both busy at once
        assert all(handle.result().ok for handle in handles)
        served = {o.value for o in workers.run([Task("probe_shared:pid")] * 4)}
        importers = log.read_text().split()
    assert len(importers) == 1, f"imported by {importers}: each worker imported it again"
    assert len(served) == 2 and importers[0] not in {str(pid) for pid in served}  # by the server, not a worker


def test_a_killed_fork_server_is_replaced_and_the_next_task_served(tmp_path):
    log = _counting_module(tmp_path, "probe_again")
    with Workers(env={"PYTHONPATH": str(tmp_path)}) as workers:
        workers.warm(preload="probe_again")
        first = workers.call(Task("probe_again:pid"))
        server = workers._zygote.process
        server.kill()
        server.wait(10)
        assert _gone(first)  # its workers die with it
        second = workers.call(Task("probe_again:pid"))
        assert second != first and len(log.read_text().split()) == 2  # a new server imported it again
        replaced = workers._zygote.process
    assert _gone(replaced.pid), "closing the pool left its fork server running"


def _gone(pid: int) -> bool:
    """The process has ended (gone, or a zombie its new parent has not reaped yet)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False


def test_a_task_past_the_timeout_says_so_in_a_field():
    with Workers(timeout=1) as workers:
        outcome = workers.run([Task("time:sleep", (30,))])[0]
    assert outcome.timed_out and not outcome.ok and outcome.error.startswith("timed out after 1 s (in tritonscope")


def test_a_program_past_its_time_limit_is_stopped_with_what_it_started(tmp_path):
    marker = tmp_path / "child.pid"
    start = time.monotonic()
    with Program(["sh", "-c", f"sleep 60 & echo $! > {marker}; wait"]) as program:
        finished = program.finish(timeout=1)
    assert finished.timed_out and time.monotonic() - start < 10
    assert _gone(int(marker.read_text())) and _gone(program.process.pid)


def test_a_program_is_stopped_when_its_caller_is_interrupted():
    with pytest.raises(KeyboardInterrupt), Program(["sleep", "60"], own_group=False) as program:
        raise KeyboardInterrupt
    assert program.process.returncode == -signal.SIGTERM


def test_a_program_dies_with_its_parent_whatever_killed_it(tmp_path):
    """SIGKILL to the caller: its supervisor is told by the kernel (PR_SET_PDEATHSIG) and stops the
    program and what the program started (pip's own pip, a build backend), which no death signal
    of their own reaches."""
    marker = tmp_path / "child.pid"
    code = (
        "import time\nfrom tritonscope.isolate import Program\n"
        f"p = Program(['sh', '-c', 'sleep 60 & echo $! > {marker}; wait'])\n"
        "print(p.process.pid, flush=True)\ntime.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid = int(parent.stdout.readline())
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline, "the program did not start its child"
        time.sleep(0.05)
    grandchild = int(marker.read_text())
    parent.kill()
    parent.wait()
    assert _gone(pid) and _gone(grandchild)


def test_a_missing_program_is_said_as_the_system_says_it():
    with pytest.raises(FileNotFoundError, match="no-such-program-x"):
        Program(["no-such-program-x"])
