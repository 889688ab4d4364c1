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


ORPHAN_BACKEND = """import os, pathlib, zipfile
def get_requires_for_build_wheel(config_settings=None):
    return []
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    # what a killed install's pip, ending a moment after it, writes into that install's staging folder
    (pathlib.Path(os.environ["ORPHAN_STAGING"]) / "lib" / "site-packages").mkdir(parents=True, exist_ok=True)
    name, info = "triton-3.5.0-py3-none-any.whl", "triton-3.5.0.dist-info"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        wheel.writestr("triton/__init__.py", "__version__ = '3.5.0'\\n")
        wheel.writestr("triton/_C/libtriton.so", b"\\x7fELF")
        wheel.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\\nName: triton\\nVersion: 3.5.0\\n")
        tags = "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
        wheel.writestr(f"{info}/WHEEL", tags)
        wheel.writestr(f"{info}/RECORD", "")
    return name
"""


def test_a_dead_installs_staging_folder_written_during_the_next_install_is_removed(warm, tmp_path):
    """A killed install's pip may go on writing into its staging folder while the next install runs
    (issue 55: 23 MB left beside the finished environment): the install that succeeds removes it."""
    import io
    import subprocess
    import tarfile

    from fault_suite import PIP_OFFLINE, Env, Run, package_index, run, user_files

    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    package_index(env)
    with tarfile.open(tmp_path / "work" / "index" / "triton-3.5.0.tar.gz", "w:gz") as sdist:
        files = {"pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'}
        files |= {"backend.py": ORPHAN_BACKEND, "PKG-INFO": "Metadata-Version: 2.1\nName: triton\nVersion: 3.5.0\n"}
        for name, text in files.items():
            member = tarfile.TarInfo(f"triton-3.5.0/{name}")
            member.size = len(text.encode())
            sdist.addfile(member, io.BytesIO(text.encode()))
    dead = subprocess.Popen(["true"])
    dead.wait()  # a process id no process has now: the killed install's
    envs = tmp_path / "xdg" / "tritonscope" / "envs"
    orphan = {"ORPHAN_STAGING": f"{envs}/.triton-3.5.0.new.{dead.pid}"}
    result, survivors = run(env, Run("envs add 3.5.0", env={**PIP_OFFLINE, **orphan}, timeout=180))
    assert result.code == 0 and not survivors, result.err
    assert sorted(p.name for p in envs.iterdir()) == ["triton-3.5.0"], "a dead install's staging folder is left"
