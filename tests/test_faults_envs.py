"""Other Triton releases' environments (issue 27's fault suite, tests/fault_suite.py): a signal or
SIGKILL while pip installs one, and an environment holding the wrong Triton."""

from __future__ import annotations

import signal

import pytest
from fault_suite import (
    _PIP,
    _TRITON,
    PIP_OFFLINE,
    TERM,
    Env,
    Row,
    Run,
    check_row,
    file_appeared,
    found,
    mislabelled_env,
    package_index,
    program_running,
    run,
    user_files,
)

# fmt: off
ROWS = [
    # 18. A signal during a release environment's setup: pip (and ensurepip) and what they started
    # end with tritonscope; the staging folder and pip's temporary files go (an offline index).
    *[Row("envs add 3.5.0", id=f"27-18-envs-{name}-while-{moment}", env=PIP_OFFLINE, setup=(package_index,),
          signal=sig, ready=ready, timeout=120, changes=("index",))
      for moment, ready in (("pip-builds", file_appeared("index/building")),
                            *([("ensurepip", program_running("ensurepip"))] if _PIP < (24, 1) else []))
      for name, sig in (("sigterm", TERM), ("sighup", signal.SIGHUP))],
    # 17. An environment holding the wrong Triton is refused once, not entered again and again.
    *([] if _TRITON[:2] == (3, 7) else [
        Row("dump sample:double --target sm90 --stage ttir --triton 3.7.0", id="27-17-env-holds-wrong-triton", exit=2,
            setup=(mislabelled_env,), timeout=120, count_processes=True, says=(r"triton-3\.7\.0", r"envs remove"),
            check=lambda env, result: None if result.peak_processes <= 2 else pytest.fail(
                f"{result.peak_processes} workers at once")),
    ]),
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


def test_sigkill_during_an_install_leaves_what_the_next_install_removes(warm, tmp_path):
    """SIGKILL to tritonscope while pip builds: pip and its build backend (pip's own child) end with it,
    and the staging folder and temporary folder it left are removed by the next install."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    package_index(env)
    killed = Run(
        "envs add 3.5.0", env=PIP_OFFLINE, signal=signal.SIGKILL, ready=file_appeared("index/building"), timeout=120
    )
    result, survivors = run(env, killed)
    assert result.code == -signal.SIGKILL and not survivors, f"{len(survivors)} process(es) left: {result.err}"
    envs = tmp_path / "xdg" / "tritonscope" / "envs"
    assert [p.name for p in envs.glob(".triton-3.5.0.new.*")], "the killed install left no staging folder"
    (tmp_path / "work" / "index" / "triton-3.5.0.tar.gz").unlink()  # the next install fails at once
    then, survivors = run(env, Run("envs add 3.5.0", env=PIP_OFFLINE, timeout=120))
    assert then.code == 2 and not survivors and found(r"3\.5\.0", then.err), then.err
    assert "Traceback" not in then.err
    assert not list(envs.iterdir()), "a staging folder is left"
    assert not list((tmp_path / "tmp").iterdir()), "pip's or the run's temporary files are left"
