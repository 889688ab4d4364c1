"""The executor package (tritonscope/isolate/): tasks named from their functions, a submitted task
cancelled for real (its process gone, the next task served), and the foreign programs' supervisor
run as the file it is."""

from __future__ import annotations

import ast
import os
import runpy
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tritonscope.app import passes
from tritonscope.app.walk import sweep
from tritonscope.app.walk.prepare import compile_request
from tritonscope.core.model import VariantRequest
from tritonscope.isolate import Cancelled, Workers, name_of, task
from tritonscope.isolate.programs import SUPERVISOR

PACKAGE = Path(__file__).resolve().parents[1] / "tritonscope"


# Tasks named from their functions


def test_a_task_is_named_from_its_function():
    request = VariantRequest(file="k.py", kernel="add")
    made = task(compile_request, request)
    assert made.function == "tritonscope.app.walk.prepare:compile_request" and made.args == (request,)
    assert made.python is None and made.files == ()
    # warmed workers preload the module the sweep's tasks name
    assert made.function.partition(":")[0] == sweep.COMPILE_MODULE
    # a decorated function is named as its module names it (in_release's wrapper: what a worker calls)
    assert task(passes.passes, request, python="/envs/py", files=("k.py",)).function == "tritonscope.app.passes:passes"
    assert task(passes.passes, request, python="/envs/py", files=("k.py",)).files == ("k.py",)
    assert task(os.getpid).function == f"{os.getpid.__module__}:getpid"


def _nested():
    def inner():
        return 1

    return inner


def test_a_function_a_worker_cannot_import_by_name_is_refused():
    for function in (lambda: 1, _nested(), Workers.run):
        with pytest.raises(ValueError, match="cannot be a task's function"):
            name_of(function)
    main = subprocess.run(
        [sys.executable, "-c", "from tritonscope.isolate import task\ndef f(): pass\ntask(f)"],
        capture_output=True,
        text=True,
    )
    assert main.returncode == 1 and "__main__.f cannot be a task's function" in main.stderr


def test_a_task_named_by_task_runs_in_a_worker():
    with Workers() as workers:
        pid = workers.call(task(os.getpid))
        assert isinstance(pid, int) and pid != os.getpid()
        assert workers.call(task(sorted, [3, 1, 2])) == [1, 2, 3]


def test_no_task_in_the_package_is_named_by_a_string():
    """Every Task(...) of tritonscope gets its name from `name_of` (through `task`), never a literal."""
    literal = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Task":
                first = node.args[0] if node.args else None
                if isinstance(first, (ast.Constant, ast.JoinedStr)):
                    literal.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not literal, f"Task named by a string (use isolate.task(function, ...)): {literal}"


def test_the_string_check_finds_a_literal_name():
    tree = ast.parse('Task("tritonscope.app.walk.prepare:compile_request", (r,))\nTask(f"{__name__}:capture")')
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [type(c.args[0]).__name__ for c in calls] == ["Constant", "JoinedStr"]


# Cancelling a submitted task


def _sleeper(folder: Path) -> tuple[Path, Path]:
    """A script that writes the pid of the process running it, then sleeps: (the script, its pid file)."""
    marker = folder / "pid"
    script = folder / "sleeper.py"
    script.write_text(f"import os, pathlib, time\npathlib.Path({str(marker)!r}).write_text(str(os.getpid()))\n")
    script.write_text(script.read_text() + "time.sleep(600)\n")
    return script, marker


def _pid_in(marker: Path) -> int:
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        assert time.monotonic() < deadline, "the task did not start"
        time.sleep(0.05)
    return int(marker.read_text())


def test_a_task_cancelled_from_another_thread_leaves_nothing_and_the_next_is_served(tmp_path):
    script, marker = _sleeper(tmp_path)
    with Workers() as workers:
        handle = workers.submit(task(runpy.run_path, str(script)))
        pid = _pid_in(marker)
        assert not handle.done()
        ended: dict = {}
        waiter = threading.Thread(target=lambda: ended.update(outcome=handle.result(), at=time.monotonic()))
        waiter.start()
        time.sleep(0.3)  # the waiter is blocked in result()
        asked = time.monotonic()
        canceller = threading.Thread(target=lambda: ended.update(cancelled=handle.cancel()))
        canceller.start()
        canceller.join(10)
        waiter.join(10)
        assert not Path(f"/proc/{pid}").exists(), "the cancelled task's worker is still there (or a zombie)"
        outcome = ended["outcome"]
        assert ended["cancelled"] is True and ended["at"] - asked < 2
        assert outcome.cancelled and not outcome.ok and outcome.error == "cancelled"
        assert handle.done() and handle.cancel() is False
        with pytest.raises(Cancelled):
            outcome.unwrap()
        served = workers.call(task(os.getpid))
        assert isinstance(served, int) and served != pid


def test_a_finished_task_is_not_cancelled_and_its_worker_serves_the_next():
    with Workers() as workers:
        first = workers.submit(task(os.getpid))
        pid = first.result().value
        assert first.done() and first.cancel() is False and not first.result().cancelled
        assert workers.submit(task(os.getpid)).result().value == pid
        assert Path(f"/proc/{pid}").exists()  # kept, idle


def test_the_worker_that_has_run_the_most_tasks_takes_the_next():
    """Its first compile, with the imports and set-up that come with it, is behind it."""
    with Workers(jobs=2).warm(count=2) as workers:
        first = workers.submit(task(os.getpid)).result().value
        assert workers.submit(task(os.getpid)).result().value == first  # not the other idle one


def test_a_preload_naming_a_function_calls_it_before_the_first_task():
    import gc

    with Workers().warm(preload="gc:disable") as workers:  # the explorer's spare: "...explore:warm_up"
        assert workers.call(task(gc.isenabled)) is False
    with Workers().warm(preload="gc") as workers:  # a module alone is only imported
        assert workers.call(task(gc.isenabled)) is True


def test_a_pool_started_ahead_is_taken_by_the_first_that_asks_and_killed_if_none_does():
    """launch.py starts `explore`'s first worker before the command line's own imports; the pool
    asked for with the same preload is that one, its worker the one already starting."""
    from tritonscope.isolate import close_ahead, local, start_ahead, warm_pool

    start_ahead("gc")
    started = local._started_ahead["gc"]._idle[0].process
    with warm_pool("gc", jobs=2, timeout=30) as workers:
        assert (workers.jobs, workers.timeout) == (2, 30)
        assert workers.call(task(os.getpid)) == started.pid
        with warm_pool("gc") as other:
            assert other is not workers  # taken once: the next pool is a new one
    start_ahead("gc")
    untaken = local._started_ahead["gc"]._idle[0].process
    close_ahead()  # the command failed before it needed its worker
    assert untaken.wait(10) is not None and not local._started_ahead


def test_the_run_folder_entered_twice_is_one_folder_removed_at_the_outer_block_s_end():
    """launch.py enters the run's folder before the command line enters it again: one folder."""
    from tritonscope.core import scratch

    with scratch.run_folder() as outer:
        with scratch.run_folder() as inner:
            assert inner == outer and scratch.environ() == {"TMPDIR": outer}
        assert outer is not None and Path(outer).is_dir()  # the inner block's end leaves it be
    assert not Path(outer).exists() and scratch.environ() == {}


def test_the_explorer_takes_the_worker_launch_starts_for_it():
    from tritonscope import launch
    from tritonscope.explorer.compiles import Compiles
    from tritonscope.isolate import local, start_ahead

    start_ahead(launch.EXPLORE_PRELOAD)
    ahead = local._started_ahead[launch.EXPLORE_PRELOAD]
    compiles = Compiles()
    try:
        assert compiles._workers is ahead and not local._started_ahead
    finally:
        compiles.close()


def test_diff_takes_the_workers_launch_starts_for_it():
    """launch.py starts `diff --vary`'s workers before the command line's imports; the sweep's pool is
    that one, with its workers already starting, and starts no other."""
    from tritonscope import launch
    from tritonscope.app import diff
    from tritonscope.isolate import local, start_ahead

    assert launch.DIFF_PRELOAD == sweep.COMPILE_MODULE
    start_ahead(launch.DIFF_PRELOAD, 2)
    ahead = local._started_ahead[launch.DIFF_PRELOAD]
    started = [worker.process.pid for worker in ahead._idle]
    axes = [sweep.Axis("BLOCK_SIZE", (128, 256, 512))]
    with diff._workers(VariantRequest(file="sample:vector_add", target="sm90"), axes, 2, 30) as workers:
        assert workers is ahead and not local._started_ahead
        assert [worker.process.pid for worker in workers._idle] == started and workers.timeout == 30


_CORES = os.cpu_count() or 1


@pytest.mark.parametrize(
    "words, started",
    [
        ("diff sample:matmul --vary num_warps=4,8 --vary num_stages=2,3 -j 2", min(2, _CORES)),
        ("diff sample:matmul --vary=num_warps=4,8 -j1", 1),
        ("diff sample:matmul --vary num_warps=4,8 --jobs=64", min(2, _CORES)),
        ("diff sample:vector_add --vary BLOCK_SIZE=128,256,512", min(3, _CORES)),
        ("explore sample:matmul", 1),
        ("diff sample:matmul --vary num_warps=4,8 --cluster auto", None),  # the cluster's workers
        ("diff sample:softmax --vary triton=3.6.0,3.9.0", None),  # another release's
        ("diff sample:matmul --configs", None),
        ("diff sample:matmul --space num_warps=4,8", None),
        ("diff sample:matmul --vary num_warps=4,8 --help", None),
        ("diff . --vary triton=3.6.0", None),  # a capture folder
        ("dump sample:matmul", None),
    ],
)
def test_launch_starts_the_workers_that_will_compile_at_once(words, started):
    from tritonscope import launch

    args = words.split()
    preload = launch.EXPLORE_PRELOAD if args[0] == "explore" else launch.DIFF_PRELOAD
    assert launch._started_ahead(args) == (None if started is None else (preload, started))


def test_a_newer_request_cancels_the_older_one(tmp_path):
    """The explorer's pattern: one request at a time, a new one ending the one before."""
    script, marker = _sleeper(tmp_path)
    with Workers() as workers:
        older = workers.submit(task(runpy.run_path, str(script)))
        pid = _pid_in(marker)
        older.cancel()
        newer = workers.submit(task(sorted, [2, 1]))
        assert newer.result().value == [1, 2] and older.result().cancelled
        assert not Path(f"/proc/{pid}").exists()


def test_a_cancelled_task_ends_the_processes_it_started(tmp_path):
    """A compile runs ptxas and nvdisasm: cancelling it ends them with it (the worker's process group)."""
    marker = tmp_path / "child.pid"
    script = tmp_path / "spawner.py"
    script.write_text(
        "import pathlib, subprocess, time\n"
        f"child = subprocess.Popen(['sleep', '600'])\npathlib.Path({str(marker)!r}).write_text(str(child.pid))\n"
        "time.sleep(600)\n"
    )
    with Workers() as workers:
        handle = workers.submit(task(runpy.run_path, str(script)))
        grandchild = _pid_in(marker)
        assert Path(f"/proc/{grandchild}").exists()
        assert handle.cancel() and handle.result().cancelled
        deadline = time.monotonic() + 10
        while Path(f"/proc/{grandchild}").exists() and "Z" not in _state(grandchild):
            assert time.monotonic() < deadline, "the cancelled task's child process is still running"
            time.sleep(0.05)


def _state(pid: int) -> str:
    """A process's state letter (Z: a zombie, waiting for init to reap it), or "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def test_a_submitted_task_past_the_timeout_says_so():
    with Workers(timeout=1) as workers:
        started = time.monotonic()
        outcome = workers.submit(task(time.sleep, 30)).result()
    assert outcome.timed_out and outcome.error.startswith("timed out after 1 s") and time.monotonic() - started < 10


def test_closing_the_workers_ends_a_submitted_task(tmp_path):
    script, marker = _sleeper(tmp_path)
    workers = Workers()
    handle = workers.submit(task(runpy.run_path, str(script)))
    pid = _pid_in(marker)
    workers.close()
    assert not Path(f"/proc/{pid}").exists() and handle.result().cancelled


# The supervisor, run as the file it is


def _supervised(*program: str, parent: int | None = None, grace: float = 3.0, **popen) -> subprocess.Popen:
    argv = [sys.executable, "-S", str(SUPERVISOR), str(parent or os.getpid()), str(grace), *program]
    return subprocess.Popen(argv, **popen)


def test_the_supervisor_ends_as_its_program_ended():
    assert _supervised("sh", "-c", "exit 7").wait(30) == 7
    assert _supervised("sh", "-c", "kill -USR1 $$").wait(30) == -signal.SIGUSR1
    missing = _supervised("no-such-program-x", stderr=subprocess.PIPE, text=True)
    assert missing.wait(30) == 127
    assert missing.stderr.read() == "cannot run no-such-program-x: No such file or directory\n"


def test_the_supervisor_refuses_to_start_for_a_parent_already_gone(tmp_path):
    marker = tmp_path / "ran"
    assert _supervised("touch", str(marker), parent=1).wait(30) == 1
    assert not marker.exists()


def test_the_supervisor_told_to_stop_ends_what_the_program_started(tmp_path):
    """A program and its child that both ignore SIGTERM: SIGKILL after the grace ends them."""
    marker = tmp_path / "child.pid"
    program = f"trap '' TERM; sleep 60 & echo $! > {marker}; wait"
    supervisor = _supervised("sh", "-c", program, grace=0.5)
    grandchild = _pid_in(marker)
    started = time.monotonic()
    supervisor.send_signal(signal.SIGTERM)
    assert supervisor.wait(30) == -signal.SIGKILL and time.monotonic() - started < 10
    assert not Path(f"/proc/{grandchild}").exists()


def test_the_supervisor_imports_the_standard_library_alone():
    """It runs with `python -S` from its own folder: nothing of tritonscope or site-packages, and no
    module beside it may take a standard module's place."""
    imported = set()
    for node in ast.walk(ast.parse(SUPERVISOR.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import in the supervisor"
            imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    beside = {p.stem for p in SUPERVISOR.parent.glob("*.py")}
    assert not beside & set(sys.stdlib_module_names)


# Cancelling a task on Ray


@pytest.fixture(scope="module")
def ray_workers():
    """The Ray executor, driven from this process, on a Ray head of 2 CPUs of its own."""
    ray = pytest.importorskip("ray")
    from ray_head import ray_head

    from tritonscope.isolate.cluster import RayWorkers

    with ray_head() as (address, _):
        try:
            with RayWorkers(address, timeout=300) as workers:
                yield workers
        finally:
            ray.shutdown()


def _gone(pid: int) -> bool:
    """The process has ended (gone, or a zombie its parent, Ray's raylet, has not reaped yet)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False


def test_a_task_cancelled_on_ray_ends_its_ray_worker_and_the_next_is_served(ray_workers, tmp_path):
    folder = tmp_path / "sent"  # the task's files travel to the node: the script runs from the node's copy
    folder.mkdir()
    script, marker = _sleeper(folder)
    script.write_text(script.read_text().replace(str(marker), str(tmp_path / "pid")))
    handle = ray_workers.submit(task(runpy.run_path, str(script), files=(str(script),)))
    pid = _pid_in(tmp_path / "pid")  # the Ray worker running the task
    assert pid != os.getpid() and not handle.done()
    canceller = threading.Thread(target=handle.cancel)
    canceller.start()
    outcome = handle.result()
    canceller.join(30)
    assert outcome.cancelled and outcome.error == "cancelled" and handle.cancel() is False
    assert _gone(pid), "the cancelled task's Ray worker is still running"
    served = ray_workers.call(task(os.getpid))
    assert isinstance(served, int) and served != pid


def test_a_worker_ended_by_its_node_waits_for_the_head_to_stop_answering():
    """`ray stop` ends a node's workers (their tasks fail with SystemExit) a moment before the head's
    port closes: the driver looks at the head a few seconds more, and says the head is gone (exit 2),
    not that the variant failed; a head that keeps answering lets the task's own failure stand."""
    import socket

    from tritonscope.core.errors import UsageError
    from tritonscope.isolate import cluster
    from tritonscope.isolate.tasks import Outcome

    assert cluster._ended_by_node(Outcome(error="SystemExit: 1", exit_code=3))
    assert not cluster._ended_by_node(Outcome(error="CompileError: ...", exit_code=1))
    head = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{head.getsockname()[1]}"
    workers = object.__new__(cluster.RayWorkers)  # its head check alone: no Ray needed
    workers.address, workers._head, workers._looked = address, address, time.monotonic()
    workers._check_head(now=True)  # answering: nothing said
    threading.Timer(1.0, head.close).start()
    started = time.monotonic()
    with pytest.raises(UsageError, match="stopped answering"):
        workers._check_head(now=True, grace=True)
    assert 0.9 < time.monotonic() - started < cluster._HEAD_GRACE + 1
