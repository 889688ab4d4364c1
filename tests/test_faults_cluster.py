"""The cluster executor (issue 27's fault suite, tests/fault_suite.py): an address where no Ray
cluster answers, and on a real Ray head a variant that raises, a worker killed, a timeout,
Ctrl-C and the head gone mid-sweep."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fault_suite import (
    _HAS_RAY,
    INT,
    Env,
    Result,
    Row,
    check_row,
    strict_json,
)

# fmt: off
ROWS = [
    # The cluster executor given an address where no Ray cluster answers: one line at once, exit 2
    # (where Ray is not installed, as in the other releases' runs: one line saying how to get it).
    *[Row(f"diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --cluster {address}",
          id=f"27-sweep-cluster-address-{name}", exit=2, timeout=60,
          says=(r"--cluster", said) if _HAS_RAY else (r"--cluster needs Ray, which is not installed",
                                                     r"pip install 'tritonscope\[cluster\]'"))
      for name, address, said in (("refused", "127.0.0.1:1", r"127\.0\.0\.1:1"),
                                  ("client-refused", "ray://127.0.0.1:1", r"127\.0\.0\.1:1"),
                                  ("unknown-host", "no-such-host.invalid:6379", r"no-such-host\.invalid"),
                                  ("port-out-of-range", "127.0.0.1:99999", r"99999"),
                                  ("not-an-address", "not-an-address", r"not-an-address"))],
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


# --- the cluster executor on a real Ray head --------------------------------------------------

# A kernel for the cluster rows: its heuristic, run on the node, holds the BLOCK_SIZE 512 variant
# (writing the Ray worker's pid into {marker} first) and raises for BLOCK_SIZE 256.
ON_CLUSTER = """import os, time
import triton
import triton.language as tl


def _held(args):
    if args["BLOCK_SIZE"] == 256:
        raise ValueError("no tiles of 256 here")
    if args["BLOCK_SIZE"] == 512:
        with open({marker!r}, "x") as marker:
            marker.write(str(os.getpid()))
        time.sleep(600)
    return 1


@triton.heuristics({{"HELD": _held}})
@triton.jit
def held_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr, HELD: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {{"n_elements": 4096}}
"""
HELD = ("held.pid",)  # what the cluster rows write in the work folder


def on_cluster(env: Env) -> None:
    (env.root / "work" / "held.py").write_text(ON_CLUSTER.format(marker=str(env.root / "work" / "held.pid")))


def kill_held_worker(env: Env, child: subprocess.Popen, marker: str) -> None:
    os.kill(int((env.root / "work" / "held.pid").read_text()), signal.SIGKILL)


def held_worker_started(env: Env, child: subprocess.Popen, marker: str) -> bool:
    path = env.root / "work" / "held.pid"
    return path.exists() and path.read_text().strip() != ""


def variant_failed(block: str, pattern: str, worker_ends: bool = False) -> Callable[[Env, Result], None]:
    """The variant BLOCK_SIZE=block alone failed, its error matching `pattern`; with `worker_ends`, the
    Ray worker held by it is stopped (cancelled by force)."""

    def check(env: Env, result: Result) -> None:
        try:
            variants = strict_json(result.out)["variants"]
        except ValueError as exc:
            raise AssertionError(f"stdout is not the sweep's JSON ({exc}); stderr: {result.err[-1500:]}") from None
        failed = [(v["label"]["BLOCK_SIZE"], v["error"]) for v in variants if v["error"]]
        assert len(failed) == 1 and failed[0][0] == block and re.search(pattern, failed[0][1]), failed
        assert "\n" not in failed[0][1], f"the error is not one line: {failed[0][1]!r}"
        if worker_ends:
            pid, deadline = int((env.root / "work" / "held.pid").read_text()), time.monotonic() + 30
            while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3] != " Z ":
                assert time.monotonic() < deadline, f"the Ray worker {pid} still runs the cancelled task"
                time.sleep(0.2)

    return check


SWEEP_ON = "diff held.py --target sm90 --json --cluster {cluster} --vary BLOCK_SIZE="
UNCAPPED = {"memory": None}  # Ray's driver maps the node's whole object store: no address-space cap
# fmt: off
CLUSTER_ROWS = [
    Row(SWEEP_ON + "128,256", id="cluster-variant-raises", setup=(on_cluster,), **UNCAPPED, exit=1, json=True,
        timeout=300, check=variant_failed("256", r"held_kernel raised ValueError: no tiles of 256 here")),
    Row(SWEEP_ON + "128,512 --timeout 300", id="cluster-worker-killed", setup=(on_cluster,), **UNCAPPED, exit=1,
        json=True, timeout=300, ready=held_worker_started, action=kill_held_worker, changes=HELD,
        check=variant_failed("512", r"crashed on the cluster")),
    Row(SWEEP_ON + "128,512 --timeout 20", id="cluster-variant-past-timeout", setup=(on_cluster,), **UNCAPPED,
        exit=1, json=True, timeout=300, changes=HELD,
        check=variant_failed("512", r"^timed out after 20 s$", worker_ends=True)),
    Row(SWEEP_ON + "128,512 --timeout 300", id="cluster-sigint-mid-sweep", setup=(on_cluster,), **UNCAPPED, signal=INT,
        timeout=300, ready=held_worker_started, changes=HELD),
]
# fmt: on


@pytest.fixture(scope="module")
def ray_cluster():
    """One Ray head for the module's cluster rows (started only when one runs; seconds)."""
    pytest.importorskip("ray")
    from ray_head import ray_head

    with ray_head() as (address, _):
        yield address


@pytest.mark.parametrize("row", CLUSTER_ROWS, ids=[r.id for r in CLUSTER_ROWS])
def test_cluster_fault(row: Row, ray_cluster, warm, tmp_path):
    check_row(row, warm, tmp_path, {"{cluster}": ray_cluster})


def test_cluster_head_gone_mid_sweep(warm, tmp_path):
    """The head of the cluster stops while a variant runs: one line naming the cluster, exit 2, and
    nothing of the run left (a head of its own: this one is stopped)."""
    pytest.importorskip("ray")
    from ray_head import ray_head, stop

    with ray_head() as (address, session):
        row = Row(
            SWEEP_ON + "128,512 --timeout 300",
            id="cluster-head-gone",
            setup=(on_cluster,),
            **UNCAPPED,
            exit=2,
            timeout=300,
            ready=held_worker_started,
            action=lambda *_: stop(session),
            changes=HELD,
            says=(rf"--cluster {re.escape(address)}", r"(?i)stopped answering"),
            forbid=(r"SystemExit",),
        )
        check_row(row, warm, tmp_path, {"{cluster}": address})
