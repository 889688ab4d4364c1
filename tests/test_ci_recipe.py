"""docs/ci.md's recipe, run as it is written: the baseline made, then the CI lines, on a small
program traced with a simulated GPU. An unchanged program passes; an edit that makes a kernel
worse fails with a JUnit report naming that kernel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import KERNELS

DOC = Path(__file__).parent.parent / "docs" / "ci.md"


def block(marker: str) -> str:
    """The commands between <!-- ci:MARKER --> and <!-- /ci:MARKER --> in docs/ci.md."""
    found = re.search(rf"<!-- ci:{marker} -->\n```bash\n(.*?)```\n<!-- /ci:{marker} -->", DOC.read_text(), re.S)
    assert found, f"no ci:{marker} block in {DOC}"
    return found.group(1)


def run(commands: str, folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands], cwd=folder, env=env, capture_output=True, text=True
    )


@pytest.fixture
def project(tmp_path):
    shutil.copy(KERNELS / "program_kernels.py", tmp_path)
    shutil.copy(KERNELS / "launch_program.py", tmp_path / "step.py")
    (tmp_path / "train.py").write_text(
        "import runpy, sys\nsys.argv[1:] = []\nrunpy.run_path('step.py', run_name='__main__')\n"
    )
    return tmp_path


def test_the_workflow_runs_the_recipe_lines():
    workflow = DOC.read_text().split("```yaml")[1]
    for line in block("recipe").splitlines():
        assert f"- run: {line}" in workflow


def test_the_ci_recipe_on_a_small_program(project):
    made = run(block("baseline"), project)
    assert made.returncode == 0, made.stderr
    unchanged = run(block("recipe"), project)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert "all 5 held their budgets" in unchanged.stdout
    suite = ElementTree.parse(project / "kernels.xml").getroot()
    assert suite.get("tests") == "5" and suite.get("failures") == "0"

    (project / "train.py").write_text(
        "import runpy, sys\nsys.argv[1:] = ['--after']\nrunpy.run_path('step.py', run_name='__main__')\n"
    )
    shutil.rmtree(project / "capture")
    worse = run(block("recipe"), project)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    suite = ElementTree.parse(project / "kernels.xml").getroot()
    failed = [c.get("classname") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["add_kernel"] and suite.get("tests") == "4"
    assert "relu_kernel" in worse.stdout and "no longer compiled" in worse.stdout
