"""Registers a CUDA device guard in a CPU-only torch, and CUDA hooks that say the device is there
(cuda_guard.cpp says why), built once per torch release into the user's cache folder with the C++
compiler and torch's own headers (about a second)."""

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
        raise GuardUnavailable("the simulated GPU needs a C++ compiler (g++) with this torch: install one")
    root = os.path.dirname(torch.__file__)
    os.makedirs(os.path.dirname(library), exist_ok=True)
    handle, staging = tempfile.mkstemp(suffix=".so", dir=os.path.dirname(library))
    os.close(handle)
    command = [compiler, "-O1", "-shared", "-fPIC", "-std=c++17", "-I", os.path.join(root, "include"), source]
    lib = os.path.join(root, "lib")
    command += ["-o", staging, "-L", lib, f"-Wl,-rpath,{lib}", "-lc10", "-ltorch_cpu"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        os.unlink(staging)
        raise GuardUnavailable(f"building the CUDA device guard failed: {done.stderr.strip()[-300:]}")
    os.replace(staging, library)  # whole or not at all: another process may build it at once


def _library(torch):
    """The built guard library, loaded (built first if this torch release has none in the cache)."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda_guard.cpp")
    with open(source, "rb") as handle:
        key = hashlib.sha256(handle.read() + torch.__version__.encode()).hexdigest()[:16]
    library = os.path.join(_cache_folder(), f"cuda_guard-{key}.so")
    if not os.path.exists(library):
        _build(torch, source, library)
    for name in ("libc10.so", "libtorch_cpu.so"):
        ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", name), mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(library)


def _cpu_only(torch) -> bool:
    return torch.version.cuda is None and torch.version.hip is None


def install(torch) -> bool:
    """True if the guard was registered (a CPU-only build), False where torch has its own."""
    return _cpu_only(torch) and bool(_library(torch).tritonscope_register_cuda_guard())


def install_engine(torch) -> bool:
    """In the traced program only: make torch's C++ code (the autograd engine) see the simulated CUDA
    device, so that a backward pass on fake CUDA tensors runs. A CUDA build's own guard and hooks,
    which drive the real runtime, are replaced; a ROCm build's are left alone. True if a backward
    pass can run now; False where it cannot (ROCm, no C++ compiler, hooks of an unknown class)."""
    if torch.version.hip is not None:
        return False
    try:
        library = _library(torch)
    except (GuardUnavailable, OSError):
        return False
    if not _cpu_only(torch):
        library.tritonscope_replace_cuda_guard()
    library.tritonscope_answer_sdp_choice()
    from .build_facts import cudnn_version

    library.tritonscope_set_cudnn(ctypes.c_long(cudnn_version(torch)))
    return bool(library.tritonscope_install_cuda_hooks())
