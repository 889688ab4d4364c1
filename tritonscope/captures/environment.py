"""The environment `trace` runs a program with: what the capture hook, the launch recorder and the
simulated GPU read in the traced program, by the names of capture_hook/tritonscope_contract.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..core.autotune_rule import AutotuneRule


def environment_for_capture(
    out: Path,
    launches: int = contract.DEFAULT_LAUNCH_LIMIT,
    device: dict | None = None,
    autotune: AutotuneRule | None = None,
    on_read: str = "host",
    debug: bool = False,
) -> dict[str, str]:
    """The environment `trace` runs a program with: compiles land in OUT/cache, each one logged, and
    each compiled kernel's first LAUNCHES launches (in each process) are logged too. With DEVICE
    (core/targets.py: Target.simulated_device) the program runs against that simulated GPU, where
    AUTOTUNE (default: the first) picks the candidate each autotuned kernel launches, ON_READ
    answers a value read (`host`: its value computed on the host; `stop`; or the number it is answered
    with; each answer logged), and
    DEBUG has a stop write the Python stack it was met in."""
    hook = Path(contract.__file__).resolve().parent  # sitecustomize.py and the contract it reads
    path = os.environ.get("PYTHONPATH", "")
    simulated = {
        contract.ENV_SIMULATED_DEVICE: json.dumps(device) if device else "",
        contract.ENV_STOPPED: str(out / contract.STOP_RECORD) if device else "",
        contract.ENV_AUTOTUNE_LOG: str(out / contract.AUTOTUNE_LOG) if device else "",
        contract.ENV_AUTOTUNE_RULE: autotune.as_environment() if device and autotune else "",
        contract.ENV_ON_READ: on_read if device else "host",
        contract.ENV_READ_LOG: str(out / contract.READ_LOG) if device else "",
        contract.ENV_DEBUG: "1" if debug else "",
    }
    return {
        **os.environ,
        **simulated,
        "TRITON_CACHE_DIR": str(out / ".triton-cache"),  # a working cache; the hook copies each compile to cache/
        "TRITON_ALWAYS_COMPILE": "1",  # a kernel already in the user's cache is captured too
        # torch.compile keeps compiled kernels in caches of its own and would then skip Triton's compile:
        # give it a fresh cache, and turn its caches off.
        "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor"),
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
        contract.ENV_CAPTURE: str(out / contract.CAPTURE_LOG),
        contract.ENV_CAPTURE_CACHE: str(out / contract.CACHE_FOLDER),
        contract.ENV_LAUNCHES: str(out / contract.LAUNCH_LOG) if launches > 0 else "",
        contract.ENV_LAUNCH_LIMIT: str(launches),
        "PYTHONPATH": f"{hook}{os.pathsep}{path}" if path else str(hook),
    }
