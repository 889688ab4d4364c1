"""The NVIDIA tools Triton's wheel carries (nvdisasm, cuobjdump), run on a compiled binary."""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import triton

from ..core.errors import TritonscopeError
from ..core.fileio import read_checked, write_checked


def _nvidia_tool(name: str) -> str:
    """The path of a tool Triton's wheel carries; `knobs.nvidia.<tool>.path` since 3.5."""
    return getattr(triton.knobs.nvidia, name).path


def machine_code(backend: str, binary: bytes) -> dict[str, str]:
    """The texts read off a binary with the vendor's tools: SASS and cuobjdump's resource usage
    for NVIDIA; nothing for AMD, whose assembly and metadata Triton already gives as text."""
    if backend != "cuda":
        return {}
    with ThreadPoolExecutor(1) as background:
        sass = background.submit(disassemble, binary)  # nvdisasm's 0.2-0.3 s overlaps cuobjdump
        usage = resource_usage(binary)
        return {"sass": sass.result(), "resource_usage": usage}


def disassemble(cubin: bytes) -> str:
    """SASS with nvdisasm's line information (`//## File "...", line N`) kept for the line map.

    nvdisasm spends about 0.3 s starting up whatever the kernel, so its output is kept
    beside Triton's cache, keyed by the cubin, and a warm run does not pay it again.
    The memo is checksummed: a truncated or edited one is rebuilt, never shown.
    """
    tool = _nvidia_tool("nvdisasm")
    key = hashlib.sha256(cubin + tool.encode()).hexdigest()
    cached = Path(triton.knobs.cache.dir) / "tritonscope" / f"{key}.sass"
    sass = read_checked(cached)
    if sass is not None:
        return sass
    sass = _run_on_binary(tool, ["-c", "-gi", "-ndf"], cubin)  # no dataflow analysis: same text, faster
    write_checked(cached, sass)
    return sass


def resource_usage(cubin: bytes) -> str:
    return _run_on_binary(_nvidia_tool("cuobjdump"), ["--dump-resource-usage"], cubin)


def _run_on_binary(tool: str, flags: list[str], binary: bytes) -> str:
    with tempfile.TemporaryDirectory(prefix="tritonscope-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(binary)
        result = subprocess.run([tool, *flags, str(path)], capture_output=True, text=True, errors="replace")
    if result.returncode != 0:
        raise TritonscopeError(f"{Path(tool).name} failed (exit {result.returncode}): {result.stderr.strip()}")
    return result.stdout
