"""Runs the simulated GPU's tests under torch's CUDA build with no GPU visible, in a fresh virtual
environment: what a workstation or a GPU-less node of a cluster has (the README's test command
runs everything else under torch's CPU build). Run by hand after a change to
triton_api/simulated/, not in CI: on the shared 2-core machine the install alone took 10 minutes.

    python tests/cuda_build.py

The CUDA build is torch 2.14.1 (and the torchvision of its release), which pip takes from this
machine's disk for Python 3.11 rather than downloading it (5.5 GB in the environment), with the
Triton release torch pins. Its tests: the simulated GPU's answers (tests/test_simulated_answers.py:
the attention and convolution kernels torch's CUDA build picks, memory figures, CUDA graphs, value
reads). The corpus against the H100 (tests/test_corpus_h100.py)
needs the H100's Triton, 3.6.0, which torch 2.14.1 does not take: it runs in the README's command.
Exits non-zero when the run fails.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("torch==2.14.1", "torchvision==0.29.1")
TESTS = ("tests/test_simulated_answers.py",)


def main() -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tritonscope-cuda-build-") as folder:
        venv = Path(folder) / "venv"
        python = venv / "bin" / "python"
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [python, "-m", "pip", "install", "-q", "--upgrade", "pip"],
            [python, "-m", "pip", "install", "-q", *PACKAGES, f"{ROOT}[test]"],
            [
                python,
                "-c",
                "import torch; assert torch.version.cuda and not torch.cuda.is_available(); print(torch.__version__)",
            ],
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
        ]
        for step in steps:
            print(f"+ [cuda build] {' '.join(map(str, step))}", flush=True)
            if subprocess.run(step, cwd=ROOT).returncode != 0:
                print("torch's CUDA build: FAILED at the step above", flush=True)
                return 1
    print(f"torch's CUDA build: passed in {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
