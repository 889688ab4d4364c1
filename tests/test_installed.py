"""The package as `pip install .` installs it: a regular (non-editable) install in a fresh venv.

CI's editable install hides what differs in a regular one: the samples then live inside the
installed package, and another release's worker reaches them through a link to that package
(issue 27, items 1 and 2). The venv is chained to this interpreter's packages (Triton, torch) the
way /work/coord/mkvenv.sh chains a worktree's, so nothing but tritonscope is installed.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a venv holding a regular install of this checkout."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run(
        [python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    shared = [p for p in [*site.getsitepackages(), *sys.path] if p.endswith("site-packages") and Path(p).is_dir()]
    (Path(own) / "zz_shared.pth").write_text("\n".join(dict.fromkeys(shared)) + "\n")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", own, "--no-compile", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    return python


def _run(python: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "COLUMNS": "80", **(env or {})}
    environment.pop("PYTHONPATH", None)
    return subprocess.run([python, *args], capture_output=True, text=True, timeout=900, env=environment, cwd="/")


def test_the_install_is_a_regular_one_and_needs_numpy(installed):
    where = _run(
        installed,
        "-c",
        "import tritonscope, importlib.metadata as m; print(tritonscope.__file__); print(m.requires('tritonscope'))",
    )
    assert where.returncode == 0, where.stderr
    file, requires = where.stdout.splitlines()
    assert str(installed.parent.parent) in file and str(ROOT) not in file, file
    core = [r for r in eval(requires) if "extra ==" not in r]  # noqa: S307 - the repr of a list of str
    assert any(r.startswith("numpy") for r in core), core


def test_grid_of_a_sample_works_after_install(installed):
    proc = _run(installed, "-m", "tritonscope", "grid", "sample:double", "--target", "sm90", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kernel"] == "double_kernel"


def test_a_sample_compiles_with_another_release(installed):
    """`--triton X` on a bundled sample: the other release's worker loads the sample through its
    link to the installed package, and finds its kernel."""
    from tritonscope.triton_api.version import installed as running

    other = "3.9.0" if running() != "3.9.0" else "3.6.0"
    session = {k: os.environ[k] for k in ("XDG_CACHE_HOME", "PIP_CACHE_DIR") if k in os.environ}
    proc = _run(
        installed,
        "-m",
        "tritonscope",
        "dump",
        "sample:double",
        "--target",
        "sm90",
        "--stage",
        "ttir",
        "--triton",
        other,
        "--json",
        env=session,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["triton_version"] == other and "tt.func public @double_kernel" in report["stages"]["ttir"]


def test_every_package_of_the_source_is_installed(installed):
    """A package left out of pyproject.toml's list works in an editable install and fails in a
    regular one (`No module named tritonscope.results`): every one is checked here."""
    source = ROOT / "tritonscope"
    wanted = sorted(".".join(("tritonscope", *p.parent.relative_to(source).parts)) for p in source.rglob("__init__.py"))
    probe = "import importlib, sys; [importlib.import_module(n) for n in sys.argv[1:]]"
    proc = _run(installed, "-c", probe, *wanted)
    assert proc.returncode == 0, proc.stderr[-1500:]


def test_trace_against_a_simulated_gpu_works_after_install(installed, tmp_path):
    """The installed capture hook, the launch recorder and the simulated GPU it loads by their paths
    all find the contract beside the hook (package data): the compile and its launch are captured,
    and a value read is answered on the host with the number a GPU gives, its line in reads.jsonl."""
    program = tmp_path / "reads.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)\n\n"
        "x = torch.zeros(64, device='cuda')\nk[(1,)](x, 64, BLOCK=64)\nprint('sum', x.sum().item())\n"
    )
    out = tmp_path / "out"
    proc = _run(
        installed, "-m", "tritonscope", "trace", "--target", "sm90", "-o", str(out), "--", str(installed), str(program)
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "sum 64.0" in proc.stdout
    assert "captured 1 compiled kernel" in proc.stderr and "recorded 1 launch," in proc.stderr
    (compiled,) = [json.loads(line) for line in (out / "kernels.jsonl").read_text().splitlines()]
    (launch,) = [json.loads(line) for line in (out / "launches.jsonl").read_text().splitlines()]
    assert compiled["name"] == launch["name"] == "k" and launch["grid"] == [1, 1, 1]
    (read,) = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    assert read["where"].endswith("reads.py:10") and ".item()" in read["asked"], read
    assert json.loads((out / "simulated.json").read_text())["target"] == "sm90"
