"""A real Ray head on this machine for the tests of --cluster (tests/test_cluster.py, and the
cluster rows of tests/test_faults.py), and for benchmarks/cluster.py.

Its own temporary folder and free ports, so parallel test runs do not meet, and its own session,
so that stopping it can be checked: no Ray process is left behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("ray")
# Ray's command line: its script beside this Python, or (a venv that reaches Ray through another's
# packages) the same entry point run by this Python.
RAY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _session_members(session: int) -> list[int]:
    """The processes of a session still alive (zombies are gone already). Ray's workers make
    process groups of their own, but stay in the session `ray start` opened."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            members.append(int(entry.name))
    return members


@contextlib.contextmanager
def ray_head(env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """A Ray head of 2 CPUs in its own session (its daemons and workers in `env`), as (its address, the
    session); stopped, and checked gone, at the end of the block."""
    folder = tempfile.mkdtemp(prefix="rts-", dir="/tmp")  # short: Ray's socket paths have a length limit
    gcs, client, dash, agent, grpc, env_agent, metrics, node, objects = _free_ports(9)
    argv = [*RAY, "start", "--head", "--num-cpus", "2", "--temp-dir", folder, "--port", str(gcs)]
    argv += ["--include-dashboard=false", "--disable-usage-stats", "--ray-client-server-port", str(client)]
    argv += ["--dashboard-port", str(dash), "--dashboard-agent-listen-port", str(agent)]
    argv += ["--dashboard-agent-grpc-port", str(grpc), "--runtime-env-agent-port", str(env_agent)]
    argv += ["--metrics-export-port", str(metrics), "--node-manager-port", str(node)]
    argv += ["--object-manager-port", str(objects), "--min-worker-port", "0", "--max-worker-port", "0"]
    started = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    session = started.pid  # the new session: every daemon and worker Ray starts is in it
    output = started.communicate(timeout=120)[0].decode(errors="replace")
    try:
        assert started.returncode == 0, output
        yield _address(output, gcs), session
    finally:
        stop(session)
        shutil.rmtree(folder, ignore_errors=True)


def _address(output: str, port: int) -> str:
    """HOST:PORT of the head, as `ray start` prints it (`ray start --address='HOST:PORT'`)."""
    found = re.search(rf"([0-9.]+:{port})", output)
    assert found, f"no address with port {port} in `ray start`'s output:\n{output}"
    return found.group(1)


def stop(session: int) -> None:
    """Ends every process of the head's session (SIGTERM, then SIGKILL) and checks none is left."""
    for with_signal in (signal.SIGTERM, signal.SIGKILL):
        for pid in _session_members(session):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, with_signal)
        deadline = time.monotonic() + 15
        while _session_members(session) and time.monotonic() < deadline:
            time.sleep(0.2)
    assert not _session_members(session), f"Ray processes left behind: {_session_members(session)}"
