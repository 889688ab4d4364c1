"""The worker pool (isolate.py): a warmed worker imports the module its tasks will call before the
first task comes, so its start-up overlaps the parent's work."""

from __future__ import annotations

import time

from tritonscope.isolate import Task, Workers


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
