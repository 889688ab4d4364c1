"""Real compiles for sm80, sm90 and gfx942: every stage present, and the resource figures right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import WARP32_SAMPLES, compiled

from tritonscope.analysis.resources import amd_waves_per_simd, nvidia_occupancy, total_vgprs
from tritonscope.core.backends import AMD, NVIDIA
from tritonscope.core.fileio import read_checked, write_checked
from tritonscope.core.samples import all_samples
from tritonscope.core.stages import Stage
from tritonscope.core.targets import TARGETS
from tritonscope.parsers.amdgcn import kernel_metadata, llvm_occupancy
from tritonscope.parsers.cuobjdump import kernel_usage
from tritonscope.triton_api.shims import installation_stamp
from tritonscope.triton_api.tools import ptxas_for, resource_usage

SAMPLES = [s.name for s in all_samples()]


def test_vector_add_every_stage_on_sm90():
    c = compiled("sample:vector_add", "sm90")
    assert tuple(c.stages) == NVIDIA.stages_for("triton")
    assert "def add_kernel(" in c.stages[Stage.SOURCE] and c.kernel.first_line == 7
    assert "tt.load" in c.stages[Stage.TTIR] and "tt.store" in c.stages[Stage.TTIR]
    assert re.search(r"#ttg\.blocked<\{sizePerThread = \[4\]", c.stages[Stage.TTGIR])
    assert "define ptx_kernel void @add_kernel" in c.stages[Stage.LLIR]
    # n_elements = 98432 is a multiple of 16, so loads are 128-bit vectors.
    assert "ld.global.v4.b32" in c.stages[Stage.PTX] and ".target sm_90a" in c.stages[Stage.PTX]
    assert "LDG.E.128" in c.stages[Stage.SASS]
    assert re.search(r'//## File ".*vector_add\.py", line 22', c.stages[Stage.SASS])  # line info kept
    assert c.binary.startswith(b"\x7fELF") and c.binary_ext == "cubin"


@pytest.mark.parametrize(
    ("target", "dot_op", "sass_op"), [("sm90", "ttng.warp_group_dot", "HGMMA"), ("sm80", "tt.dot", "HMMA")]
)
def test_matmul_uses_the_tensor_cores(target, dot_op, sass_op):
    c = compiled("sample:matmul", target)
    assert dot_op in c.stages[Stage.TTGIR]
    assert sass_op in c.stages[Stage.SASS]
    assert ("wgmma" if target == "sm90" else "mma.sync") in c.stages[Stage.PTX]


def test_gfx942_stages():
    c = compiled("sample:matmul", "gfx942")
    assert tuple(c.stages) == AMD.stages_for("triton") and c.binary_ext == "hsaco"
    assert "v_mfma" in c.stages[Stage.AMDGCN]
    assert re.search(r"\b(global|buffer)_load", c.stages[Stage.AMDGCN])


def _ptxas_registers(ptx: str, arch: str) -> int:
    """Registers by an independent route: the bundled ptxas -v on the PTX stage."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "k.ptx"
        source.write_text(ptx)
        log = subprocess.run(
            [ptxas_for(re.sub(r"\D", "", arch)), "-v", f"--gpu-name={arch}", str(source), "-o", str(Path(tmp) / "k.o")],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
    return int(re.search(r"Used (\d+) registers", log).group(1))


@pytest.mark.parametrize("sample", SAMPLES)
def test_nvidia_registers_match_ptxas(sample):
    c = compiled(f"sample:{sample}", "sm90")
    r = c.resources
    assert r.registers == _ptxas_registers(c.stages[Stage.PTX], "sm_90a") > 0
    static = kernel_usage(resource_usage(c.binary), c.kernel.name)["SHARED"]  # sm90 ptxas reserves 1 KiB
    assert r.shared_bytes == c.metadata["shared"] + static and r.spills == r.local_bytes // 4
    assert 0 < r.occupancy.blocks_per_sm <= 32


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s not in WARP32_SAMPLES])
def test_amd_figures_match_llvm(sample):
    c = compiled(f"sample:{sample}", "gfx942")
    fields = kernel_metadata(c.stages[Stage.AMDGCN])
    assert c.resources.registers == total_vgprs(fields) > 0
    # The same total by LLVM's own comment, AGPRs included (they share the VGPRs' file on gfx942).
    assert c.resources.registers == int(re.search(r"; NumVGPRsForWavesPerEU: (\d+)", c.stages[Stage.AMDGCN]).group(1))
    # LLVM's own waves-per-SIMD estimate counts registers only (Triton's LDS is dynamic).
    assert amd_waves_per_simd(TARGETS["gfx942"].limits, c.resources.registers) == llvm_occupancy(c.stages[Stage.AMDGCN])
    assert c.resources.shared_bytes >= c.metadata["shared"]


def test_occupancy_rules_by_hand():
    limits = TARGETS["sm90"].limits
    # 128 regs x 32 lanes = 4096 per warp; a quarter SM holds 16384 regs = 4 warps; 16 warps = 4 blocks of 4.
    occ = nvidia_occupancy(limits, registers=128, shared_bytes=0, num_warps=4)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limited_by) == (4, 16, "registers")
    # 100 KiB + 1 KiB reserved per block: two blocks fit in 228 KiB.
    occ = nvidia_occupancy(limits, registers=32, shared_bytes=100 * 1024, num_warps=4)
    assert (occ.blocks_per_sm, occ.limited_by) == (2, "shared memory")
    occ = nvidia_occupancy(limits, registers=32, shared_bytes=0, num_warps=4)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limited_by, occ.percent) == (16, 64, "warps", 100.0)
    # sm86 holds 48 warps and 16 blocks: 2-warp blocks stop at 16 blocks.
    occ = nvidia_occupancy(TARGETS["sm86"].limits, registers=16, shared_bytes=0, num_warps=2)
    assert (occ.blocks_per_sm, occ.limited_by) == (16, "blocks")


def test_too_much_shared_memory_warns_that_launch_will_fail():
    c = compiled("sample:matmul", "sm80", constexprs=("BLOCK_SIZE_M=256", "BLOCK_SIZE_N=256"), num_stages=4)
    assert c.resources.shared_bytes > 163 * 1024
    assert c.resources.occupancy.blocks_per_sm == 0
    assert any("sm_80 allows 163 KiB per block: launch will fail" in w for w in c.resources.warnings)
    assert not compiled("sample:matmul", "sm90").resources.warnings


# --- Triton's hash of its own installation, kept between runs ---------------------------------

TRITON_KEY = "from triton.runtime.cache import triton_key; print(triton_key(), end='')"
REMEMBERED_KEY = "from tritonscope.triton_api.shims import remember_triton_key; remember_triton_key(); " + TRITON_KEY


def _python(code: str, user_cache: Path) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(user_cache)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_remembered_triton_key_is_tritons_own_and_is_read_back(tmp_path):
    tritons_own = _python(TRITON_KEY, tmp_path)
    assert tritons_own.startswith("3.") and len(tritons_own) > 1000  # version, then a sha256 per file
    assert _python(REMEMBERED_KEY, tmp_path) == tritons_own
    (memo,) = (tmp_path / "tritonscope" / "triton-key").iterdir()
    assert read_checked(memo) == tritons_own
    # A later process reads the file instead of hashing 400 MB: what it returns is what the file says.
    write_checked(memo, "read from the memo")
    assert _python(REMEMBERED_KEY, tmp_path) == "read from the memo"


def test_installation_stamp_changes_with_any_file(tmp_path):
    (tmp_path / "compiler").mkdir()
    source = tmp_path / "compiler" / "code_generator.py"
    source.write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    stamp = installation_stamp(tmp_path)
    assert installation_stamp(tmp_path) == stamp
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"bytecode")  # Python's own caches do not count
    assert installation_stamp(tmp_path) == stamp
    source.write_text("x = 22\n")  # edited: size and mtime
    edited = installation_stamp(tmp_path)
    assert edited != stamp
    os.utime(source, ns=(1, 1))  # touched
    assert installation_stamp(tmp_path) not in (stamp, edited)
    touched = installation_stamp(tmp_path)
    (tmp_path / "libtriton.so").write_bytes(b"\0")  # a new file
    assert installation_stamp(tmp_path) not in (stamp, edited, touched)
