"""Every target in the table compiles a tiny kernel with the installed Triton, and its limits are
either figures or plainly unknown."""

from __future__ import annotations

import re

import pytest
from conftest import KERNELS, compiled

from tritonscope.core.quantities import percentage
from tritonscope.core.stages import Stage
from tritonscope.core.targets import TARGETS, AmdLimits, NvidiaLimits
from tritonscope.triton_api.version import installed, release_tuple

RELEASE = release_tuple(installed())[:2]


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_target_compiles_a_tiny_kernel(name):
    target = TARGETS[name]
    if RELEASE < target.since:
        pytest.skip(f"{name} is compiled from Triton {'.'.join(map(str, target.since))} on")
    c = compiled("sample:vector_add", name, constexprs=("BLOCK_SIZE=256",))
    assert c.variant.target == name and c.resources.registers > 0
    if target.backend == "cuda":
        assert f".target sm_{target.arch}" in c.stages[Stage.PTX]
        # SASS for every target: where Triton's nvdisasm is older than the target, tritonscope[sass]'s
        # (installed with [test]) reads it.
        assert Stage.SASS in c.stages and "EXIT" in c.stages[Stage.SASS], c.notices
        assert c.resources.instructions.total > 0
    else:
        assert re.search(rf'\.amdgcn_target ".*-{target.arch}"', c.stages[Stage.AMDGCN])
        assert (".amdhsa_wavefront_size32 1" in c.stages[Stage.AMDGCN]) == (target.warp_size == 32)
    assert 0 < c.resources.occupancy.percent <= 100


def test_limits_are_figures_or_unknown():
    for target in TARGETS.values():
        assert isinstance(target.limits, NvidiaLimits if target.backend == "cuda" else AmdLimits)
        for name in target.unknown:
            assert getattr(target.limits, name) is None
    assert TARGETS["sm75"].limits.max_warps_per_sm == 32 and TARGETS["sm121"].limits.max_blocks_per_sm == 24
    assert TARGETS["gfx1250"].unknown and not TARGETS["sm90"].unknown


def test_every_default_fit_target_has_a_gpu_to_simulate_and_the_others_say_so():
    """fit over a torch.compile capture imports Inductor's kernels against each target's simulated GPU:
    sm75's was missing (a KeyError in every Inductor cell); a target with none says so."""
    from tritonscope.app.fit import DEFAULT_TARGETS
    from tritonscope.core.errors import UsageError

    for name in DEFAULT_TARGETS:
        device = TARGETS[name].simulated_device()
        assert device["multiprocessor_count"] > 0 and device["name"], name
    assert TARGETS["sm75"].simulated_device()["max_threads_per_multiprocessor"] == 1024
    with pytest.raises(UsageError, match="no GPU of sm103 is tabled to simulate"):
        TARGETS["sm103"].simulated_device()


def test_a_target_newer_than_the_installed_triton_says_which_release(cli):
    if RELEASE >= TARGETS["sm110"].since:
        pytest.skip("the installed Triton compiles for sm110")
    result = cli("dump", "sample:vector_add", "-t", "sm110", expect=2)
    assert "does not compile for sm110" in result.stderr and "--triton 3.9.0" in result.stderr


def test_targets_newer_than_tritons_nvdisasm_get_sass_with_lines_from_the_sass_extra():
    """Triton 3.6 bundles CUDA 12.8's nvdisasm, which cannot read sm103 or sm121 cubins; the nvdisasm
    of tritonscope[sass] (NVIDIA's nvidia-cuda-nvdisasm wheel, installed with [test]) reads them,
    with the line information the line map needs."""
    from tritonscope.triton_api.tools import newer_tool

    assert newer_tool("nvdisasm"), 'tritonscope[sass] is not installed: pip install ".[test]"'
    for name in ("sm103", "sm121"):
        c = compiled("sample:matmul", name)
        sass = c.stages[Stage.SASS]
        assert '//## File "' in sass and 'matmul.py", line' in sass, name  # nvdisasm's -gi line information
        assert any("matmul.py" in f for lines in c.line_map[Stage.SASS].values() for f, _ in lines), name  # line map
        assert "MMA" in sass, name


def test_where_no_nvdisasm_reads_a_target_one_line_names_the_extra_that_does():
    from tritonscope.triton_api.tools import refusal_line

    missing = refusal_line(103, "nvdisasm fatal : Cannot decode architecture 'SM103a'", "12.8", None)
    assert missing.startswith("no SASS: the nvdisasm Triton ") and "(12.8) cannot disassemble sm_103" in missing
    assert "(Cannot decode architecture 'SM103a')" in missing and 'pip install "tritonscope[sass]"' in missing
    assert "\n" not in missing
    stale = refusal_line(130, "Cannot decode architecture 'SM130'", "12.8", "13.5")
    assert "nor tritonscope[sass]'s (13.5) can disassemble sm_130" in stale
    assert 'pip install -U "tritonscope[sass]"' in stale


def test_every_speeds_figure_agrees_with_the_simulated_gpu_and_the_per_warp_model():
    """The launch figures of a target's GPU are the same GPU `trace --target` simulates (SMs, L2), and
    the DRAM bandwidth per SM per clock they give is the per-warp model's family figure (latencies.py
    derives it the same way from the same data sheet), but for the H200, whose HBM3e is faster."""
    from tritonscope.analysis import latencies

    for name, target in TARGETS.items():
        speeds = target.speeds
        if speeds is None:
            assert target.backend == "hip" or name in ("sm103", "sm110", "sm121"), name
            continue
        if name in ("sm80", "sm86", "sm89", "sm90", "h200", "sm100", "sm120"):
            assert (target.gpu.multiprocessors, target.gpu.l2_bytes) == (speeds.multiprocessors, speeds.l2_bytes)
        per_sm = speeds.dram_bytes_per_clock / speeds.multiprocessors
        family = latencies.for_arch(int(target.arch)).dram_bytes_per_cycle
        assert (abs(per_sm - family) < 0.05) == (name != "h200"), (name, per_sm, family)
    h200, h100 = TARGETS["h200"], TARGETS["sm90"]
    assert h200.arch == h100.arch == 90 and h200.limits == h100.limits
    assert h200.speeds.dram_bytes_per_s / h100.speeds.dram_bytes_per_s > 1.4
    assert h200.gpu.name == "NVIDIA H200" and h200.gpu.memory_bytes == 143771 << 20


@pytest.mark.parametrize(("target", "opcode"), [("sm120", "QMMA"), ("sm90", "QGMMA")])
def test_an_fp8_dot_is_counted_as_matrix_ops_on_every_target(target, opcode):
    """sm120's QMMA was no row of the opcodes table: `matrix ops 0`, its time put down to issue."""
    c = compiled(str(KERNELS / "fp8_dot.py"), target, kernel="fp8_dot")
    made = sum(1 for line in c.stages[Stage.SASS].splitlines() if re.search(rf"\b{opcode}\b", line))
    assert made and c.resources.instructions is not None and c.resources.instructions.matrix == made


def test_a_cu_whose_simds_are_unknown_holds_a_block_and_says_its_figures_are_one_simds(cli):
    """gfx1250: LLVM's 5 waves per SIMD were read as the CU's, an 8-wave block "did not fit": occupancy
    0%, "launch will fail", a failed check, for a kernel that launches."""
    out = cli("dump", "sample:matmul", "-t", "gfx1250", "--stage", "ttgir").stdout
    flat = " ".join(out.split())
    waves = int(re.search(r"│ (\d+) of 16 waves per SIMD \(LLVM's\),", flat).group(1))
    assert waves >= 1 and "launch will fail" not in flat and "0 blocks" not in flat
    assert f"│ occupancy │ {percentage(100 * waves / 16)} │" in flat  # of the SIMD's 16


def test_gfx1250s_copies_into_lds_are_async_copies_of_their_width():
    """`global_load_async_to_lds_b128` was a 32-bit global load (a narrow-access finding of a 128-bit
    copy), `tensor_load_to_lds` nothing at all. Opcodes as Triton 3.9's gfx1250 matmul and TMA kernels
    print them."""
    from tritonscope.analysis import opcodes

    assert opcodes.amdgcn_kind("global_load_async_to_lds_b128") == opcodes.ASYNC_COPY
    assert opcodes.amdgcn_bits("global_load_async_to_lds_b128") == 128
    assert opcodes.amdgcn_kind("tensor_load_to_lds") == opcodes.TMA
    assert opcodes.amdgcn_kind("tensor_store_from_lds") == opcodes.TMA_STORE
    assert (opcodes.amdgcn_kind("global_load_dwordx4"), opcodes.amdgcn_bits("global_load_dwordx4")) == (
        opcodes.GLOBAL_LOAD, 128)  # fmt: skip
    assert opcodes.amdgcn_bits("global_load_ubyte_d16_hi") == 8


def test_a_tensor_descriptors_tiles_are_counted_in_the_launchs_traffic(cli):
    """Triton 3.9 writes a descriptor's type `!tt.tensordesc<128x64xf16>` (3.6: `tensordesc<tensor<...>>`):
    unread, a TMA matmul's launch moved 264 KB from the L2, not 2.1 GB, and fit ranked TMA configs first."""
    import json

    pointers = [word for name in ("a_ptr", "b_ptr", "c_ptr") for word in ("-a", f"{name}=*fp16")]
    doc = json.loads(
        cli(
            "explain",
            KERNELS / "warp_specialized_matmul.py",
            "-t",
            "sm90",
            *pointers,
            "--grid",
            "32,32",
            "--no-what-if",
            "--json",
        ).stdout  # fmt: skip
    )
    per_block = 4096 * (128 + 128) * 2  # each block's K loop: a 128x64 and a 128x64 fp16 tile a trip
    assert abs(doc["time"]["launch"]["l2_bytes"] / (1024 * per_block) - 1) < 0.05


def test_a_loops_trips_are_read_where_its_back_edge_is_on_a_line_of_its_body(cli):
    """Triton 3.9 on sm120 puts the K loop's closing branch on a line of its body (`b = tl.load`), not
    on the `for` line: the loop was assumed to run 16 times where the file's K gives 32."""
    import json

    doc = json.loads(cli("explain", KERNELS / "fp8_dot.py", "-k", "fp8_matmul", "-t", "sm120", "--no-what-if",
                         "--json").stdout)  # fmt: skip
    said = " ".join(doc["time"]["assumptions"])
    loop = next(n for n, text in enumerate((KERNELS / "fp8_dot.py").read_text().splitlines(), 1) if "for k in" in text)
    assert f"loop trips from the arguments (line {loop}: 32)" in said and "assumed to run" not in said


def test_an_fp8_matmuls_flops_are_said_as_they_are_at_fp8s_rate(cli):
    """The time is reckoned in FP16-rate FLOPs (FP8's count half); the figures said were those: an fp8
    GEMM's 2*M*N*K halved, at FP16's rate."""
    import json

    doc = json.loads(cli("explain", KERNELS / "fp8_dot.py", "-k", "fp8_matmul", "-t", "sm90", "--grid", "32,32",
                         "--no-what-if", "--json").stdout)  # fmt: skip
    tensor = next(limit for limit in doc["time"]["launch"]["limits"] if limit["name"] == "tensor cores")
    assert tensor["said"].startswith(f"{2 * 4096**3 / 1e9:,.1f} GFLOP at 1,584 TFLOP/s"), tensor
