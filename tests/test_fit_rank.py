"""`fit --rank` (issue 52): each config's launch time on each target's GPU, with real compiles. The
autotuned matmul sample on every default target and the H200; every sample on the H100; liger-kernel's autotuned
DyT forward; the pruner that keeps the fastest; and the same estimate `explain` gives for one config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_process import tritonscope
from test_corpus_liger import liger_ops
from test_fit import load

from tritonscope.analysis.fitting import FITS
from tritonscope.app.fit import DEFAULT_TARGETS, _ranking_order, fit
from tritonscope.app.fit_rank import NOT_NVIDIA, Ranker, Ranking
from tritonscope.cli.argtypes import check_dtype
from tritonscope.core.launch_grid import parse
from tritonscope.core.model import VariantRequest
from tritonscope.core.samples import samples_dir
from tritonscope.core.targets import TARGETS
from tritonscope.render.registry import render

TARGETS_RANKED = (*DEFAULT_TARGETS, "h200")


@pytest.fixture(scope="module")
def matmul():
    result = fit(VariantRequest(file="sample:matmul_autotune"), TARGETS_RANKED, [], (), 2, 600, ranking=Ranking())
    return result, result.kernels[0]


def test_every_fitting_cell_of_a_target_with_figures_is_estimated_for_the_files_grid(matmul):
    result, k = matmul
    assert result.ranked
    for target in k.targets:
        column, speeds = k.column(target), TARGETS[target].speeds
        for row, cell in zip(k.rows, column, strict=True):
            if TARGETS[target].backend != "cuda":
                assert cell.estimate is None and cell.estimate_note == NOT_NVIDIA
            elif cell.verdict == FITS and speeds is not None:
                tiles = (4096 // row.values["BLOCK_SIZE_M"]) * (4096 // row.values["BLOCK_SIZE_N"])
                assert cell.estimate.grid == (tiles, 1, 1) and cell.estimate.grid_from == "the file's grid(meta)"
                assert cell.estimate.flops == 2 * 4096**3 and cell.estimate.gpu == speeds.gpu
        order = k.ranked(target)
        times = [column[i].estimate.kernel_us for i in order]
        assert times == sorted(times)
    assert len(k.ranked("h200")) == 8 and k.ranked("gfx942") == ()


def test_a_cells_estimate_is_explains_for_that_config(matmul):
    _, k = matmul
    explained = json.loads(
        tritonscope("explain", "sample:matmul_autotune", "--config", "3", "-t", "h200", "--no-what-if", "--json").stdout
    )
    cell = k.column("h200")[3].estimate
    assert explained["time"]["kernel_us"] == round(cell.kernel_us, 3)
    assert explained["time"]["launch"]["grid"] == list(cell.grid)


def test_the_view_names_the_fastest_and_why_the_runner_up_is_slower_at_80_columns(matmul):
    result, k = matmul
    text = render(result, "terminal", width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    # prose is folded, not padded to the width: a file piped to keeps no trailing spaces
    assert not [line for line in text.splitlines() if line.endswith(" ")], text
    order = k.ranked("h200")
    assert f"#{order[1]} is slower than #{order[0]}: " in text
    first = k.column("h200")[order[0]].estimate
    # the bound beside the fastest alone: after the list it read as every config's (h23a)
    from tritonscope.analysis.launch_time import BOUND_WORDS
    from tritonscope.render.terminal.fit_rank import duration

    assert f"h200: #{order[0]} {duration(first.kernel_us)} ({BOUND_WORDS[first.bound]}), #{order[1]} " in text, text
    assert "gfx942: no estimate: the per-warp model reads NVIDIA's machine code" in text
    assert "* the fastest" in text and text.count("*") >= len(k.targets) - 1


def test_a_pick_that_spills_is_said_with_the_fastest_that_does_not(matmul):
    """sm86's pick spilled 6 and won unremarked (h20a): the view says so, and names the fastest that
    does not spill. The matmul's own pick on sm80 (none of its configs spills there) is given spills here."""
    from dataclasses import replace

    result, k = matmul
    order = k.ranked("sm80")
    at = k.targets.index("sm80")
    cells = [list(row) for row in k.cells]
    pick = cells[order[0]][at]
    cells[order[0]][at] = replace(pick, figures={**pick.figures, "spills": 6})
    spilling = replace(k, cells=tuple(tuple(row) for row in cells))
    text = " ".join(render(replace(result, kernels=(spilling,)), "terminal", width=80).split())
    second = k.column("sm80")[order[1]].estimate.kernel_us
    from tritonscope.render.terminal.fit_rank import duration

    said = f"#{order[0]} spills (6): time it against the fastest that does not, #{order[1]} {duration(second)}"
    assert said in text
    assert said not in " ".join(render(result, "terminal", width=80).split())  # sm75's configs all spill: said


def test_a_ranking_that_rests_on_an_assumed_trip_count_says_so(tmp_path):
    """A persistent kernel's `while` over its tiles runs as often as no argument says: the model assumes
    16 trips for every config, and ranked unsloth's grouped GEMM on that, unremarked (h20a)."""
    kernel = tmp_path / "persistent.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune([triton.Config({'B': 64}), triton.Config({'B': 256})], key=['tiles'])\n"
        "@triton.jit\ndef persistent(x_ptr, tiles, B: tl.constexpr):\n"
        "    tile = tl.program_id(0)\n"
        "    while tile < tiles:\n"
        "        o = tile * B + tl.arange(0, B)\n"
        "        tl.store(x_ptr + o, tl.load(x_ptr + o) * 2)\n"
        "        tile += tl.num_programs(0)\n"
    )
    text = tritonscope(
        "fit", kernel, "--rank", "--targets", "h200", "--grid", "132", "-a", "tiles=4096", env={"COLUMNS": "80"}
    ).stdout
    flat = " ".join(text.split())
    assert "the ranking rests on a while loop (TTIR line" in flat and "assumed to run 16 times" in flat
    assert "a trip count the arguments do not give: time the short list" in flat


def test_the_json_carries_the_estimates(matmul):
    result, k = matmul
    document = json.loads(render(result, "json"))
    (kernel,) = document["kernels"]
    assert kernel["ranked"]["h200"] == list(k.ranked("h200")) and kernel["ranked"]["gfx942"] == []
    cell = kernel["configs"][0]["cells"]["h200"]
    assert cell["estimate"]["kernel_us"] > 0 and cell["estimate_note"] is None
    assert {"bound", "grid", "grid_from", "waves", "slots", "limits", "dram_bytes", "flops"} <= set(cell["estimate"])
    assert kernel["configs"][0]["cells"]["gfx942"]["estimate"] is None


def test_keep_writes_a_pruner_that_keeps_the_fastest_that_fit(tmp_path):
    out = tmp_path / "mm_fit.py"
    run = tritonscope(
        "fit", "sample:matmul_autotune", "--targets", "h200,sm86", "--emit-prune", out, "--keep", "2", "--json"
    )
    document = json.loads(run.stdout)["kernels"][0]
    pruner = load(out, "mm_fit")
    configs = load(samples_dir() / "matmul_autotune.py", "mma").matmul_kernel.configs
    for target in ("h200", "sm86"):
        kept = [configs.index(c) for c in pruner.fitting(configs, target)]
        assert kept == sorted(document["ranked"][target][:2]), target
    assert pruner.KEEP == 2 and pruner.FASTEST["h200"] == document["ranked"]["h200"]


def test_a_pruner_of_a_matrix_at_several_sizes_keeps_the_fastest_of_the_launchs_size(tmp_path):
    """--vary M=64,4096: every row of CONFIGS carried its M, which no triton.Config has, so no config
    matched and the pruner raised at every launch; --keep ranked both sizes' rows together (h20a)."""
    out = tmp_path / "mm_sizes.py"
    run = tritonscope(
        "fit", "sample:matmul_autotune", "--targets", "h200", "--vary", "M=64,4096", "--emit-prune", out,
        "--keep", "2", "--json",
    )  # fmt: skip
    document = json.loads(run.stdout)["kernels"][0]
    pruner = load(out, "mm_sizes")
    configs = load(samples_dir() / "matmul_autotune.py", "mma").matmul_kernel.configs
    assert pruner.SIZES == ["M"]
    assert " M=64,4096 " in document["specialization"]  # all its values (the first row's alone was said: h20a)
    rows = document["configs"]
    for m in (64, 4096):
        of_size = [i for i in document["ranked"]["h200"] if rows[i]["values"]["M"] == m][:2]
        wanted = sorted(rows[i]["config"] for i in of_size)
        kept = [configs.index(c) for c in pruner.fitting(configs, "h200", named_args={"M": m})]
        assert kept == wanted, (m, kept, wanted)
        # a size the matrix lacks takes the nearest size's fastest (h23a: both sizes' rows were ranked
        # together, so M=3000 kept M=64's fastest, 1.44x slower at 4096)
        for unseen in (100,) if m == 64 else (3000, 8192):
            near = [configs.index(c) for c in pruner.fitting(configs, "h200", named_args={"M": unseen})]
            assert near == wanted, (unseen, near, wanted)


def test_keep_where_no_estimate_is_made_says_the_pruner_keeps_every_config(tmp_path):
    """A kernel file with no grid(meta) and no --grid: no launch time, so --keep cannot pick; said."""
    kernel = tmp_path / "k.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune([triton.Config({'B': 64}), triton.Config({'B': 128})], key=['n'])\n"
        "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n"
        "    o = tl.program_id(0) * B + tl.arange(0, B)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
    )
    said = tritonscope("fit", kernel, "--targets", "sm90", "--emit-prune", tmp_path / "p.py", "--keep", "1").stdout
    assert "note: --keep 1: sm90 has no estimates (the launch grid is not known" in said
    assert "its pruner keeps every config that fits" in " ".join(said.split())
    # the same reason for several targets is said once, for them all (it was a line each)
    ranked = tritonscope("fit", kernel, "--targets", "sm80,sm90,gfx942", "--rank", env={"COLUMNS": "80"}).stdout
    flat = " ".join(ranked.split())
    assert flat.count("the launch grid is not known") == 1 and "sm80, sm90: the launch grid is not known" in flat
    assert "gfx942: no estimate: the per-warp model reads NVIDIA's machine code" in flat


def test_what_rank_does_not_take():
    assert "give --rank too" in tritonscope("fit", "sample:matmul", "--grid", "4", expect=2).stderr
    assert "give --emit-prune FILE.py" in tritonscope("fit", "sample:matmul", "--keep", "2", expect=2).stderr
    for name, fixed in (("my-prune.py", "my_prune.py"), ("class.py", "class_.py"), ("p.txt", "p.py")):
        said = tritonscope("fit", "sample:matmul_autotune", "--emit-prune", name, expect=2).stderr
        assert "the pruner is imported by its file's name" in said and f"(e.g. {fixed})" in said, said
    # a --grid the kernel cannot evaluate is the user's to fix, not a matrix of cells that "do not compile"
    unknown = tritonscope("fit", "sample:vector_add", "--rank", "-t", "h200", "--grid", "foo*2", expect=2).stderr
    assert "error: --grid foo*2 names what is not an argument or constexpr of the kernel" in unknown
    # refused before compiling: docs/cli.md's BLOCK_M example compiled all 8 configs for nothing first
    grid = "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"
    misnamed = tritonscope("fit", "sample:matmul_autotune", "--rank", "-t", "h200", "--grid", grid, expect=2).stderr
    assert "BLOCK_M: did you mean BLOCK_SIZE_M?" in misnamed and "compiled" not in misnamed, misnamed
    empty = tritonscope("fit", "sample:vector_add", "--rank", "-t", "h200", "--grid", "0*n_elements", expect=2)
    assert "every size of a launch grid is at least 1" in empty.stderr


def test_rank_compiles_a_targets_cells_together_and_the_targets_it_cannot_estimate_last():
    """A target's cells are estimated together once its last has compiled (one nvdisasm run), while
    the workers compile the next target's: the compiles go target by target, AMD's (no estimate) last."""
    targets = ("gfx942", "sm80", "sm90")
    requests = [VariantRequest(file="sample:matmul", target=t) for _ in range(3) for t in targets]
    order = _ranking_order(requests)
    assert [requests[i].target for i in order] == ["sm80"] * 3 + ["sm90"] * 3 + ["gfx942"] * 3
    assert order[:3] == [1, 4, 7]  # a target's rows in their own order
    ranker = Ranker([[i for i in order if requests[i].target == t] for t in targets])
    for index in (1, 4, 0):  # sm80's cells end, but one; one of AMD's: nothing to estimate yet
        ranker.add(index, None)
    assert ranker.left == [2, 1, 3] and ranker.waiting.empty()
    ranker.add(7, None)
    assert ranker.left == [2, 0, 3]  # sm80's column is handed to the thread
    assert ranker.finish() == {}  # Ctrl-C: the columns cut short are handed over as they stand


def test_every_sample_ranks_on_the_h100():
    """Each sample's configs (its autotune configs, or the variant as given) on sm90: where a cell fits,
    it has an estimate for the file's grid, or says why not (a sample without a grid hook). Every
    default target is held on the autotuned matmul (the `matmul` fixture): a target's part of an
    estimate is its figures and its SASS, the same for every sample."""
    for sample in sorted(p.stem for p in samples_dir().glob("*.py") if not p.stem.startswith("_")):
        (k,) = fit(VariantRequest(file=f"sample:{sample}"), ("sm90",), [], (), 2, 600, ranking=Ranking()).kernels
        hook = "def grid(" in (samples_dir() / f"{sample}.py").read_text()
        cells = [cell for cell in k.column("sm90") if cell.verdict == FITS]
        assert cells, sample
        for cell in cells:
            assert (cell.estimate is not None) == hook, (sample, cell.estimate_note)
            if not hook:
                assert cell.estimate_note.startswith("the launch grid is not known"), sample


def test_liger_dyt_ranks_its_18_configs_for_a_grid_given():
    dyt = VariantRequest(
        file=str(liger_ops() / "dyt.py"),
        kernel="_dyt_fwd_kernel",
        dtype=check_dtype("bf16"),
        constexprs=(("HAVE_BETA", True), ("N", 4096)),
    )
    ranking = Ranking(parse("cdiv(N, BLOCK_N), 8192"))
    (k,) = fit(dyt, ("h200", "sm80", "gfx942"), [], (), 2, 600, ranking=ranking).kernels
    order = k.ranked("h200")
    assert len(order) == 18
    fastest = k.column("h200")[order[0]].estimate
    assert fastest.grid == (4096 // k.rows[order[0]].values["BLOCK_N"], 8192, 1)
    assert fastest.bound in ("DRAM", "L1", "blocks", "waves", "latency", "issue", "memory pipe")
    assert fastest.dram_bytes >= 2 * 2 * 4096 * 8192  # bf16 in and out, read and written once at least


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    """test_fit's program (an autotuned tile kernel of two configs, a plain copy) traced on a simulated H100."""
    pytest.importorskip("torch")
    from test_fit import AUTOTUNED_PROGRAM

    folder = tmp_path_factory.mktemp("rank-capture")
    program = folder / "program.py"
    program.write_text(AUTOTUNED_PROGRAM)
    tritonscope("trace", "--target", "sm90", "-o", folder / "out", "--", sys.executable, program)
    return folder / "out"


def test_a_capture_says_which_launches_an_autotuner_made_to_time_its_candidates(capture):
    """Each candidate is timed by the autotuner: one such launch per compile is recorded, marked; the
    program's own launch after the tuning is recorded too, of the config kept (the first, simulated)."""
    records = [json.loads(line) for line in (capture / "launches.jsonl").read_text().splitlines()]
    tiles = [r for r in records if r["name"] == "tile_kernel"]
    timed = {r["hash"] for r in tiles if r.get("timing")}
    own = [r for r in tiles if not r.get("timing")]
    assert len(timed) == 2 and len(own) == 1 and own[0]["hash"] in timed
    assert own[0]["grid"] == [2, 2, 1]  # 256 / 128: the first config's tiles


def test_fit_over_a_capture_ranks_each_compile_for_its_own_launch(capture):
    document = json.loads(tritonscope("fit", capture, "--rank", "--targets", "sm90,h200", "--json", "-j", "2").stdout)
    kernels = {k["kernel"]: k for k in document["kernels"]}
    for row in kernels["tile_kernel"]["configs"]:
        tiles = 256 // int(row["label"]["BLOCK_M"])
        for target in ("sm90", "h200"):
            estimate = row["cells"][target]["estimate"]
            assert estimate["grid"] == [tiles, tiles, 1] and estimate["grid_from"] == "the captured launch"
    (copy,) = kernels["copy_kernel"]["configs"]
    assert copy["cells"]["h200"]["estimate"]["grid"] == [4, 1, 1]
    text = tritonscope("fit", capture, "-k", "tile_kernel", "--rank", "--targets", "h200", env={"COLUMNS": "80"}).stdout
    flat = " ".join(text.split())
    launched = next(i for i, r in enumerate(kernels["tile_kernel"]["configs"]) if r["launched"])
    pick = kernels["tile_kernel"]["ranked"]["h200"][0]
    if pick == launched:
        assert f"the program launched #{launched}, the model's pick too" in flat
    else:
        assert f"the program launched #{launched}: " in flat and f"x the pick #{pick}" in flat


def test_explain_of_a_captured_kernel_estimates_its_recorded_launch(capture):
    document = json.loads(tritonscope("explain", f"{capture}/:copy_kernel", "--json").stdout)
    launch = document["time"]["launch"]
    assert launch["grid"] == [4, 1, 1] and launch["grid_from"] == "the captured launch"
    assert launch["dram_bytes"] == 2 * 4096 * 4  # n = 4096 floats in, 4096 out: the launch's own n


# the keys of an entry of vLLM's fused-MoE config files, in their order
VLLM_KEYS = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")


def test_emit_config_writes_the_fastest_config_per_batch_size_as_vllm_reads_it(tmp_path):
    """An MoE matmul of vLLM's shape (the launch set's moe_matmul.py), its 8 configs at three batch
    sizes on an H200: the file maps each M to the config fit --rank estimates fastest for it, in vLLM's
    keys; the default file name is vLLM's device part."""
    moe = Path(__file__).parent / "kernels" / "launch_set" / "moe_matmul.py"
    out = tmp_path / "moe.json"
    run = tritonscope("fit", moe, "--targets", "h200", "--vary", "M=1,64,512", "--emit-config", f"vllm:{out}", "--json")
    (kernel,) = json.loads(run.stdout)["kernels"]
    written = json.loads(out.read_text())
    assert list(written) == ["1", "64", "512"]
    for size, config in written.items():
        mine = [i for i in kernel["ranked"]["h200"] if kernel["configs"][i]["values"]["M"] == int(size)]
        best = kernel["configs"][mine[0]]["values"]
        assert config == {k: v for k, v in best.items() if k not in ("M", "num_ctas")}  # num_ctas=1: every config's
        assert set(config) == set(VLLM_KEYS)
    # the terminal ranks each batch size's configs apart: `#16 is slower than #12` compared M=64 with M=1
    shown = tritonscope("fit", moe, "--targets", "h200", "--vary", "M=1,64,512", "--rank").stdout
    assert [line.split(":")[0] for line in shown.splitlines() if line.startswith("h200 at")] == [
        "h200 at M=1",
        "h200 at M=64",
        "h200 at M=512",
    ]
    assert kernel["sizes"] == ["M"]
    refused = tritonscope("fit", moe, "--targets", "h200,sm90", "--vary", "M=1,64", "--emit-config", "vllm", expect=2)
    assert "give one target" in refused.stderr
    assert "the one format is vllm" in tritonscope("fit", moe, "--emit-config", "json", expect=2).stderr
    option = tritonscope("fit", moe, "--targets", "h200", "--vary", "num_warps=4,8", "--emit-config", "vllm", expect=2)
    assert "--vary num_warps is a launch option" in option.stderr and "compiled" not in option.stderr


def test_emit_config_of_a_kernel_with_no_autotune_configs_takes_them_from_the_other_varies(tmp_path):
    """vLLM's fused_moe_kernel has no @triton.autotune: its configs are the --vary after the size's, and
    the tile sizes and options given once belong in every entry (it wrote `{"64": {}}`, which vLLM
    cannot launch with)."""
    moe = Path(__file__).parent / "kernels" / "launch_set" / "moe_matmul.py"
    plain = tmp_path / "moe_plain.py"
    (tmp_path / "launch_set.py").write_text(moe.with_name("launch_set.py").read_text())  # what it imports
    plain.write_text(moe.read_text().replace('@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["M"])\n', ""))
    out = tmp_path / "moe.json"
    given = ("-c", "BLOCK_SIZE_N=128", "-c", "BLOCK_SIZE_K=64", "-c", "GROUP_SIZE_M=8", "-w", "4", "-s", "3")
    varied = ("--vary", "M=16,512", "--vary", "BLOCK_SIZE_M=16,64")
    tritonscope("fit", plain, *given, *varied, "--targets", "h200", "--rank", "--emit-config", f"vllm:{out}")
    written = json.loads(out.read_text())
    assert list(written) == ["16", "512"]
    for config in written.values():
        assert list(config) == list(VLLM_KEYS)
        assert config["BLOCK_SIZE_M"] in (16, 64) and config["BLOCK_SIZE_K"] == 64 and config["num_stages"] == 3
    # a constexpr varied first: its values were written as batch sizes, with BLOCK_SIZE_M in no entry
    tiles = tmp_path / "tiles.json"
    said = tritonscope("fit", plain, *given, "-a", "M=512", "--vary", "BLOCK_SIZE_M=16,64", "--targets", "h200",
                       "--rank", "--emit-config", f"vllm:{tiles}", expect=2).stderr  # fmt: skip
    assert "the first --vary (BLOCK_SIZE_M) keys the file by batch size" in said and not tiles.exists()
    # a kernel whose configs are not vLLM's (liger's BLOCK_N, BLOCK_K): vLLM would not read its file (h20a)
    other = tmp_path / "rows.py"
    other.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\ndef rows(x_ptr, M, BLOCK_N: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)\n    tl.store(x_ptr + o, 1.0, mask=o < M)\n"
    )
    short = tmp_path / "short.json"
    cache = tmp_path / "cache"  # refused before any compile (h23a: after every cell, and no matrix shown)
    said = tritonscope("fit", other, "--vary", "M=16,4096", "--vary", "BLOCK_N=64,128", "--grid", "cdiv(M, BLOCK_N)",
                       "--targets", "h200", "--rank", "--emit-config", f"vllm:{short}", expect=2,
                       env={"TRITON_CACHE_DIR": str(cache)}).stderr  # fmt: skip
    flat = " ".join(said.split())
    assert (
        "rows's configs have no BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M" in flat and not short.exists()
    )
    assert not cache.exists() or not any(cache.iterdir())


def test_why_slower_says_a_tie_and_the_blocks_per_sm_where_the_waves_are_alike(matmul):
    """`#3 is slower than #4: 1.00x` named a reason for a tie; `9 waves at 1 block per SM against 9 at 2`
    named waves that were alike."""
    from dataclasses import replace

    from tritonscope.analysis.launch_time import versus

    _, k = matmul
    fast = k.column("h200")[k.ranked("h200")[0]].estimate
    tied = replace(fast, kernel_us=fast.kernel_us * 1.01)
    assert versus(fast, tied) == "1.01x: a tie as the model sees them (within 2%), in an order the GPU may not keep"
    # a tie is what the shown ratio says: 1.0199x shown 1.02x was a tie, and 1.021x shown 1.02x was not
    for near in (1.0199, 1.021):
        said = versus(fast, replace(fast, kernel_us=fast.kernel_us * near))
        assert said.startswith("1.02x: ") and "a tie" not in said
    fewer = 1 if fast.blocks_per_sm > 1 else 2
    longer = tuple(replace(limit, us=limit.us * 1.3) if limit.name == "waves" else limit for limit in fast.limits)
    slower = replace(fast, kernel_us=fast.kernel_us * 1.3, block_us=fast.block_us * 1.3, blocks_per_sm=fewer)
    slower = replace(slower, limits=longer)
    said = versus(fast, slower)
    assert said.startswith("1.30x: a block takes") and f"{fewer} block" in said and "fit per SM against" in said
    assert "waves at" not in said
    # a grid of fewer blocks than SMs: no SM gets two, so what fits per SM is no reason (h23a: `8 blocks
    # per SM against 3` for a grid of 8)
    few = replace(slower, grid=(8, 1, 1))
    assert "per SM" not in versus(fast, few) and versus(fast, few).startswith("1.30x: a block takes")
    # more waves of faster blocks: the block's time is said as what did not cost it
    waves = replace(slower, waves=fast.waves + 3, block_us=fast.block_us * 0.6)
    waves = replace(waves, limits=tuple(replace(x, us=x.us * 1.3) if x.name == "waves" else x for x in waves.limits))
    assert f", though {waves.block_us:,.1f} us a block against {fast.block_us:,.1f}" in versus(fast, waves)


def test_a_kernel_launched_at_two_specializations_is_a_matrix_for_each(tmp_path):
    """Launches at n=4096 and n=4099 are two specializations, not two configs to rank against each
    other (they were rows of one matrix, under one "specialized as" line)."""
    pytest.importorskip("torch")
    program = tmp_path / "program.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "@triton.jit\ndef add(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n\n"
        "for n in (4096, 4099):\n    add[(triton.cdiv(n, 256),)](torch.empty(n, device='cuda'), n, BLOCK=256)\n"
    )
    tritonscope("trace", "--target", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    document = json.loads(tritonscope("fit", tmp_path / "out", "--rank", "--targets", "h200", "--json").stdout)
    matrices = [k for k in document["kernels"] if k["kernel"] == "add"]
    assert sorted(k["specialization"].split()[-1] for k in matrices) == ["n=4096", "n=4099"]
    assert all(len(k["configs"]) == 1 for k in matrices)


def test_an_autotuned_kernel_launched_at_two_sizes_of_a_constexpr_is_a_matrix_for_each(tmp_path):
    """N a constexpr no config sets, launched at 1024 and 4096 (liger's dyt): one matrix of both, whose
    "fastest" was an N=1024 row against the N=4096 ones, and a pruner no config matched (h20a)."""
    pytest.importorskip("torch")
    program = tmp_path / "program.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "@triton.autotune([triton.Config({'BLOCK': 256}), triton.Config({'BLOCK': 512})], key=['N'])\n"
        "@triton.jit\ndef scale(x_ptr, N: tl.constexpr, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < N) * 2, mask=o < N)\n\n"
        "for n in (1024, 4096):\n"
        "    scale[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](torch.ones(n, device='cuda'), n)\n"
    )
    tritonscope("trace", "--target", "h200", "-o", tmp_path / "out", "--", sys.executable, program)
    document = json.loads(tritonscope("fit", tmp_path / "out", "--rank", "--targets", "h200", "--json").stdout)
    matrices = sorted((k for k in document["kernels"] if k["kernel"] == "scale"), key=lambda k: k["specialization"])
    assert [k["specialization"].split()[-1] for k in matrices] == ["N=1024", "N=4096"]
    assert all(sorted(c["values"]["BLOCK"] for c in k["configs"]) == [256, 512] for k in matrices), matrices
    # with no --targets, the capture's own GPU is a column too (a run traced for the H200 was not: h20a)
    from tritonscope.app.capture_fit import default_targets

    assert default_targets(VariantRequest(file=str(tmp_path / "out"))) == (*DEFAULT_TARGETS, "h200")


def test_a_column_of_a_target_the_fit_has_not_is_refused_with_those_it_has(matmul):
    """`Fit.kernels[0].column("sm80")` raised a bare `tuple.index(x): x not in tuple`."""
    import pytest

    from tritonscope.core.errors import UsageError

    _, k = matmul
    with pytest.raises(UsageError, match=rf"^sm61: not a target of this fit; it has {', '.join(k.targets)}$"):
        k.column("sm61")


def test_a_kernel_that_prunes_its_own_configs_is_said_so(tmp_path):
    """`prune_configs_by`: the autotuner runs only some configs at a launch; fit compiled and ranked them
    all, and the pruner --emit-prune writes would take the place of the kernel's own, without a word."""
    kernel = tmp_path / "k.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "def big_blocks(configs, named_args, **kwargs):\n"
        "    return [c for c in configs if c.kwargs['B'] >= 1024]\n\n"
        "@triton.autotune([triton.Config({'B': 128}), triton.Config({'B': 1024})], key=['n'],\n"
        "                 prune_configs_by={'early_config_prune': big_blocks})\n"
        "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n"
        "    o = tl.program_id(0) * B + tl.arange(0, B)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
    )
    said = " ".join(tritonscope("fit", kernel, "--targets", "sm90", env={"COLUMNS": "80"}).stdout.split())
    assert "note: k's autotuner prunes its configs itself (prune_configs_by: early_config_prune)" in said
    assert "a pruner --emit-prune writes takes the place of its own" in said
    document = json.loads(tritonscope("fit", kernel, "--targets", "sm90", "--json").stdout)
    assert any("prunes its configs itself" in note for note in document["notes"])


def test_a_grid_no_varied_constexpr_enters_is_said_to_rank_unlike_launches():
    """`--grid 1024` over configs of different tiles: each launch then covers another share of the
    output, and the ranking compared unlike launches without a word (h23a)."""
    fixed = json.loads(
        tritonscope("fit", "sample:matmul_autotune", "--targets", "sm90", "--rank", "--grid", "1024", "--json").stdout
    )
    (note,) = [n for n in fixed["notes"] if n.startswith("--grid 1024 is the same for every config")]
    assert "the configs differ in BLOCK_SIZE_K, BLOCK_SIZE_M, BLOCK_SIZE_N" in note and "unlike launches" in note
    # the grid it suggests is in the kernel's own names (it said BLOCK_M for a kernel of BM and BN: h26a),
    # and it is the one that follows the configs
    grid = "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"
    assert note.endswith(f"(--grid '{grid}')"), note
    followed = json.loads(
        tritonscope("fit", "sample:matmul_autotune", "--targets", "sm90", "--rank", "--grid", grid, "--json").stdout
    )
    assert not [n for n in followed["notes"] if "the same for every config" in n]
