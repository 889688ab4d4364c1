"""`tritonscope fit` (issue 40): every autotune config compiled for every default target, judged
against each target's limits, with real compiles. The kernel of tests/kernels/fit_limits.py has
configs 2 KiB under, exactly at and 2 KiB over an H100's 227 KiB, 1 KiB over and 3 KiB under the
99 KiB of Ampere and Ada; liger-kernel's autotuned kernels are the library corpus. The pruner fit
writes is loaded and asked, target by target; a capture is fitted whole and gated by `check --fit`."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from cli_process import tritonscope
from test_corpus_liger import liger_ops

from tritonscope.analysis.fitting import FITS, NO_FIT
from tritonscope.app.fit import DEFAULT_TARGETS, fit
from tritonscope.app.walk.sweep import Axis
from tritonscope.cli.argtypes import budgets, check_dtype
from tritonscope.core.model import VariantRequest
from tritonscope.core.targets import TARGETS
from tritonscope.render.registry import render
from tritonscope.render.terminal.fit import _cell_line
from tritonscope.results.fit import Cell, ConfigRow, FitResult, KernelFit

LIMITS = Path(__file__).parent / "kernels" / "fit_limits.py"
H100 = 232448  # 227 KiB: cudaDevAttrMaxSharedMemoryPerBlockOptin of an H100
ADA = 101376  # 99 KiB: an L4's, an RTX 4090's, an A10's


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def limits():
    """The near-limit kernel's 7 configs x the 8 default targets, compiled two at a time."""
    result = fit(VariantRequest(file=str(LIMITS)), DEFAULT_TARGETS, [], (), jobs=2, timeout=600)
    (kernel,) = result.kernels
    return result, kernel


def shared(kernel, row: int, target: str) -> int:
    return kernel.cells[row][kernel.targets.index(target)].figures["shared"]


def test_every_default_target_compiles_and_only_shared_memory_over_its_limit_does_not_fit(limits):
    _, kernel = limits
    assert kernel.targets == DEFAULT_TARGETS and len(kernel.rows) == 7
    for row in kernel.cells:
        for target, cell in zip(kernel.targets, row, strict=True):
            assert cell.verdict in (FITS, NO_FIT), (target, cell)
            # Triton holds a launch's own shared memory to the limit: an sm90-on cubin's count holds the
            # driver's reserved KiB besides (its static shared memory), counted once
            reserved = 1024 if TARGETS[target].vendor.name == "cuda" and int(TARGETS[target].arch) >= 90 else 0
            over = cell.figures["shared"] - reserved > TARGETS[target].shared_limit
            assert (cell.verdict == NO_FIT) == over, (target, cell)
            assert cell.limit == ("shared memory" if over else None)
            assert cell.figures["registers"] > 0 and (cell.figures["blocks_per_sm"] == 0) == over


def test_the_h100s_227_kib_two_under_exactly_at_and_two_over(limits):
    _, kernel = limits
    hopper = [shared(kernel, row, "sm90") - H100 for row in range(4)]
    assert hopper[:3] == [-2048, 0, 2048] and hopper[3] > 0
    assert [c.verdict for c in kernel.column("sm90")[:4]] == [FITS, FITS, NO_FIT, NO_FIT]
    # A B200 has the same 227 KiB, and sm100's pipeline takes 16 bytes more: the config at the H100's limit
    # is 32 bytes over it with the driver's reserved KiB, and under it without (what Triton holds to it;
    # it was "does not fit" while the reserved KiB was counted against the limit: h26a)
    assert [shared(kernel, row, "sm100") - H100 for row in range(3)] == [-2032, 32, 2080]
    assert [c.verdict for c in kernel.column("sm100")[:4]] == [FITS, FITS, NO_FIT, NO_FIT]
    over = kernel.column("sm90")[2]
    assert over.reason == "shared memory 228 KiB > 227 KiB per block"  # Triton's own 233,472 B
    # The buffers that make it up, as explain lists them: 7 stages of each tile, and W loaded once.
    assert over.buffers == (
        "line 47: 7x128x64xf16, nvmma_shared swizzle 128 = 112 KiB (7 stages x 16 KiB)",
        "line 48: 7x64x128xf16, nvmma_shared swizzle 128 = 112 KiB (7 stages x 16 KiB)",
        "line 44: 64x32xf16, nvmma_shared swizzle 64 = 4 KiB",
    )
    # (the register count is the release's: 111 under Triton 3.6, 117 under 3.9)
    assert re.fullmatch(
        r"\d+ registers, 0 spills, 225 KiB shared memory, 1 block per SM \(12.5%\)", kernel.column("sm90")[0].reason
    )


def test_ampere_and_ada_at_99_kib_and_the_64_kib_of_a_t4_and_an_mi300x(limits):
    _, kernel = limits
    for target in ("sm86", "sm89"):  # one stage fewer than num_stages: 5 x 20 KiB, 6 x 16 KiB
        assert [shared(kernel, row, target) - ADA for row in (4, 5)] == [1024, -3072]
    for target in ("sm86", "sm89", "sm120"):  # sm120's pipeline takes 1 KiB more, on either side of the limit
        assert [c.verdict for c in kernel.column(target)[4:6]] == [NO_FIT, FITS]
    assert kernel.column("sm80")[4].verdict == FITS  # an A100's 163 KiB holds the 100 KiB
    assert kernel.fitting("gfx942") == (6,)  # 64 KiB of LDS: only the small config
    assert kernel.column("gfx942")[5].reason == "LDS 96 KiB > 64 KiB per block"
    assert kernel.column("sm75")[6].verdict == FITS


def test_the_buffers_are_the_ones_explain_lists(limits):
    _, kernel = limits
    report = json.loads(tritonscope("explain", LIMITS, "--config", "2", "--target", "sm90", "--json").stdout)
    finding = next(f for f in report["findings"] if f["kind"] == "shared-memory-by-buffer")
    for buffer in kernel.column("sm90")[2].buffers:
        assert buffer in finding["evidence"]


def test_the_matrix_reads_at_80_columns_and_says_why(limits):
    result, kernel = limits
    text = render(result, "terminal", width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    header = next(line for line in text.splitlines() if line.startswith("config"))
    assert header.split() == ["config", *DEFAULT_TARGETS]
    assert "#2 sm90, sm100: does not fit: shared memory 228 KiB > 227 KiB per block" in text
    counts = next(line for line in text.splitlines() if line.startswith("fit "))
    # sm100: the config at 227 KiB fits (the reserved KiB counted once)
    assert counts.split() == ["fit", "5/7", "3/7", "2/7", "2/7", "5/7", "5/7", "2/7", "1/7"]
    assert "#1: BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, W_N=16, num_warps=8, num_stages=7" in text
    narrow = render(result, "terminal", width=40)  # stacked: two targets a table
    assert (
        max(len(line) for line in narrow.splitlines() if not line.startswith(("#", "    ", "spec", "rN", "the"))) <= 40
    )
    document = json.loads(render(result, "json"))
    assert document["kind"] == "fit" and document["kernels"][0]["fitting"]["sm90"] == [0, 1, 4, 5, 6]
    cell = document["kernels"][0]["configs"][2]["cells"]["sm90"]
    assert cell["verdict"] == NO_FIT and cell["figures"]["shared"] == H100 + 2048 and len(cell["buffers"]) == 3


def test_a_cell_keeps_its_units_when_its_figures_are_wide():
    """512 registers and 448 spills (gfx942, a block of 65,536 fp32 with 4 warps) fill the column: the space goes,
    not the spills' unit."""
    wide = Cell(FITS, "", {"registers": 512, "spills": 448, "shared": 16, "occupancy": 12.5})
    usual = Cell(FITS, "", {"registers": 128, "spills": 16, "shared": 2048, "occupancy": 25.0})
    assert [_cell_line(wide, line) for line in range(4)] == ["fits", "512r448s", "16B", "12.5%"]
    assert [_cell_line(usual, line) for line in range(4)] == ["fits", "128r 16s", "2K", "25%"]


def test_a_cell_says_its_verdict_and_occupancy_whole():
    """`NO budget`, not `NO budg`, and occupancy as every view says it (12.5%, not 12%), on a line of its
    own: the columns widen to the widest cell rather than cut one (issue 55)."""
    over = Cell(NO_FIT, "", {"registers": 128, "spills": 4, "shared": 232448, "occupancy": 12.5}, limit="budget")
    assert [_cell_line(over, line) for line in range(4)] == ["NO budget", "128r 4s", "227K", "12.5%"]
    kernel = KernelFit("k", "k.py", "", (ConfigRow({"BLOCK": "64"}, {"BLOCK": 64}),), ("sm80", "sm90"), ((over, over),))
    drawn = render(FitResult((kernel,), ("spills=0",)), "terminal", width=80)
    assert "k (k.py): 1 config x 2 targets" in drawn
    assert [line.split() for line in drawn.splitlines()[2:7]] == [
        ["config", "sm80", "sm90"],
        ["#0", "NO", "budget", "NO", "budget"],
        ["128r", "4s", "128r", "4s"],
        ["227K", "227K"],
        ["12.5%", "12.5%"],
    ]


def test_the_written_pruner_keeps_exactly_the_configs_that_fit_each_target(limits, tmp_path):
    result, kernel = limits
    written = tmp_path / "tiled_matmul_fit.py"
    written.write_text(render(result, "script"))
    pruner = load(written, "tiled_matmul_fit")
    configs = load(LIMITS, "fit_limits_kernel").tiled_matmul.configs
    for target in kernel.targets:
        kept = pruner.fitting(configs, target)
        assert [configs.index(c) for c in kept] == list(kernel.fitting(target)), target
    # A GPU the matrix lacks: by the limit its driver reports, against its vendor's nearest target below.
    sm87 = [configs.index(c) for c in pruner.fitting(configs, "sm87", shared_limit=ADA)]
    assert sm87 == list(kernel.fitting("sm86"))
    assert pruner.fitting(configs, "gfx1201", shared_limit=65536) == configs  # nothing known: all kept
    assert "prune_configs_by" in pruner.__doc__ and "a_ptr=*fp16" in pruner.__doc__
    assert pruner.prune_configs.__code__.co_varnames[:2] == ("configs", "named_args")


def test_the_command_line_writes_the_pruner_and_refuses_what_does_not_apply(tmp_path):
    out = tmp_path / "prune.py"
    run = tritonscope("fit", LIMITS, "--targets", "sm90,sm_86", "--emit-prune", out, "--json")
    document = json.loads(run.stdout)
    assert document["kernels"][0]["targets"] == ["sm90", "sm86"]
    assert f"wrote {out}" in run.stderr and "FITS = {" in out.read_text()
    assert "    from prune import prune_configs\n" in out.read_text()  # the module as written, by its name
    both = tritonscope("fit", LIMITS, "-t", "sm90", "--targets", "sm80", expect=2).stderr
    assert "with --targets (one or several), or one with --target; not both" in both
    unknown = tritonscope("fit", LIMITS, "--targets", "sm90,rtx", expect=2).stderr
    assert "unknown target 'rtx'" in unknown and not unknown.splitlines()[0].endswith(", auto")  # --targets takes none
    assert "hint: rtx is the GPU of target sm75 (T4, RTX 20xx (Turing)): --targets sm75" in unknown
    assert "--config picks one" in tritonscope("fit", LIMITS, "--config", "1", expect=2).stderr
    assert "fit holds registers" in tritonscope("fit", LIMITS, "--budget", "instructions<=10", expect=2).stderr
    # a -c the configs set: the compiles took it while each row's label named its config's value
    given = tritonscope("fit", "sample:matmul_autotune", "-c", "BLOCK_SIZE_K=32", "--targets", "sm90", expect=2).stderr
    assert "-c BLOCK_SIZE_K=32: matmul_kernel's autotune configs set BLOCK_SIZE_K themselves" in given
    assert "--vary BLOCK_SIZE_K=32," in given


def test_configs_the_file_makes_from_the_gpu_are_each_targets_own(tmp_path):
    """attorch builds num_stages from the compute capability at import: every column was compiled with
    the configs of the first target's simulated GPU (the order of --targets changed the matrix), and
    the pruner recorded them, dropping on an A100 the configs that fit there."""
    kernel = Path(__file__).parent / "kernels" / "configs_from_gpu.py"
    args = ("-a", "a_ptr=*fp16", "-a", "b_ptr=*fp16", "-a", "c_ptr=*fp32", "-a", "K=4096")
    shared = {}
    for order in ("sm75,sm80", "sm80,sm75"):
        document = json.loads(tritonscope("fit", kernel, *args, "--targets", order, "--json").stdout)
        cells = document["kernels"][0]["configs"][0]["cells"]
        shared[order] = {target: cell["figures"]["shared"] for target, cell in cells.items()}
        first, other = order.split(",")
        assert f"the rows name {first}'s; {other}'s differ: #0 num_stages=" in " ".join(document["notes"])
    assert shared["sm75,sm80"] == shared["sm80,sm75"] and shared["sm80,sm75"]["sm80"] > shared["sm80,sm75"]["sm75"]
    out = tmp_path / "prune.py"
    run = tritonscope("fit", kernel, *args, "--targets", "sm75,sm80", "--emit-prune", out)
    assert "not written: " in run.stdout and "the configs differ by target" in run.stdout and not out.exists()
    tritonscope("fit", kernel, *args, "--targets", "sm80", "--emit-prune", out)
    assert "'num_stages': 4" in out.read_text()
    # its heuristic asks the GPU too: it raised `Torch not compiled with CUDA enabled` outside the import
    for target, ampere in (("sm75", False), ("sm80", True)):
        dumped = json.loads(tritonscope("dump", kernel, *args, "-t", target, "--stage", "ttir", "--json").stdout)
        assert dumped["variant"]["constexprs"]["AMPERE"] is ampere


def test_rows_numbered_apart_from_the_configs_each_name_their_config():
    """With --vary beside the autotune configs, #1 said `(config 0)` and #0 said nothing."""
    shown = tritonscope("fit", "sample:matmul_autotune", "--targets", "sm80", "--vary", "num_warps=4,8").stdout
    legend = [line.split(":")[0] for line in shown.splitlines() if line.startswith("#") and ": " in line]
    assert legend[:3] == ["#0 (config 0)", "#1 (config 0)", "#2 (config 1)"], legend
    plain = tritonscope("fit", "sample:matmul_autotune", "--targets", "sm80").stdout
    assert "#0: BLOCK_SIZE_M=" in plain and "(config" not in plain


def test_one_target_and_a_constexpr_without_a_default_given_by_the_grid_alone():
    mixed = Path(__file__).parent / "kernels" / "mixed.py"
    run = tritonscope("fit", mixed, "-k", "scale_kernel", "--vary", "BLOCK=64,128", "-t", "sm90", "--json")
    (kernel,) = json.loads(run.stdout)["kernels"]
    assert kernel["targets"] == ["sm90"] and kernel["fitting"] == {"sm90": [0, 1]}
    assert [(c["values"], c["cells"]["sm90"]["verdict"]) for c in kernel["configs"]] == [
        ({"BLOCK": 64}, FITS),
        ({"BLOCK": 128}, FITS),
    ]
    # `-t A -t B`: both columns (the second -t replaced the first, without a word); refused by a
    # command of one target
    run = tritonscope("fit", mixed, "-k", "scale_kernel", "--vary", "BLOCK=64", "-t", "sm80", "-t", "h100", "--json")
    assert json.loads(run.stdout)["kernels"][0]["targets"] == ["sm80", "sm90"]
    refused = tritonscope("dump", mixed, "-k", "scale_kernel", "-t", "sm80", "-t", "sm90", expect=2).stderr
    assert "--target is given 2 times (sm80, sm90): this command compiles for one target" in refused
    assert "hint: compare them with diff --vary target=sm80,sm90" in refused


def test_a_budget_on_spills_and_a_grid_for_a_kernel_without_configs():
    request = VariantRequest(file="sample:matmul", constexprs=(("BLOCK_SIZE_M", 128),))
    result = fit(request, ("sm75", "sm90"), [Axis("num_stages", (2, 3))], budgets(["spills=0"]), jobs=2, timeout=600)
    (kernel,) = result.kernels
    assert [row.label for row in kernel.rows] == [{"num_stages": "2"}, {"num_stages": "3"}]
    t4 = kernel.column("sm75")
    assert all(c.verdict == NO_FIT and c.limit == "budget" and c.figures["spills"] > 0 for c in t4)
    assert t4[0].reason.startswith("spills ") and t4[0].reason.endswith("over --budget spills=0")
    assert [c.verdict for c in kernel.column("sm90")] == [FITS, FITS]


def test_liger_kernels_autotuned_configs_on_every_default_target():
    """liger's DyT forward, its 18 autotune configs (elementwise: registers, no staged tiles) on each of the
    8 default targets, specialized as liger launches it for a 4096-wide bf16 row."""
    dyt = VariantRequest(
        file=str(liger_ops() / "dyt.py"),
        kernel="_dyt_fwd_kernel",
        dtype=check_dtype("bf16"),
        constexprs=(("HAVE_BETA", True), ("N", 4096)),
    )
    (kernel,) = fit(dyt, DEFAULT_TARGETS, [], (), jobs=2, timeout=600).kernels
    assert len(kernel.rows) == 18 and kernel.rows[0].label == {"BLOCK_N": "1024", "num_warps": "4", "num_stages": "1"}
    # the constexprs given are the matrix's size, said with it (N=4096 was nowhere in fit's output: h20a)
    assert kernel.specialization.endswith("HAVE_BETA=true N=4096"), kernel.specialization
    for target in DEFAULT_TARGETS:
        column = kernel.column(target)
        assert all(c.verdict == FITS and c.figures["registers"] > 0 for c in column), target
        assert all(c.figures["shared"] <= TARGETS[target].shared_limit for c in column)


AUTOTUNED_PROGRAM = """
import torch, triton, triton.language as tl

@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=5, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=3, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def tile_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (rk[None, :] + k))
        b = tl.load(b_ptr + (rk[:, None] + k) * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)

a = torch.empty(256, 256, device="cuda", dtype=torch.float16)
c = torch.empty(256, 256, device="cuda", dtype=torch.float32)
tile_kernel[lambda meta: (256 // meta["BLOCK_M"], 256 // meta["BLOCK_N"])](a, a, c, 256, 256, 256)
x = torch.empty(4096, device="cuda")
copy_kernel[(4,)](x, torch.empty_like(x), 4096, BLOCK=1024)
"""


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("fit-capture")
    program = folder / "program.py"
    program.write_text(AUTOTUNED_PROGRAM)
    tritonscope("trace", "--target", "sm90", "-o", folder / "out", "--", sys.executable, program)
    return folder / "out"


def test_a_capture_fitted_whole(capture):
    document = json.loads(tritonscope("fit", capture, "--targets", "sm89,sm90", "--json", "-j", "2").stdout)
    kernels = {k["kernel"]: k for k in document["kernels"]}
    assert set(kernels) == {"tile_kernel", "copy_kernel"}
    rows = kernels["tile_kernel"]["configs"]
    assert sorted(tuple(r["label"].items()) for r in rows) == [
        (("BLOCK_M", "128"), ("BLOCK_N", "128"), ("BLOCK_K", "64"), ("num_stages", "5")),
        (("BLOCK_M", "64"), ("BLOCK_N", "64"), ("BLOCK_K", "32"), ("num_stages", "3")),
    ]
    big = next(r for r in rows if r["label"]["num_stages"] == "5")
    small = next(r for r in rows if r["label"]["num_stages"] == "3")
    assert big["launched"] and not small["launched"]  # the simulated autotuner kept the first
    assert big["cells"]["sm89"]["verdict"] == NO_FIT and big["cells"]["sm90"]["verdict"] == FITS
    assert small["cells"]["sm89"]["verdict"] == FITS
    (copy,) = kernels["copy_kernel"]["configs"]
    assert copy["launched"] and all(c["verdict"] == FITS for c in copy["cells"].values())
    text = tritonscope("fit", capture, "--targets", "sm89", "-k", "tile_kernel", env={"COLUMNS": "80"}).stdout
    assert "(launched)" in text and "does not fit: shared memory 128 KiB > 99 KiB per block" in text


def test_check_fit_gates_a_capture_on_the_launched_configs(capture):
    failed = tritonscope("check", capture, "--fit", "sm89", expect=1).stdout
    assert "FAIL" in failed and "fit sm89: does not fit: shared memory 128 KiB > 99 KiB per block" in failed
    assert f"tritonscope fit {capture}/ -k tile_kernel --targets sm89" in " ".join(failed.split())
    assert "copy_kernel" in failed and "1 of 3 failed" in failed  # the timing-only candidate is not held
    assert "fits none of the --fit targets" in failed  # the tile kernel's line, above its broken limit
    held = tritonscope("check", capture, "--fit", "sm90").stdout
    assert "all 3 held their budgets" in held
    assert held.count("fits sm90") == 2 and "\n\n" not in held  # each launched compile says what it was held to
    entries = json.loads(tritonscope("check", capture, "--fit", "sm90", "--json").stdout)["entries"]
    assert sorted(len(e["fit_targets"]) for e in entries) == [0, 1, 1]
    assert "--fit checks a capture" in tritonscope("check", LIMITS, "--fit", "sm89", expect=2).stderr


SLOW = """import time

import triton
import triton.language as tl


def _spin(args):
    while args["BLOCK"] == 256:  # this config never finishes specializing: a compile Ctrl-C has to stop
        time.sleep(0.05)
    return 1


@triton.heuristics({"SPIN": _spin})
@triton.jit
def slow_kernel(x_ptr, n_elements, BLOCK: tl.constexpr, SPIN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {"n_elements": 4096, "BLOCK": 128}
"""


@pytest.mark.parametrize("json_out", [False, True], ids=["terminal", "json"])
def test_progress_is_said_and_ctrl_c_keeps_the_finished_cells(tmp_path, json_out):
    """Without a terminal, `N of M compiled` lines on stderr; Ctrl-C keeps the cells compiled, shows the
    matrix with a line saying it is partial (the JSON says so too), and exits 130."""
    import queue
    import signal
    import subprocess
    import threading
    import time

    from cli_process import ENV

    kernel = tmp_path / "slow.py"
    kernel.write_text(SLOW)
    argv = [sys.executable, "-m", "tritonscope", "fit", str(kernel), "--targets", "sm80,sm90"]
    argv += ["--vary", "BLOCK=128,256", "-j", "1", *(["--json"] if json_out else [])]
    pruner = tmp_path / "prune.py"
    pruner.write_text("# an earlier pruner\n")
    argv += ["--emit-prune", str(pruner)]  # not written from a partial matrix: it would drop the rest
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    said: list[str] = []
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not any("2 of 4 compiled" in line for line in said):  # the BLOCK=128 cells, then BLOCK=256 hangs
        try:
            said.append(lines.get(timeout=max(deadline - time.monotonic(), 0.01)))
        except queue.Empty:
            process.kill()
            pytest.fail("no `2 of 4 compiled` on stderr in 120 s: " + "".join(said))
    process.send_signal(signal.SIGINT)
    process.wait(timeout=120)  # the output is a few lines: the pipe holds it until read
    out = process.stdout.read()
    reader.join(timeout=10)
    said += list(lines.queue)
    assert process.returncode == 130, "".join(said)
    assert "fit: compiling for 2 targets: 1 of 4 compiled\n" in said and "Traceback" not in "".join(said)
    if json_out:
        (kernel_fit,) = json.loads(out)["kernels"]
        verdicts = [[cell["verdict"] for cell in row["cells"].values()] for row in kernel_fit["configs"]]
        assert json.loads(out)["partial"] is True and verdicts == [["fits", "fits"], ["not compiled"] * 2]
    else:
        assert "partial: Ctrl-C stopped fit after 2 of 4 compiles; `stopped` cells were not compiled" in out
        assert f"note: not written: {pruner} (the matrix is partial; any earlier one is kept)" in " ".join(out.split())
        assert re.search(r"#0 +fits +fits", out) and re.search(r"#1 +stopped +stopped", out), out
    assert pruner.read_text() == "# an earlier pruner\n"


def test_a_config_naming_what_the_kernel_lacks_does_not_compile_in_its_cell(tmp_path):
    """Triton's launch of such a config raises KeyError ("Keyword argument NOPE was specified but
    unrecognised"): it was said to fit. The other configs are judged as ever."""
    kernel = tmp_path / "k.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune([triton.Config({'BLOCK': 128, 'NOPE': 3}), triton.Config({'BLOCK': 256})], key=['n'])\n"
        "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
    )
    result = fit(VariantRequest(file=str(kernel)), ("sm90",), [], (), jobs=1, timeout=600)
    (bad,), (good,) = result.kernels[0].cells
    assert bad.verdict == "does not compile" and "sets NOPE, which is neither a parameter of the kernel" in bad.reason
    assert good.verdict == FITS


def test_a_config_setting_an_amd_compile_option_compiles_with_it_on_amd_only(tmp_path, cli):
    """An AMD-tuned config list sets waves_per_eu among its kwargs (gemlite, Triton's AMD kernels): a
    field of the HIP backend's options, which the launcher passes to the compile. It was refused on
    every target as "not a parameter of the kernel"; on NVIDIA the launch does raise KeyError."""
    kernel = tmp_path / "k.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune([triton.Config({'BLOCK': 128, 'waves_per_eu': 2}, num_warps=4)], key=['n'])\n"
        "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
    )
    result = fit(VariantRequest(file=str(kernel)), ("gfx942", "sm90"), [], (), jobs=1, timeout=600)
    ((amd, nvidia),) = result.kernels[0].cells
    assert amd.verdict == FITS, amd.reason
    assert nvidia.verdict == "does not compile" and "nor a compile option of sm90's backend" in nvidia.reason
    document = json.loads(cli("dump", kernel, "-t", "gfx942", "--json").stdout)
    assert document["variant"]["options"]["waves_per_eu"] == 2 and document["metadata"]["waves_per_eu"] == 2


def test_no_pruner_is_written_with_nothing_to_choose_among_or_nothing_compiled(tmp_path):
    """A kernel with no autotune configs and no --vary wrote `CONFIGS = [{}]`, which keeps every config;
    a matrix where nothing compiled wrote empty FITS, a pruner that raises at every launch."""
    one, none = tmp_path / "one.py", tmp_path / "none.py"
    run = tritonscope("fit", "sample:vector_add", "--targets", "sm90", "--emit-prune", one)
    assert f"not written: {one} (the kernel has no autotune configs and nothing was varied" in " ".join(
        run.stdout.split()) and not one.exists()  # fmt: skip
    failed = tritonscope("fit", "sample:vector_add", "--vary", "BLOCK_SIZE=3,5", "--targets", "sm90",
                         "--emit-prune", none, expect=1)  # fmt: skip
    assert f"not written: {none} (no config compiled)" in " ".join(failed.stdout.split()) and not none.exists()
