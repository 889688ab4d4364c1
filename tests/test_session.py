"""isolate/session.py, a front end's session (the agent server's, the explorer's): values kept by task
and by the state of the files the task read, one task at a time in a warm worker, a call's own time
limit and its cancel from another thread; and a worker's stdin, which no task can read."""

from __future__ import annotations

import os
import threading
import time

import pytest

from tritonscope.core.errors import UsageError
from tritonscope.isolate import Cancelled, Workers, task
from tritonscope.isolate.session import Session


@pytest.fixture
def session():
    made = Session(timeout=60).warm()
    yield made
    made.close()


def test_a_value_is_kept_by_task_unless_the_task_acts(session):
    first = session.answer(task(time.time))
    assert session.answer(task(time.time)) == first  # kept: not run again
    assert session.call(task(time.time), keep=False).result() != first
    assert session.answer(task(time.monotonic)) != first  # another task


def test_values_python_calls_equal_are_kept_apart_by_their_types(session):
    """2, 2.0 and True are one key to a dict; as constexprs they compile three kernels (the API answered
    `SCALE=2.0` with the variant compiled for `SCALE=2`)."""
    assert [session.answer(task(repr, value)) for value in (2, 2.0, True, 1, (2,), (2.0,))] == [
        "2",
        "2.0",
        "True",
        "1",
        "(2,)",
        "(2.0,)",
    ]


def test_a_kept_value_is_answered_while_another_task_runs(session):
    first = session.answer(task(time.time))
    slow = session.call(task(time.sleep, 30), keep=False)
    ended: list[BaseException] = []
    waiter = threading.Thread(target=lambda: ended.append(pytest.raises(Cancelled, slow.result).value))
    waiter.start()
    time.sleep(0.5)  # the slow task holds the turn
    assert session.answer(task(time.time)) == first and waiter.is_alive()  # answered without waiting for it
    slow.cancel()
    waiter.join(timeout=20)
    assert len(ended) == 1 and isinstance(ended[0], Cancelled)


def test_a_changed_input_is_computed_again_in_a_fresh_worker(session, tmp_path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text("x = 1\n")
    pid = session.answer(task(os.getpid), inputs=(kernel,))
    assert session.answer(task(os.getpid), inputs=(kernel,)) == pid
    helper = tmp_path / "helper.py"  # a module beside the kernel file: one it may import
    helper.write_text("y = 2\n")
    renewed = session.answer(task(os.getpid), inputs=(kernel,))
    assert renewed != pid  # computed again, and by a new worker (the old one may hold the old helper)
    kernel.write_text("x = 2\n")
    assert session.answer(task(os.getpid), inputs=(kernel,)) not in (pid, renewed)


def test_a_call_past_its_own_time_limit_fails_and_the_next_is_served(session):
    started = time.monotonic()
    with pytest.raises(UsageError, match="timed out after 1 s"):
        session.answer(task(time.sleep, 30), timeout=1)
    assert time.monotonic() - started < 20
    assert isinstance(session.answer(task(os.getpid)), int)


def test_a_call_cancelled_from_another_thread_ends_and_a_waiting_one_never_runs(session, tmp_path):
    running = session.call(task(time.sleep, 30), keep=False)
    marker = tmp_path / "ran"
    waiting = session.call(task(os.mkdir, str(marker)), keep=False)
    errors: dict[str, BaseException] = {}

    def wait(name, call):
        try:
            call.result()
        except BaseException as exc:  # noqa: BLE001 - what the call raised, kept for the test
            errors[name] = exc

    threads = [threading.Thread(target=wait, args=item) for item in (("running", running), ("waiting", waiting))]
    threads[0].start()
    time.sleep(0.5)  # the first call runs; the second waits its turn
    threads[1].start()
    time.sleep(0.3)
    waiting.cancel()
    running.cancel()
    for thread in threads:
        thread.join(timeout=20)
    assert isinstance(errors["running"], Cancelled) and isinstance(errors["waiting"], Cancelled)
    assert not marker.exists()
    assert isinstance(session.answer(task(os.getpid)), int)


def test_a_task_reads_no_stdin_and_never_the_tasks_that_follow():
    """A kernel file's `input()` (or a program a task starts) meets the end of input at once: the
    worker's task pipe is not its stdin."""
    with Workers(timeout=30) as workers:
        outcome = workers.run([task(input)])[0]
        assert not outcome.ok and "EOFError" in outcome.error
        assert isinstance(workers.call(task(os.getpid)), int)
