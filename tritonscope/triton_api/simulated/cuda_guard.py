"""Registers a CUDA device guard in a CPU-only torch (cuda_guard.cpp says why), built once per torch
release into the user's cache folder with the C++ compiler and torch's own headers (under a second)."""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile


class GuardUnavailable(RuntimeError):
    """No C++ compiler to build the guard with: a CPU-only torch cannot make CUDA tensors without it."""


def _cache_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tritonscope", "cuda-guard")


def _build(torch, source: str, library: str) -> None:
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if compiler is None:
        raise GuardUnavailable("a CPU-only torch needs a C++ compiler (g++) for the simulated GPU: install one")
    root = os.path.dirname(torch.__file__)
    os.makedirs(os.path.dirname(library), exist_ok=True)
    handle, staging = tempfile.mkstemp(suffix=".so", dir=os.path.dirname(library))
    os.close(handle)
    command = [compiler, "-O1", "-shared", "-fPIC", "-std=c++17", "-I", os.path.join(root, "include"), source]
    command += ["-o", staging, "-L", os.path.join(root, "lib"), "-lc10"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        os.unlink(staging)
        raise GuardUnavailable(f"building the CUDA device guard failed: {done.stderr.strip()[-300:]}")
    os.replace(staging, library)  # whole or not at all: another process may build it at once


def install(torch) -> bool:
    """True if the guard was registered (a CPU-only build), False where torch has its own."""
    if torch.version.cuda is not None or torch.version.hip is not None:
        return False
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda_guard.cpp")
    with open(source, "rb") as handle:
        key = hashlib.sha256(handle.read() + torch.__version__.encode()).hexdigest()[:16]
    library = os.path.join(_cache_folder(), f"cuda_guard-{key}.so")
    if not os.path.exists(library):
        _build(torch, source, library)
    ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libc10.so"), mode=ctypes.RTLD_GLOBAL)
    return bool(ctypes.CDLL(library).tritonscope_register_cuda_guard())
