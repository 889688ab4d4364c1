"""The NVIDIA tools Triton's wheel carries (nvdisasm, cuobjdump), run on a compiled binary; where
Triton's nvdisasm is older than the target, NVIDIA's newer one that `tritonscope[sass]` installs."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import re
import struct
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import triton

from ..core.errors import TritonscopeError
from ..core.fileio import read_checked, write_checked
from ..parsers import asm_loc, life_ranges, sass_lines, sass_listing
from . import cubins

# Kept in Triton's metadata (a cache-key entry, shims.cache_key_extras) of the compiles whose ptxas
# was given the PTX with one `.loc` per inline-asm block (shims._stages_hook): nvdisasm's `-gp` PTX
# lines then count that text's lines, not those of the PTX Triton wrote and tritonscope shows.
PTXAS_INPUT = ("tritonscope_ptxas_input", "one-loc-per-inline-asm")


def _nvidia_tool(name: str) -> str:
    """The path of a tool Triton's wheel carries; `knobs.nvidia.<tool>.path` since 3.5."""
    return getattr(triton.knobs.nvidia, name).path


def machine_code(
    backend: str,
    binary: bytes,
    ptx: str | None = None,
    arch: int | str = 90,
    metadata: dict | None = None,
    sass: bool = True,
) -> dict[str, str]:
    """The texts read off a binary with the vendor's tools: SASS and cuobjdump's resource usage
    for NVIDIA (and ptxas's spill report when the kernel uses a stack frame or local memory);
    nothing for AMD, whose assembly and metadata Triton already gives as text. The SASS's PTX
    lines are those of `ptx` as shown, whatever ptxas was given (Triton's `metadata` says).
    Without `sass`, the caller disassembles later (many cubins at once: `disassemble_code`)."""
    if backend != "cuda":
        return {}
    with ThreadPoolExecutor(1) as background:
        listing = background.submit(disassemble, binary) if sass else None  # nvdisasm's 0.2-0.3 s overlaps cuobjdump
        texts = {"resource_usage": resource_usage(binary)}
        if ptx and _uses_local_memory(texts["resource_usage"]):
            texts["ptxas_report"] = ptxas_report(ptx, arch)
        if listing is None:
            return texts
        return _with_listing(texts, listing.result, ptx, arch, metadata)


def with_sass(
    texts: dict[str, str], binary: bytes, arch: int | str, metadata: dict | None = None, listing: str | None = None
) -> dict[str, str]:
    """The texts of a compile read without its SASS (`machine_code(..., sass=False)`), with the SASS
    read now, as `machine_code` reads it (`listing`: nvdisasm's, read already by disassemble_lines)."""
    read = (lambda: listing) if listing is not None else (lambda: disassemble(binary))
    return _with_listing(dict(texts), read, texts.get("ptx"), arch, metadata)


def _with_listing(texts: dict[str, str], read, ptx: str | None, arch: int | str, metadata: dict | None) -> dict:
    try:
        texts["sass"] = read()
    except TritonscopeError as exc:
        if "Cannot decode architecture" not in str(exc):
            raise
        texts[SASS_REFUSED] = sass_refused(arch, str(exc))
        return texts
    texts = with_serialization_report(texts, ptx, arch)
    if ptx and (metadata or {}).get(PTXAS_INPUT[0]) == PTXAS_INPUT[1]:
        texts["sass"] = sass_lines.renumber_ptx_lines(texts["sass"], asm_loc.kept_line_numbers(ptx))
    texts["sass"] = asm_loc.real_file_names(texts["sass"], ptx)
    return texts


SASS_REFUSED = "sass_refused"  # the texts' key of why there is no SASS (not a stage)
SASS_EXTRA = "tritonscope[sass]"  # pyproject.toml's extra that installs NVIDIA's newest nvdisasm


def sass_refused(arch: int | str, reason: str = "Cannot decode architecture") -> str:
    """An older nvdisasm than the target (Triton 3.6 bundles CUDA 12.8's, which knows no sm_103 or sm_121)."""
    newer = newer_tool("nvdisasm")
    bundled = _tool_version(_nvidia_tool("nvdisasm"))
    return refusal_line(arch, reason, bundled, _tool_version(newer) if newer else None)


def refusal_line(arch: int | str, reason: str, bundled: str, newer: str | None) -> str:
    """One line saying that no nvdisasm here reads sm_ARCH, and which extra gives the SASS: nvdisasm
    BUNDLED is Triton's, NEWER tritonscope[sass]'s (None: not installed)."""
    ours = f"the nvdisasm Triton {triton.__version__} bundles ({bundled})"
    why = reason.split(":")[-1].strip()
    if newer is None:
        return (
            f'no SASS: {ours} cannot disassemble sm_{arch} ({why}); pip install "{SASS_EXTRA}" adds NVIDIA\'s newer '
            "one, which can. Registers and shared memory are read from the binary."
        )
    return (
        f"no SASS: neither {ours} nor {SASS_EXTRA}'s ({newer}) can disassemble sm_{arch} ({why}); "
        f'pip install -U "{SASS_EXTRA}" for a newer one. Registers and shared memory are read from the binary.'
    )


@functools.cache
def newer_tool(name: str) -> str | None:
    """The NAME binary of NVIDIA's nvidia-cuda-NAME wheel (CUDA 13's, or later: what tritonscope[sass]
    installs, at `nvidia/cu13/bin/NAME` in site-packages), found by the wheel's own file list; None
    where it is not installed."""
    try:
        files = importlib.metadata.distribution(f"nvidia-cuda-{name}").files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == name and file.parent.name == "bin":
            path = Path(str(file.locate())).resolve()
            if os.access(path, os.X_OK):
                return str(path)
    return None


def _nvdisasms() -> list[str]:
    """The nvdisasm binaries to read a cubin with, in order: Triton's (or TRITON_NVDISASM_PATH's),
    then tritonscope[sass]'s where it is installed, for the architectures Triton's cannot decode."""
    tools = [_nvidia_tool("nvdisasm")]
    newer = newer_tool("nvdisasm")
    return tools + [newer] if newer and newer not in tools else tools


_REFUSED: set[tuple[str, int]] = set()  # (nvdisasm, cubin architecture) that said it cannot decode it


def _run_nvdisasm(flags: list[str], binary: bytes) -> str:
    """nvdisasm's output for a cubin, from the first of `_nvdisasms` that decodes its architecture
    (a refusal is remembered for this process); TritonscopeError "Cannot decode architecture" when none does."""
    arch = cubins.architecture(binary)
    refusal = TritonscopeError(f"nvdisasm failed: Cannot decode architecture of the cubin ({arch:#x})")
    for tool in _nvdisasms():
        if (tool, arch) in _REFUSED:
            continue
        try:
            return _run_on_binary(tool, flags, binary)
        except TritonscopeError as exc:
            if "Cannot decode architecture" not in str(exc):
                raise
            _REFUSED.add((tool, arch))
            refusal = exc
    raise refusal


def with_serialization_report(texts: dict[str, str], ptx: str | None, arch: int | str) -> dict[str, str]:
    """The texts, with ptxas's report where their SASS shows every wgmma waited for on its own
    (sass_lines.hgmma_waits): ptxas serialized them, and only its report says why. Called where
    the SASS is read, one compile's (`machine_code`) or a sweep's (`app.walk.prepare.finish`)."""
    if not ptx or "ptxas_report" in texts:
        return texts
    hgmma, waited = sass_lines.hgmma_waits(texts.get("sass", ""))
    if hgmma > 1 and waited == hgmma:
        return {**texts, "ptxas_report": ptxas_report(ptx, arch)}
    return texts


def _uses_local_memory(usage: str) -> bool:
    return any(int(size) for size in re.findall(r"\b(?:STACK|LOCAL):(\d+)", usage))


def ptxas_for(arch: int | str) -> str:
    """The ptxas Triton itself runs for an architecture: since 3.6 it bundles two, and 3.9 assembles
    sm90 with the newer one (whose PTX the older ptxas refuses). `get_ptxas(arch)` since 3.6."""
    import inspect

    from triton.backends.nvidia import compiler

    if inspect.signature(compiler.get_ptxas).parameters:
        return compiler.get_ptxas(int(arch)).path
    return compiler.get_ptxas().path


def ptxas_report(ptx: str, arch: int | str) -> str:
    """`ptxas -v` on the PTX: the stack frame and the spill stores and loads, which only ptxas counts,
    and the performance losses it announces. Triton's own ptxas run keeps no report, so it is
    assembled again (0.1-0.3 s), only for kernels that use local memory or whose SASS shows
    serialized wgmma."""
    result, _ = _assembled(ptxas_for(arch), ptx, arch, "-v")
    return asm_loc.real_file_names(result.stdout + result.stderr, ptx)


def _assembled(ptxas: str, ptx: str, arch: int | str, *flags: str) -> tuple[subprocess.CompletedProcess, bytes | None]:
    """PTX assembled again by PTXAS for ARCH, in a folder of its own: ptxas's run, and the cubin it
    wrote (None where it wrote none). `a` architectures (sm_90a ...) for the features Triton's PTX uses."""
    suffix = "a" if str(arch) in ("90", "100", "101", "120") else ""
    with tempfile.TemporaryDirectory(prefix="tritonscope-") as tmp:
        source, output = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        source.write_text(asm_loc.ascii_only(ptx))
        command = [ptxas, *flags, f"--gpu-name=sm_{arch}{suffix}", str(source), "-o", str(output)]
        result = subprocess.run(command, capture_output=True, text=True, errors="replace")
        return result, output.read_bytes() if output.exists() else None


# nvdisasm's flags, and the key of their memos: -gi, Python lines; -gp, PTX lines, for the call sites
# of inlined helpers; -ndf, no dataflow analysis (the same text, faster). `disassemble` and
# `disassemble_lines` share theirs: one's listing is read back by the other.
_WITH_LINES, _WITH_LINES_KEY = ["-c", "-gi", "-gp", "-ndf"], "-gi -gp"
_CODE_ONLY, _CODE_ONLY_KEY = ["-c", "-ndf"], "-c -ndf"


def disassemble(cubin: bytes) -> str:
    """SASS with nvdisasm's line information (`//## File "...", line N`) kept for the line map.

    nvdisasm spends about 0.3 s starting up whatever the kernel, so its output is kept
    beside Triton's cache, keyed by the cubin, and a warm run does not pay it again.
    The memo is checksummed: a truncated or edited one is rebuilt, never shown.
    """
    cached = _memo(cubin, "\n".join(_nvdisasms()), _WITH_LINES_KEY, "sass")
    sass = read_checked(cached)
    if sass is not None:
        return sass
    sass = _run_nvdisasm(_WITH_LINES, cubin)
    write_checked(cached, sass)
    return sass


def disassemble_code(binaries: list[bytes]) -> list[str | None]:
    """SASS without line information for many cubins, in one nvdisasm run per architecture (see
    cubins.py), each kept beside Triton's cache like `disassemble`'s. A sweep's variants pay
    nvdisasm's start-up once instead of once each. None for a cubin no nvdisasm here can read."""
    return _disassemble_many(binaries, lines=False)


def disassemble_lines(binaries: list[bytes], exact: bool = True) -> list[str | None]:
    """What `disassemble` gives each cubin (its SASS with line information), for many cubins in one
    nvdisasm run per architecture, and kept where `disassemble` keeps it: a later `disassemble` of
    one of them reads it back. Cubins in ptxas 13's layout are read one by one: nvdisasm 13 lines up
    its control fields (`&wr=0x1 ?trans8`) in a column set by the whole file, which a merged file
    may move. With `exact=False` (a listing read for its instructions, not shown) they merge too,
    and a listing whose control fields a merge may have moved is returned but not kept."""
    return _disassemble_many(binaries, lines=True, exact=exact)


def _disassemble_many(binaries: list[bytes], lines: bool, exact: bool = True) -> list[str | None]:
    if not binaries:  # nothing to read (AMD targets, a cluster's finished compiles): no tool looked up
        return []
    tools = "\n".join(_nvdisasms())
    flags, key = (_WITH_LINES, _WITH_LINES_KEY) if lines else (_CODE_ONLY, _CODE_ONLY_KEY)
    memos = [_memo(binary, tools, key, "sass") for binary in binaries]
    texts = [read_checked(memo) for memo in memos]
    missing: dict[int, list[int]] = {}
    for index, (binary, text) in enumerate(zip(binaries, texts, strict=True)):
        if text is None:
            alone = exact and lines and cubins.cuda_format(binary) == 13  # a group of its own: read alone
            missing.setdefault(-index - 1 if alone else cubins.architecture(binary), []).append(index)

    def read(indices: list[int]) -> None:
        try:
            listings = _disassemble_together([binaries[i] for i in indices], flags, lines)
        except TritonscopeError as exc:
            if "Cannot decode architecture" not in str(exc):
                raise
            return  # every nvdisasm here is older than the target: these stay None (no SASS), as machine_code says
        for index, text in zip(indices, listings, strict=True):
            texts[index] = text
            fields = sass_listing.CONTROL_FIELDS.search(text)
            moved = len(indices) > 1 and cubins.cuda_format(binaries[index]) == 13 and fields
            if not moved:
                write_checked(memos[index], text)

    with ThreadPoolExecutor(min(len(missing), os.cpu_count() or 1) or 1) as runs:  # architectures side by side
        for done in [runs.submit(read, indices) for indices in missing.values()]:
            done.result()
    return texts


def _disassemble_together(binaries: list[bytes], flags: list[str], lines: bool) -> list[str]:
    """Cubins of one architecture, in one nvdisasm run where they merge (cubins.mergeable)."""
    together = [b for b in binaries if cubins.mergeable(b)]
    read: dict[int, str] = {}
    if len(together) > 1:
        try:
            merged = _run_nvdisasm(flags, cubins.merge(together, lines=lines))
            read = {id(b): text for b, text in zip(together, cubins.split(merged, together), strict=True)}
        except TritonscopeError as exc:
            if "Cannot decode architecture" in str(exc):
                raise
        except (ValueError, StopIteration, struct.error):
            pass  # a cubin laid out otherwise than Triton's: each on its own, as below
    return [read[id(b)] if id(b) in read else _run_nvdisasm(flags, b) for b in binaries]


def _memo(binary: bytes, tool: str, flags: str, suffix: str) -> Path:
    """Where a tool's output for a binary is kept, beside Triton's cache: keyed by the binary, the
    tool and the flags that change what it prints."""
    key = hashlib.sha256(binary + tool.encode() + flags.encode()).hexdigest()
    return Path(triton.knobs.cache.dir) / "tritonscope" / f"{key}.{suffix}"


def live_registers(cubin: bytes, arch: int | str = 90, ptx: str | None = None) -> dict[int, int]:
    """{instruction address: general registers live after it}, from nvdisasm's `--print-life-ranges`
    (another nvdisasm run, 0.3-1.5 s); kept beside Triton's cache, as pairs, like `disassemble`'s text.
    Where nvdisasm cannot analyze this cubin, those of the PTX assembled again (`_reassembled_life_ranges`).
    A refusal is kept too (`!` and the reason), and raised as a TritonscopeError."""
    # the key names the ptxas that may assemble the PTX again, and this way of reading them (a refusal is kept)
    tools = "\n".join([*_nvdisasms(), _newest_ptxas() or ""])
    cached = _memo(cubin, tools, "--print-life-ranges, else of the PTX assembled again", "live")
    text = read_checked(cached)
    if text is None:
        try:
            live: dict[int, int] | str = life_ranges.parse(_run_nvdisasm(["-c", "--print-life-ranges"], cubin))
        except TritonscopeError as exc:
            if "Std Elf" not in exc.message:
                raise
            live = _reassembled_life_ranges(cubin, arch, ptx) if ptx else "there is no PTX to assemble again"
        if isinstance(live, str):
            text = "!" + _life_ranges_refused(cubin, live)
        else:
            text = "".join(f"{address} {count}\n" for address, count in live.items())
        write_checked(cached, text)
    if text.startswith("!"):
        raise TritonscopeError(text[1:])
    return {int(a): int(n) for a, n in (line.split() for line in text.splitlines())}


def _newest_ptxas() -> str | None:
    """Triton's CUDA 13 ptxas (since 3.6 it bundles it beside CUDA 12's, as `ptxas-blackwell`)."""
    tool = getattr(triton.knobs.nvidia, "ptxas_blackwell", None)
    return tool.path if tool else None


def _reassembled_life_ranges(cubin: bytes, arch: int | str, ptx: str) -> dict[int, int] | str:
    """The life ranges of a ptxas 12 cubin, which nvdisasm 13 does not analyze, read off the same PTX
    assembled again by Triton's CUDA 13 ptxas, whose cubins it does: kept only where that cubin's
    listing is the original's, instruction for instruction at the same addresses (then so are the
    registers live after each). Where not, why not."""
    newest = _newest_ptxas()
    if newest is None or cubins.cuda_format(cubin) == 13:
        return "Triton bundles no ptxas of nvdisasm's release to assemble its PTX again"
    result, again = _assembled(newest, ptx, arch)
    if result.returncode != 0 or again is None:
        return f"Triton's ptxas {_tool_version(newest)} does not assemble its PTX"
    # nvdisasm's other refusals (a kernel of 255 registers: "Invalid register count") are every release's: raised
    ranges = _run_nvdisasm(["-c", "--print-life-ranges"], again)
    if life_ranges.instructions(ranges) != life_ranges.instructions(_run_nvdisasm(_CODE_ONLY, cubin)):
        return f"Triton's ptxas {_tool_version(newest)} assembles its PTX into other instructions"
    return life_ranges.parse(ranges)


def _life_ranges_refused(cubin: bytes, why: str) -> str:
    """Why nvdisasm gave no life ranges: since Triton 3.7 it is CUDA 13's nvdisasm, which analyzes the
    data flow of CUDA 13's cubins only; a cubin of ptxas 12 (what 3.7 and later assemble sm80 with,
    sm90 up to 3.8, and what a capture made under 3.6 holds) it reads in its "old format" mode, where
    the analysis is off ("Disassembling Std Elf to Old format ... not supported yet"); and WHY the
    PTX assembled again gave none either."""
    nvdisasm = triton.knobs.nvidia.nvdisasm.version
    cuda = cubins.cuda_format(cubin)
    return (
        f"nvdisasm {nvdisasm} (Triton's) gives no register life ranges for this cubin: it is in CUDA {cuda}'s "
        f"ELF format (ptxas {cuda}'s), which nvdisasm {nvdisasm.split('.')[0]} reads only without data-flow "
        f"analysis, and {why}. A CUDA {cuda} toolkit's nvdisasm reads them: "
        f"TRITON_NVDISASM_PATH=/usr/local/cuda-{cuda}/bin/nvdisasm (or where yours is)"
    )


def _tool_version(path: str) -> str:
    from triton.knobs import NvidiaTool

    tool = NvidiaTool.from_path(path)
    return tool.version if tool else "?"


def resource_usage(cubin: bytes) -> str:
    return _run_on_binary(_nvidia_tool("cuobjdump"), ["--dump-resource-usage"], cubin)


def _run_on_binary(tool: str, flags: list[str], binary: bytes) -> str:
    with tempfile.TemporaryDirectory(prefix="tritonscope-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(binary)
        result = subprocess.run([tool, *flags, str(path)], capture_output=True, text=True, errors="replace")
    if result.returncode != 0:  # its words name the copy, gone now: the binary it was given
        said = result.stderr.strip().replace(f"File '{path}'", "the binary").replace(str(path), "the binary")
        raise TritonscopeError(
            f"{Path(tool).name} failed (exit {result.returncode}): {said}",
            hint=f"the binary is damaged or cut short ({len(binary):,} bytes): compile it again, or capture again",
        )
    return result.stdout
