"""--cluster on a real Ray cluster on this machine (issue 28).

One Ray head (`ray start --head --num-cpus 2`) serves the module: its own temporary folder and
free ports, so parallel test runs do not meet, and its own process group, so that stopping it
can be checked: no Ray process is left behind. The kernels are copied into a folder of their
own, which Ray sends to the node: the node shares no files with the driver by design, even here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import ENV, tritonscope
from conftest import OFFLINE_PIP
from ray_head import ray_head

from tritonscope.triton_api.version import installed

pytest.importorskip("ray")

RUNNING = installed()
OTHER = "3.9.0" if RUNNING != "3.9.0" else "3.6.0"  # as in tests/test_other_releases.py
SWEEP = ("--vary", "BLOCK_SIZE=128,256,512,1024", "--vary", "num_warps=1,2,4,8", "--target", "sm90")

SLOW_KERNEL = '''
import os
import time

import triton
import triton.language as tl


def _slow(args):
    """Stands in for a compile that takes long: the first BLOCK_SIZE 512 variant waits, telling the
    test its pid (the marker is made exclusively: one variant only)."""
    if args["BLOCK_SIZE"] == 512:
        try:
            fd = os.open({marker!r}, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return 1
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        time.sleep(600)
    return 1


@triton.heuristics({{"SLOW": _slow}})
@triton.jit
def slow_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr, SLOW: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {{"n_elements": 4096}}
'''


# The node's own user cache (where its Triton release environments are), and a pip that reaches
# no package index: what the node has, it has of its own, and no test here downloads on a node.
NODE_PIP = OFFLINE_PIP


@pytest.fixture(scope="module")
def node_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("node-cache")


@pytest.fixture(scope="module")
def head(node_cache):
    """A Ray head of 2 CPUs in its own session; stopped, and checked gone, after the module."""
    with ray_head(env={**os.environ, "XDG_CACHE_HOME": str(node_cache), **NODE_PIP}) as (address, _):
        yield address


@pytest.fixture
def kernels(tmp_path) -> Path:
    folder = tmp_path / "kernels"
    folder.mkdir()
    shutil.copy(Path(__file__).parents[1] / "sample_kernels" / "vector_add.py", folder)
    return folder


def _figures(stdout: str) -> dict:
    """A diff's JSON without what differs between any two runs: the wall time, and whether Triton's
    cache held the compile."""
    document = json.loads(stdout)
    for variant in document["variants"]:
        variant.pop("compile_seconds", None)
        variant.pop("cache_hit", None)
        variant.pop("stage_seconds", None)
    return document


def _traps(folder: Path) -> dict[str, str]:
    """The driver's nvdisasm and cuobjdump (Triton's TRITON_*_PATH): scripts that note each call
    in `folder`/called and fail (Triton then falls back to its own). The nodes' Ray workers do not
    see them: their environment is the head's."""
    script = folder / "trap"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {folder / "called"}\nexit 1\n')
    script.chmod(0o755)
    return {"TRITON_NVDISASM_PATH": str(script), "TRITON_CUOBJDUMP_PATH": str(script)}


def test_a_sweep_on_ray_equals_the_local_run_and_the_head_disassembles_nothing(head, kernels, tmp_path):
    local = tritonscope("diff", kernels / "vector_add.py", *SWEEP, "--json", "-j", "2", timeout=300)
    env = _traps(tmp_path)
    remote = tritonscope("diff", kernels / "vector_add.py", *SWEEP, "--json", "--cluster", head, timeout=300, env=env)
    assert len(json.loads(local.stdout)["variants"]) == 16
    assert _figures(remote.stdout) == _figures(local.stdout)
    assert str(kernels) in remote.stdout  # paths read as the driver's, not the node's copy
    sass = [d for d in json.loads(remote.stdout)["diffs"] if d["stage"] == "sass"]
    assert len(sass) == 15 and any(d["changed"] for d in sass)  # the nodes' SASS, compared on the head
    assert not (tmp_path / "called").exists(), (tmp_path / "called").read_text()  # nor by the head


@pytest.fixture(scope="module")
def other_release() -> str:
    """Another Triton release's environment in this session's user cache, made by `tritonscope
    envs add` as a user makes it (from pip's cache after the first time; tests/test_other_releases.py
    then finds it made)."""
    tritonscope("envs", "add", OTHER, timeout=900, env=_session())
    return OTHER


def _session() -> dict[str, str]:
    """This session's user cache and pip cache (conftest sets them after cli_process read the environment)."""
    return {k: os.environ[k] for k in ("XDG_CACHE_HOME", "PIP_CACHE_DIR") if k in os.environ}


def test_two_releases_on_ray_run_in_the_nodes_own_environments(head, kernels, node_cache, other_release, tmp_path):
    releases = sorted([RUNNING, other_release])
    vary = ("--vary", f"triton={','.join(releases)}", "--vary", "BLOCK_SIZE=128,256")
    sweep = ("diff", kernels / "vector_add.py", *vary)
    local = tritonscope(*sweep, "--target", "sm90", "--json", timeout=300, env=_session())
    # The node holds the release as `tritonscope envs add` leaves it there (the same files as here:
    # its pip reaches no index, so it can not make them itself).
    made = Path(os.environ["XDG_CACHE_HOME"]) / "tritonscope" / "envs" / f"triton-{other_release}"
    (node_cache / "tritonscope" / "envs").mkdir(parents=True, exist_ok=True)
    (node_cache / "tritonscope" / "envs" / made.name).symlink_to(made, target_is_directory=True)
    driver = {"XDG_CACHE_HOME": str(tmp_path / "driver-cache")}  # no environment of any release
    remote = tritonscope(*sweep, "--target", "sm90", "--json", "--cluster", head, timeout=300, env=driver)
    variants = json.loads(remote.stdout)["variants"]
    assert [v["triton_version"] for v in variants] == [r for r in releases for _ in range(2)]
    assert all(v["ok"] for v in variants), [v["error"] for v in variants]
    assert _figures(remote.stdout) == _figures(local.stdout)
    # --triton names the release of the whole sweep: the same compiles as that release's above.
    alone = ("--triton", other_release, "--vary", "BLOCK_SIZE=128,256", "--target", "sm90", "--json")
    remote = tritonscope("diff", kernels / "vector_add.py", *alone, "--cluster", head, timeout=300, env=driver)
    again = json.loads(remote.stdout)["variants"]
    assert [v["triton_version"] for v in again] == [other_release] * 2
    assert [v["resources"] for v in again] == [v["resources"] for v in variants[2:]]
    assert not (tmp_path / "driver-cache" / "tritonscope" / "envs").exists()  # the head installed nothing


def test_a_node_without_the_release_says_so_and_the_other_variants_finish(head, kernels, node_cache):
    release = "3.7.1"  # a supported release neither CI run has made: the node tries pip, which is offline
    sweep = ("diff", kernels / "vector_add.py", "--vary", f"triton={RUNNING},{release}", "--target", "sm90")
    proc = tritonscope(*sweep, "--json", "--cluster", head, expect=None, timeout=300)
    assert proc.returncode == 1, proc.stderr
    first, second = json.loads(proc.stdout)["variants"]
    assert first["ok"] and first["triton_version"] == RUNNING
    assert f"on the cluster's node {socket.gethostname()}: could not install Triton {release}" in second["error"]
    assert "network access" in second["error"] and f"pip install triton=={release}" in second["error"]
    assert not list((node_cache / "tritonscope" / "envs").glob(f"*{release}*"))  # nothing half-made there


def test_the_environment_variable_names_the_cluster(head, kernels):
    remote = tritonscope(
        "diff",
        kernels / "vector_add.py",
        "--vary",
        "BLOCK_SIZE=128,256",
        "--json",
        timeout=300,
        env={"TRITONSCOPE_CLUSTER": head},
    )
    assert [v["label"] for v in json.loads(remote.stdout)["variants"]] == [{"BLOCK_SIZE": "128"}, {"BLOCK_SIZE": "256"}]


def _slow_sweep(kernels: Path, head: str, *extra: str) -> tuple[subprocess.Popen, Path]:
    marker = kernels / "slow.pid"
    (kernels / "slow.py").write_text(SLOW_KERNEL.format(marker=str(marker)))
    argv = [sys.executable, "-m", "tritonscope", "diff", str(kernels / "slow.py"), *SWEEP, "--json"]
    argv += ["--cluster", head, *extra]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 120
    while not marker.exists() or not marker.read_text().strip():
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.05)
    return child, marker


def test_a_ray_worker_killed_mid_task_fails_its_variant_alone(head, kernels):
    child, marker = _slow_sweep(kernels, head, "--timeout", "300")
    os.kill(int(marker.read_text()), signal.SIGKILL)
    stdout, stderr = child.communicate(timeout=300)
    assert child.returncode == 1, stderr
    variants = json.loads(stdout)["variants"]
    failed = [v for v in variants if v["error"]]
    assert [v["label"]["BLOCK_SIZE"] for v in failed] == ["512"], failed
    assert "crashed on the cluster" in failed[0]["error"]
    assert sum(1 for v in variants if v["ok"]) == 15


def test_a_task_past_the_timeout_is_cancelled_on_the_node(head, kernels):
    child, marker = _slow_sweep(kernels, head, "--timeout", "20")
    stdout, stderr = child.communicate(timeout=300)
    assert child.returncode == 1, stderr
    failed = [v for v in json.loads(stdout)["variants"] if v["error"]]
    assert [v["error"] for v in failed] == ["timed out after 20 s"]
    _gone(int(marker.read_text()))


def test_ctrl_c_cancels_the_clusters_tasks(head, kernels):
    child, marker = _slow_sweep(kernels, head, "--timeout", "300")
    child.send_signal(signal.SIGINT)
    try:
        child.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # which process still runs, or still holds its output open
        tree = subprocess.run(["ps", "-eo", "pid,ppid,stat,etime,args"], capture_output=True, text=True).stdout
        child.kill()
        pytest.fail(f"the command did not end 60 s after Ctrl-C (pid {child.pid}):\n{tree}")
    assert child.returncode != 0
    _gone(int(marker.read_text()))


def _gone(pid: int) -> None:
    """The Ray worker that ran the slow task ends soon (it was cancelled by force)."""
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]:
        assert time.monotonic() < deadline, f"the Ray worker {pid} still runs the cancelled task"
        time.sleep(0.2)


def test_passes_vary_on_ray_equals_the_local_run(head, kernels):
    args = ("passes", kernels / "vector_add.py", "--target", "sm90", "--vary", "num_warps=4,8", "--json")
    local = tritonscope(*args, timeout=300)
    remote = tritonscope(*args, "--cluster", head, timeout=300)
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    assert json.loads(local.stdout)["divergence"] is not None


def test_check_on_ray_equals_the_local_run_and_a_crash_fails_its_entry_alone(head, kernels):
    shutil.copy(Path(__file__).parent / "kernels" / "crashy.py", kernels)
    (kernels / "pyproject.toml").write_text(
        '[[tool.tritonscope.check]]\nfile = "vector_add.py"\nflags = "-a n_elements=4096 -t sm90"\n'
        'budgets = ["spills=0"]\n\n'
        '[[tool.tritonscope.check]]\nname = "odd"\nfile = "vector_add.py"\nflags = "-a n_elements=4099 -t sm90"\n'
        'budgets = ["global_load_bits>=128"]\n\n'
        '[[tool.tritonscope.check]]\nname = "crashes"\nfile = "crashy.py"\nflags = "-a n=11 -t sm90"\n'
    )
    project = ("check", "--project", kernels / "pyproject.toml", "--json")
    local = json.loads(tritonscope(*project, "-j", "2", expect=1, timeout=300).stdout)
    remote = json.loads(tritonscope(*project, "--cluster", head, expect=1, timeout=300).stdout)
    assert remote["entries"][:2] == local["entries"][:2]
    assert [e["ok"] for e in remote["entries"]] == [True, False, False]
    assert "crashed on the cluster" in remote["entries"][2]["error"]
