"""Builds docs/tour.md: a guided tour whose every excerpt is the real output of a tritonscope command.

Run it again whenever Triton changes: `python docs/build_tour.py`. It stops with an error,
and writes nothing, if a command fails or an excerpt comes out empty.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from tritonscope.core.fileio import write_text_atomically

HERE = Path(__file__).resolve().parent
MATMUL_1152 = "-a M=1152 -a N=1152 -a K=1152 -c BLOCK_SIZE_M=128 -c BLOCK_SIZE_N=128 -c BLOCK_SIZE_K=128"


def lines_with(*patterns: str, limit: int = 12):
    def select(text: str) -> list[str]:
        return [line for line in text.splitlines() if any(re.search(p, line) for p in patterns)][:limit]

    return select


def first(count: int, skip: int = 0):
    return lambda text: text.splitlines()[skip : skip + count]


def tiles_and_wave(text: str) -> list[str]:
    """The first rows of a drawn tile grid, and the wave's count."""
    rows = [line for line in text.splitlines() if re.fullmatch(r"\s*\d+(\s+\d+){8}\s*", line)]
    return rows[:3] + ["..."] + [line for line in text.splitlines() if "the first 9 programs" in line]


def lines_and_finding(first: int, last: int, kind: str):
    """The explain rows of Python lines first..last (with the figures beneath them), then one finding."""

    def select(text: str) -> list[str]:
        lines = text.splitlines()
        rows = []
        source = next((i for i, line in enumerate(lines) if re.match(r"\d+ findings?$", line.strip())), len(lines))
        for i, line in enumerate(lines[:source]):
            number = line[:5].strip()
            if number.isdigit() and first <= int(number) <= last and not line.startswith(" " * 5):
                rows.append(line)
                rows += [lines[i + 1]] if i + 1 < len(lines) and "↳" in lines[i + 1] else []
        start = next((i for i, line in enumerate(lines) if line.startswith("●") and kind in line), None)
        if start is None:
            return []
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("●")), len(lines))
        return [*rows, "...", *lines[start:end]]

    return select


STEPS = [
    (
        "Start: what does the compiler make of vector add?",
        "`dump` compiles the sample for an H100 (no GPU needed) and shows every stage. The header "
        "says how the arguments were specialized: `n_elements=98432` is a multiple of 16, so it "
        "gets the divisibility hint, exactly as at a real launch. The resource table follows.",
        "dump sample:vector_add --target sm90 --stage ttgir",
        lines_with(r"signature", r"divisible", r"registers  ", r"occupancy", r"global loads", r"#blocked ="),
    ),
    (
        "Masks: the last program runs past the end",
        "`offsets < n_elements` becomes a vector compare in TTGIR, a `setp` in PTX and an `ISETP` in "
        "SASS; `--line` keeps only what that Python line became, `--annotate` says where each line came from.",
        "dump sample:vector_add --target sm90 --line 20 --stage ttgir,ptx,sass --annotate",
        lines_with(r"cmpi", r"setp", r"ISETP"),
    ),
    (
        "How many programs does add launch, and what does each one cover?",
        "`grid` runs the kernel's own index arithmetic under Triton's interpreter and records what "
        "every program writes: 97 programs, the last one masked to 128 elements.",
        "grid sample:vector_add -a n_elements=98432",
        lines_with(r"programs on a grid", r"│ 0 ", r"│ 96 "),
    ),
    (
        "BLOCK_SIZE and the vector width",
        "`diff` compiles both variants and diffs the normalized IR: only the tensor shape and the "
        "layout's `sizePerThread` change. Then the width of each load: with `n = 4096` every "
        "thread loads 128 bits at once, with 4099 the compiler cannot prove alignment and falls back "
        "to 32-bit loads.",
        "diff sample:vector_add --target sm90 --vary BLOCK_SIZE=256,1024 --stage ttgir",
        lines_with(r"^[-+]#blocked", r"registers", limit=4),
    ),
    (
        None,
        None,
        "diff sample:vector_add --target sm90 --vary n_elements=4096,4099 --stage sass",
        lines_with(r"global loads", r"global stores", r"instructions"),
    ),
    (
        "The softmax row stays in registers",
        "One program holds a whole row: `layout` draws which lane of which warp holds each of the "
        "1024 elements (8 registers per thread). The `tl.max` line is one `tt.reduce` over the row; in "
        "SASS it is butterfly warp shuffles (`SHFL.BFLY`) plus a small shared-memory exchange between "
        "warps: the row never goes back to global memory between the max, the exp and the sum.",
        "layout --from sample:softmax --value row --target sm90",
        first(5),
    ),
    (
        None,
        None,
        "dump sample:softmax --target sm90 --line 24 --stage ttgir",
        lines_with(r"tt.reduce", r"arith.max", limit=3),
    ),
    (None, None, "dump sample:softmax --target sm90 --stage sass", lines_with(r"SHFL.BFLY", limit=5)),
    (
        "The grouped launch order",
        "In which order should the programs of a matmul run? Take 1152 x 1152 matrices in 128 x 128 "
        "x 128 tiles: a 9 x 9 grid of output tiles, 9 tiles along K. Row-major order (`matmul`, a 2-D "
        "grid, axis 0 fastest) sends "
        "the first 9 programs down one column of output tiles: they need 9 rows of A tiles and one "
        "column of B tiles, (9 + 1) x 9 = 90 loads. Grouping by 3 rows (`matmul_grouped`) makes the "
        "first 9 programs a 3 x 3 block: (3 + 3) x 9 = 54.",
        f"grid sample:matmul {MATMUL_1152} --wave 9",
        tiles_and_wave,
    ),
    (None, None, f"grid sample:matmul_grouped {MATMUL_1152} -c GROUP_SIZE_M=3 --wave 9", tiles_and_wave),
    (
        "Shared memory and pipelining",
        "With more pipeline stages the kernel keeps more tiles of A and B in flight in shared "
        "memory, and the software pipeliner turns the loads into asynchronous copies.",
        "diff sample:matmul --target sm90 --vary num_stages=1,3 --stage ttgir",
        lines_with(r"shared memory", r"async copies", r"registers", limit=3),
    ),
    (
        None,
        None,
        "passes sample:matmul --target sm90 --show tritongpu-pipeline",
        lines_with(r"pass \d+: tritongpu-pipeline", r"^\+.*async_copy_global_to_local", r"internal step", limit=5),
    ),
    (
        "Down to the tensor cores",
        "The `tl.dot` line becomes warp-group matrix instructions on Hopper (`HGMMA`), and `HMMA` on Ampere.",
        "dump sample:matmul --target sm90 --line 35 --stage sass",
        lines_with(r"HGMMA", limit=3),
    ),
    (None, None, "dump sample:matmul --target sm80 --line 35 --stage sass", lines_with(r"HMMA", limit=3)),
    (
        "Why does my kernel crash on an RTX 4090 and not on an H100?",
        "A user's report reads `OutOfResources: out of resource: shared memory, Required: 131072, Hardware "
        "limit: 101376`. With the 128 x 128 x 128 tiles of the launch-order chapter above, each pipeline "
        "stage keeps a 32 KiB tile of A "
        "and one of B in shared memory. `fit` compiles each config for each GPU, no GPU needed: an RTX 4090 "
        "(sm89) allows 99 KiB per block, an H100 (sm90) 227 KiB, and Ada's pipeline keeps one stage fewer "
        "than Hopper's. `--emit-prune FILE.py` writes the `early_config_prune` function that keeps, on the "
        "GPU a launch runs on, exactly the configs that fit it; `check DIR/ --fit sm89` gates a whole "
        "program's capture.",
        f"fit sample:matmul {MATMUL_1152} --vary num_stages=2,3,4 --targets sm89,sm90",
        lambda text: text[text.index("\nconfig ") + 1 :].splitlines(),
    ),
    (
        "A layout you wrote, a layout the compiler chose",
        "The same reduction twice: `sample:row_sum` is a `@triton.jit` kernel, `sample:row_sum_gluon` its "
        "Gluon twin, whose author wrote the layouts. `layout --from` lists what each one's TTGIR uses, with "
        "the Python lines that use it. For the Triton kernel the compiler picked a blocked layout for the "
        "tile and a second, 1-D one for the sums it stores.",
        "layout --from sample:row_sum --target sm90",
        first(7),
    ),
    (
        None,
        "The Gluon kernel has one layout, written on its line 10: the tile's; the sums stay in "
        "`SliceLayout(1, tile)`, where each row's sum already is, and are stored from there.",
        "layout --from sample:row_sum_gluon --target sm90",
        first(4),
    ),
    (
        None,
        "The compiler's second layout costs a trip through shared memory on the store's line, which "
        "`explain` reports; the Gluon kernel has no conversion at all, and fewer instructions.",
        "explain sample:row_sum --target sm90 --no-what-if",
        lines_and_finding(14, 14, "layout-conversion"),
    ),
    (
        None,
        None,
        "dump sample:row_sum --target sm90 --stage source",
        lines_with(r"instructions", r"shared loads", r"barriers", limit=3),
    ),
    (
        None,
        None,
        "dump sample:row_sum_gluon --target sm90 --stage source",
        lines_with(r"instructions", r"shared loads", r"barriers", limit=3),
    ),
    (
        "Why is my kernel slow?",
        "`explain` puts the figures on the Python lines: each line's machine instructions, the registers "
        "live in them, and beneath it its memory traffic. Back to vector add at `n = 4099`: the loads of "
        "lines 21 and 22 are 32 bits per thread. The finding traces the load's mask through TTGIR to the "
        "kernel's arguments and names the one without a divisibility hint, then compiles its suggestion: "
        "with 4112 the same line loads 128 bits per thread.",
        "explain sample:vector_add --target sm90 -a n_elements=4099",
        lines_and_finding(20, 24, "narrow-global-access"),
    ),
    (
        None,
        "Triton's own remarks join the finding they explain (`Triton says`). With fp8 operands on Hopper, "
        "wgmma reads B K-major while the sample stores it N-major: Triton transposes B in registers before "
        "it goes to shared memory and stops pipelining its load, and the finding on line 34 says so.",
        "explain sample:matmul --target sm90 -a 'a_ptr=*fp8e4nv' -a 'b_ptr=*fp8e4nv' --no-what-if",
        lines_and_finding(33, 35, "loop-not-pipelined"),
    ),
    (
        None,
        "With a register cap too low for the matmul tile, the finding names the lines whose code spills "
        "(their local stores/loads) and compiles the kernel without the cap.",
        "explain sample:matmul --target sm80 --maxnreg 64",
        lines_and_finding(33, 35, "spills"),
    ),
    (
        None,
        "`check` makes such figures a gate for CI: a broken budget exits 1, with the finding behind it.",
        "check sample:vector_add --target sm90 -a n_elements=4099 --budget spills=0 --budget 'global_load_bits>=128'",
        first(8),
    ),
]


MODEL_CHAPTER = "What torch.compile makes of a small model for an H100, on a laptop"
# {capture} is the capture folder (shown as h100/), {reduction} the first reduction kernel captured.
TRACE_STEPS = [
    (
        MODEL_CHAPTER,
        "`trace --target sm90` runs the program of `docs/tour_model.py` (a LayerNorm, two Linear layers "
        "and a GELU under `torch.compile`) against a simulated H100: torch sees a CUDA device with the "
        "H100's 132 multiprocessors, tensors take no memory, and every kernel Inductor writes is compiled "
        "for sm_90 by the real Triton, exactly as its launch specializes it. Nothing runs.",
        f"trace --target sm90 -o {{capture}} -- python {HERE / 'tour_model.py'}",
        lines_with(r"captured", r"recorded"),
    ),
    (
        None,
        "The capture is today's format. `cache list` shows each kernel and its launches (grids and shapes "
        "are the program's own) and says what a simulated run could not know: with no GPU to time them, "
        "Inductor's autotuning kept its first candidate, after compiling every one as on a GPU.",
        "cache list {capture}",
        first(40),
    ),
    (
        None,
        "Every other command reads a captured kernel by name: here the LayerNorm's reduction, its registers, "
        "occupancy, and the memory traffic and cost of its Python lines on an H100.",
        "explain {capture}/:{reduction} --no-what-if",
        lines_with(r"registers ·", r"tl\.load", r"↳", r"tl\.sum", limit=9),
    ),
]


# --- Triton's tutorials with no GPU: a tutorial-shaped file and a Gluon one, opened with --from-run ----

SHAPED = "tests/kernels/tutorial_shaped"


def launch_and_header(*keys: str, ir: str | None = None):
    """The `from the run` line, the header rows named KEYS with their continuation lines (the box's
    borders taken off), and the first IR line matching IR."""

    def select(text: str) -> list[str]:
        lines = text.splitlines()
        chosen = [line for line in lines if line.startswith("from the run")]
        inside = [
            line.rstrip()[1:-1].rstrip() for line in lines if line.startswith("│") and line.rstrip().endswith("│")
        ]
        current = None
        for row in inside:
            if not row.startswith("  "):  # ` key  value`: a new row
                current = row.split()[0] if row.split() else None
            if current in keys:
                chosen.append(row[1:])
        chosen += [line for line in lines if ir and re.search(ir, line)][:1]
        return chosen

    return select


TUTORIAL_STEPS = [
    (
        "Triton's tutorials with no GPU",
        "Triton's tutorials ask for the GPU while they are imported (`DEVICE = "
        "triton.runtime.driver.active.get_active_torch_device()`), launch a kernel at module level and "
        "print its result there. On a laptop a plain import fails at the first line that asks. "
        f"`{SHAPED}/launch_at_import.py` is written in that shape (it is not Triton's code): `list` "
        "imports it again against a simulated H100, and the `print` of a result, which a simulated GPU "
        "cannot answer, stops the import there. The kernel defined after the print is still listed.",
        f"list {SHAPED}/launch_at_import.py",
        lines_with(r"imported against", r"stopped at", r"line \d+  (kernel|helper)"),
    ),
    (
        None,
        "`--from-run` needs no flags: the file runs against the simulated GPU up to the kernel's first "
        "launch, which decides everything. The tensors were fp16 and 16-byte aligned; `n_elements` was "
        "98432, a multiple of 16, so it has the divisibility hint; `BLOCK_SIZE` came from the call. The "
        "`reproduce` line spells the same compile as flags.",
        f"dump {SHAPED}/launch_at_import.py --from-run -t sm90 --stage ttgir",
        launch_and_header("constexprs", "signature", "reproduce"),
    ),
    (
        None,
        "A file that chooses by the device gets the target's answers: "
        f"`{SHAPED}/device_at_import.py` picks a 1024-wide block on capability 9 and 256 below it.",
        f"dump {SHAPED}/device_at_import.py --from-run -t sm80 --stage ttgir",
        launch_and_header("constexprs"),
    ),
    (
        None,
        "The Gluon tutorials are written the same way. In a Gluon kernel the layout is the author's: "
        f"`{SHAPED}/gluon_rows.py` builds a `BlockedLayout` in Python from the row length and passes it "
        "as a constexpr. `--from-run` shows the layout the launch chose, and the TTGIR carries it as "
        "written, with no layout of the compiler's own.",
        f"dump {SHAPED}/gluon_rows.py --from-run -t sm100 --stage ttgir",
        launch_and_header("constexprs", ir=r"^\s*\d+ #blocked\d* ="),
    ),
]


def tutorials_chapter() -> str:
    parts = []
    for title, prose, command, select in TUTORIAL_STEPS:
        excerpt = [line.rstrip() for line in select(run(command))]
        if not excerpt:
            raise SystemExit(f"tour: `tritonscope {command}` printed nothing the tour could quote")
        parts.append(f"\n## {title}\n\n{prose}\n" if title else f"\n{prose}\n")
        shown = "\n".join(line.replace(str(HERE.parent) + "/", "") for line in excerpt)
        parts.append(f"\n```\n$ tritonscope {command}\n{shown}\n```\n")
    return "".join(parts)


# --- From 0.8x to 1.0x of cuBLAS: explain run live, bench's figures as captured on the H100 ----------

GPU_RUNS = {  # `STAGE=<key> bash benchmarks/hopper_study.sh`, as printed on the H100
    "final": HERE / "data" / "h100-2026-11-23-final.txt",
    "4": HERE / "data" / "h100-2026-11-23-maxnreg.txt",
    "gluon": HERE / "data" / "h100-2026-11-23-gluon.txt",
    # The same stage's commands on the Gluon attention's first version (its wgmma serialized by ptxas).
    "gluon-serialized": HERE / "data" / "h100-2026-11-23-gluon-serialized.txt",
    "gluon-ws": HERE / "data" / "h100-2026-11-24-gluon-ws.txt",  # the warp-specialized one, a day later
}
GPU_RUN = GPU_RUNS["final"]
GPU_SCRIPT = HERE.parent / "benchmarks" / "hopper_study.sh"
GPU_DATE = "2026-11-23"
MATMUL_TMA_128 = (
    "explain sample:matmul_tma --target sm90 -c BLOCK_SIZE_N=128 -c FLATTEN=False -s 3 "
    "-a 'b_desc=tensordesc<fp16[64, 128]>' -a 'c_desc=tensordesc<fp16[128, 64]>'"
)

ATTENTION_WIDE = (
    "-c HEAD_DIM=128 -c BLOCK_M=128 -c BLOCK_N=64 -w 8 -s 2 -a 'q_desc=tensordesc<fp16[1, 128, 128]>' "
    "-a 'o_desc=tensordesc<fp16[1, 128, 128]>' -a 'k_desc=tensordesc<fp16[64, 128]>' "
    "-a 'v_desc=tensordesc<fp16[64, 128]>'"
)


def finding(kind: str, every: bool = False):
    """One finding of explain's output, whole (with `every`, each finding of that kind)."""

    def select(text: str) -> list[str]:
        lines = text.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("●") and kind in line]
        chosen = []
        for start in starts if every else starts[:1]:
            end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("●")), len(lines))
            chosen += lines[start:end]
        return chosen

    return select


# (title, prose, explain command or None, its selector, [(bench run number, rows that contain all of)])
HOPPER_STEPS = [
    (
        "`sample:matmul`: 0.79x, and the instruction that is missing",
        "`sample:matmul` is the matmul of the chapters above as Triton's tutorial writes it: every thread "
        "copies its part of the A and B tiles with `cp.async`, in 128 x 128 x 64 tiles over 3 stages. "
        "On the H100 it reaches 0.79x of cuBLAS at 4096 (0.69x at 8192). Before any "
        "tuning, `explain` for sm90 names what a Hopper engineer would say first: its A and B tiles "
        "are copied by every thread with `cp.async` (LDGSTS), where the tensor memory accelerator "
        "copies a whole tile from one instruction.",
        "explain sample:matmul --target sm90",
        finding("line 33: tma-candidate"),
        [("final", 0, ("4,096",)), ("final", 0, ("8,192",))],
    ),
    (
        "Tensor descriptors and a persistent grid: slower at first",
        "`sample:matmul_tma` loads through host `TensorDescriptor`s (UTMALDG in the SASS, no "
        "LDGSTS), walks the tiles in the grouped order on a persistent grid of one program per SM, "
        "and stores C as two half tiles. With `sample:matmul`'s 128x128 tile and 3 stages it is slower: "
        "0.68x. explain's shared-memory finding suggests num_stages=2 to fit two blocks per SM, but "
        "a persistent grid launches one program per SM, so a second block would have nothing to "
        "run: the other way, a deeper pipeline, is what pays.",
        MATMUL_TMA_128,
        finding("shared-memory-by-buffer"),
        [("final", 1, ("4,096", "BLOCK_SIZE_N=128, num_stages=3, FLATTEN=false"))],
    ),
    (
        "Deeper, then wider",
        "Four stages: 0.84x. Then a 128x256 tile: each warp group's wgmma is 64x256, every A tile "
        "loaded feeds twice the math, and the accumulator takes 128 of the 154 registers. Three "
        "stages of it need 177 KiB of shared memory, which the finding says fits sm_90 and sm_100 "
        "only: on an A100 (sm_80) this launch fails with OutOfResources, and num_stages=2 would fit "
        "it there.",
        "explain sample:matmul_tma --target sm90 -c FLATTEN=False",
        finding("shared-memory-by-buffer"),
        [
            ("final", 1, ("4,096", "BLOCK_SIZE_N=128, num_stages=4, FLATTEN=false")),
            ("final", 1, ("BLOCK_SIZE_N=256, num_stages=3, FLATTEN=false",)),
        ],
    ),
    (
        "The tuned default: 0.99x and 0.97x",
        "The sample's defaults add `tl.range(..., flatten=True)`: one software pipeline across "
        "tiles, so the next tile's loads overlap this tile's store. Between the variants above, "
        "differences under about 5% are within the run-to-run spread: this configuration measured "
        "0.96x, 0.93x, 0.93x and 0.99x at 4096 in four runs over three device sessions (the files "
        "docs/data/h100-2026-11-23-*.txt), and 0.97x to 1.01x at 8192. The 0.95x target holds in the "
        "final run, not in every run. Warp specialization would be the next step; "
        "explain compiles it and says that Triton 3.6 leaves it unlowered for sm_90.",
        "explain sample:matmul_tma --target sm90",
        finding("warp-specialize-not-applied"),
        [("final", 2, ("4,096",)), ("final", 2, ("8,192",))],
    ),
    (
        "Attention, narrow heads: three blocks per SM",
        "`sample:fused_attention_tma` loads Q, K, V and stores Out through descriptors. Its score "
        "wgmma is waited for as soon as it is issued (Triton keeps only a matmul-style accumulator "
        "chain in flight), so within one block the softmax never overlaps the tensor cores. With "
        "the 128-row, 8-warp block of `sample:fused_attention` (Triton's fused-attention tutorial) it "
        "reaches 0.79x of SDPA; with 64 rows on one warp group "
        "three blocks share each SM, one block's softmax runs while another's wgmma does, and it "
        "reaches 0.95x (1.02x and 1.03x in the two runs that followed), against 0.93x for "
        "`sample:fused_attention` itself.",
        "explain sample:fused_attention_tma --target sm90",
        finding("wgmma-waited-at-issue"),
        [
            ("final", 3, ("4,096",)),
            ("final", 4, ("4,096",)),
            ("final", 5, ("BLOCK_M=64, num_warps=4, num_stages=2",)),
            ("final", 5, ("BLOCK_M=128, num_warps=8, num_stages=3",)),
            ("4", 2, ("4,096",)),
        ],
    ),
    (
        "Attention, wide heads: explain's --maxnreg what-if, and where Triton stops",
        "For 128-wide heads one 128-row block fills the SM: the first TMA version (128-key blocks, 3 "
        "stages: the sample's default in that run) reached 0.78x "
        "(0.82x for `sample:fused_attention`). With 64-key blocks and 2 stages, the occupancy finding says "
        "that a cap of 128 registers fits a second block per SM, and its compiled what-if shows no "
        "spills. On the H100 the cap takes the same kernel from 0.66x to 0.83x and 0.85x "
        "(518 TFLOP/s), the sample's default now. That is the best reached, short of the 0.95x "
        "target: closing it takes the ping-pong of two warp groups that FlashAttention-3 writes by "
        "hand, which Triton 3.6 does not generate on sm_90 (warp_specialize stays unlowered there).",
        f"explain sample:fused_attention_tma --target sm90 {ATTENTION_WIDE}",
        finding("occupancy"),
        [
            ("final", 6, ("4,096",)),
            ("final", 7, ("4,096",)),
            ("4", 0, ("maxnreg=255",)),
            ("4", 0, ("maxnreg=128",)),
            ("4", 4, ("maxnreg=128",)),
        ],
    ),
    (
        "Wide heads in Gluon: the wait ptxas would not trust",
        "The first form of `sample:fused_attention_gluon` wrote in Gluon what Triton 3.6 does not generate: block "
        "j+1's scores go to the tensor cores before block j's softmax, and each wait says how many "
        "wgmma may stay in flight (FlashAttention-3's intra-warpgroup overlap). Its first version "
        "rescaled the accumulator after `warpgroup_mma_wait(1)`: correct, since wgmma groups finish "
        "in order, but it ran at 0.80x. `explain` found why: ptxas cannot prove that wait covers "
        "the accumulator, and serialized every wgmma in the kernel. The finding is shown here on "
        "`tests/kernels/gluon/wgmma_rescaled.py`, the same pattern in 40 lines. Following it "
        "(`warpgroup_mma_wait(0)` before the rescale, by which time the softmax has covered the "
        "wgmma) took the kernel to 0.88x, ahead of the TMA sample's 0.84x in the same run. "
        "Still short of 0.95x; the next step is what FlashAttention-3 adds on top.",
        "explain tests/kernels/gluon/wgmma_rescaled.py --target sm90",
        finding("wgmma-serialized"),
        [
            ("gluon-serialized", 0, ("BLOCK_N=128",)),
            ("gluon", 0, ("BLOCK_N=128",)),
            ("gluon", 2, ("4,096",)),
        ],
    ),
    (
        "Wide heads, warp-specialized: a copying warp and two warp groups taking turns",
        "The first form kept its two warp groups in lock step (every TMA copy bracketed by CTA-wide "
        "barriers) and needed about 255 registers per thread. The sample now follows FlashAttention-3: "
        "`gl.warp_specialize` gives one warp the TMA copies (mbarriers say when a K/V slot is full and "
        "when both warp groups are done with it), and each warp group issues block j+1's scores and "
        "block j's P·V together, taking block j+1's softmax while P·V runs. That order keeps fewer "
        "values live, so it fits the 240 registers `setmaxnreg` gives each computing thread once the "
        "copying warp's group drops to 24; `explain` shows the budgets (the 168 `bench` reports is "
        "what each of the 384 threads launches with). With ping-pong the warp groups also take turns "
        "issuing their wgmma. It reaches SDPA, cuDNN's wgmma kernel, at head_dim 128 (0.98-1.12x "
        "over twelve runs, docs/hopper-study.md); at head_dim 64 the TMA sample stays ahead. These "
        "figures were measured on 2026-11-24.",
        "explain sample:fused_attention_gluon --target sm90",
        finding("warp-partition", every=True),
        [
            ("gluon-ws", 0, ("4,096",)),
            ("gluon-ws", 2, ("4,096",)),
            ("gluon-ws", 3, ("4,096",)),
            ("gluon-ws", 4, ("4,096",)),
            ("gluon-ws", 5, ("4,096",)),
        ],
    ),
]


def _trace_chapter(folder: Path) -> str:
    """The torch.compile chapter: one trace into FOLDER, then commands that read it."""
    parts, names = [], {"capture": str(folder / "h100")}
    for title, prose, command, select in TRACE_STEPS:
        if "{reduction}" in command:
            captured = (folder / "h100" / "kernels.jsonl").read_text()
            names["reduction"] = re.search(r'"name": "(triton_per_[^"]+)"', captured).group(1)
        output = run(command.format(**names)).replace(str(folder) + "/", "")
        excerpt = [line.rstrip() for line in select(output)]
        if not excerpt:
            raise SystemExit(f"tour: `tritonscope {command}` printed nothing the tour could quote")
        if title:
            parts.append(f"\n## {title}\n\n{prose}\n")
        elif prose:
            parts.append(f"\n{prose}\n")
        shown = command.format(**{**names, "capture": "h100/"}).replace(str(HERE.parent) + "/", "")
        parts.append(f"\n```\n$ tritonscope {shown.replace('h100//', 'h100/')}\n" + "\n".join(excerpt) + "\n```\n")
    return "".join(parts)


def gpu_sections(stage: str) -> list[tuple[str, list[str]]]:
    """A stored H100 run, cut into one (command, output lines) per bench command of the script's stage."""
    script = GPU_SCRIPT.read_text().split(f"\n{stage.removesuffix('-serialized')})", 1)[1].split(";;", 1)[0]
    commands = [line.strip().removeprefix("ts ") for line in script.splitlines() if line.strip().startswith("ts ")]
    sections: list[list[str]] = []
    for line in GPU_RUNS[stage].read_text().splitlines():
        if line.startswith("measured peak:"):
            sections.append([])
        if sections:
            sections[-1].append(line)
    if len(sections) != len(commands):
        raise SystemExit(f"tour: {GPU_RUNS[stage].name} has {len(sections)} bench runs, the script {len(commands)}")
    return list(zip((f"bench {c}" for c in commands), sections, strict=True))


def gpu_excerpt(refs) -> str:
    """The header and the rows asked for of each bench run a step quotes: (stage, run number, words in the row)."""
    blocks = []
    for stage, number in dict.fromkeys((stage, n) for stage, n, _ in refs):
        command, lines = gpu_sections(stage)[number]
        header = [line for line in lines if line.lstrip().startswith("size")][:1]
        chosen = [words for s, n, words in refs if (s, n) == (stage, number)]
        rows = [line for words in chosen for line in lines if all(w in line for w in words)]
        if not rows:
            raise SystemExit(f"tour: no row of `{command}` in {GPU_RUNS[stage].name} has {chosen}")
        blocks.append(f"$ tritonscope {command}\n" + "\n".join([lines[1], *header, *rows]))
    return "\n```\n" + "\n\n".join(blocks) + "\n```\n"


def hopper_chapter() -> str:
    parts = [
        "\n## From 0.8x to 1.0x of cuBLAS\n\n"
        f"The bench figures in this chapter were measured once, on an H100 (80 GB HBM3) on {GPU_DATE}, "
        f"with triton 3.6.0 and torch 2.11.0: `{GPU_SCRIPT.relative_to(HERE.parent)}`'s final stage, whose "
        f"output is kept in `docs/{GPU_RUN.relative_to(HERE)}` (and its stage 4, a later run the same day, "
        f"in `docs/{GPU_RUNS['4'].relative_to(HERE)}`). The build quotes those files and does not "
        "run them again; the explain excerpts are made now, with the installed Triton. `vs torch` is "
        "torch's time over the kernel's, both measured in the same run.\n"
    ]
    for title, prose, command, select, refs in HOPPER_STEPS:
        parts.append(f"\n### {title}\n\n{prose}\n")
        excerpt = [line.rstrip() for line in select(run(command))]
        if not excerpt:
            raise SystemExit(f"tour: `tritonscope {command}` printed nothing the tour could quote")
        parts.append(f"\n```\n$ tritonscope {command}\n" + "\n".join(excerpt) + "\n```\n")
        parts.append(gpu_excerpt(refs))
    return "".join(parts)


def run(command: str) -> str:
    env = {**os.environ, "COLUMNS": "110"}
    words = [sys.executable, "-m", "tritonscope", *shlex.split(command), "--no-pager"]
    if command.startswith(("grid", "layout")):
        words.remove("--no-pager")
    if command.startswith("trace"):  # the traced program runs under this Python, whatever `python` PATH finds
        program = [sys.executable if word == "python" else word for word in shlex.split(command)]
        words = [sys.executable, "-m", "tritonscope", *program]
    result = subprocess.run(words, capture_output=True, text=True, env=env, cwd=HERE.parent)
    if result.returncode not in ((0, 1) if command.startswith("check") else (0,)):  # check exits 1 on a broken budget
        raise SystemExit(f"tour: `tritonscope {command}` failed ({result.returncode}):\n{result.stderr}")
    # trace reports on stderr after the program's output; --from-run says which launch before the view
    before = result.stderr if "--from-run" in command else ""
    return before + result.stdout + (result.stderr if command.startswith("trace") else "")


# --- Follow tl.dot from Python to HGMMA, one keystroke at a time: the explorer, driven headless ----

EXPLORE_CHAPTER = "Follow `tl.dot` from Python to HGMMA, one keystroke at a time"
# (prose, the keys typed, what to quote: "linked" (each pane's highlighted lines), "cursor" (the line
# under the SASS pane's cursor and the source line it selects), "panel" (the resource panel), "pass")
EXPLORE_STEPS = [
    (
        "`tritonscope explore sample:matmul --target sm90` opens the kernel's file beside its stages. "
        "`+` adds a stage pane, `tab` and `S` make it TTIR, and `:35` puts the source's cursor on the "
        "`tl.dot` line: every pane highlights what came from it, through the line map `dump --line` uses. "
        "In TTIR it is one `tt.dot`; in TTGIR the compiler has made it a Hopper warp-group dot and the wait "
        "that follows it; in SASS, the address arithmetic that feeds the tensor cores.",
        ["plus", "tab", "S", "S", "shift+tab", "colon", "3", "5", "enter"],  # S skips TTGIR: another pane's
        "+  tab  S S  shift+tab  :35⏎",
        "linked",
    ),
    (
        "`tab` to the SASS pane and `/HGMMA` finds the first warp-group matrix instruction; the source "
        "pane follows it to its Python line. ptxas's line table files this first `HGMMA` under line 34, the "
        "load before the dot (`explain` puts such instructions back on their `tl.dot` line); `n`, the next "
        "match, is filed under 35.",
        ["tab", "tab", "tab", "slash", *"HGMMA", "enter"],
        "tab tab tab  /HGMMA⏎",
        "cursor",
    ),
    (None, ["n"], "n", "cursor"),
    (
        "`v` opens the variant: `←` on `BLOCK_SIZE_N` halves it to 64 and compiles it in the background, "
        "the screen live meanwhile. The resource panel says what each figure became, and `▌` marks the SASS "
        "lines that changed against the variant before (what `diff` shows): the `HGMMA` is now 64x64.",
        ["v", "down", "left", "escape"],
        "v  ↓  ←  esc",
        "panel",
    ),
    (
        "`b` brings the 128-wide variant back from memory, and `p` opens its pass pipeline, as `passes` "
        "lists it. On `tritongpu-accelerate-matmul` the IR before and after the pass sits side by side, the "
        "lines it changed marked, the `tl.dot` line still linked: this pass turns `tt.dot` into "
        "`ttng.warp_group_dot`.",
        ["b", "p"],
        "b  p  (then the pass chosen)",
        "pass",
    ),
]


def explore_chapter() -> str:
    """The explorer driven with its own keys (Textual's headless Pilot), each step's screen quoted."""
    import asyncio

    quoted = asyncio.run(_explore_steps())
    parts = [f"\n## {EXPLORE_CHAPTER}\n"]
    for (prose, _, shown, _), excerpt in zip(EXPLORE_STEPS, quoted, strict=True):
        if not excerpt:
            raise SystemExit(f"tour: the explorer showed nothing to quote after {shown}")
        parts.append(f"\n{prose}\n" if prose else "")
        parts.append(f"\n```\nkeys: {shown}\n" + "\n".join(excerpt) + "\n```\n")
    return "".join(parts)


async def _explore_steps() -> list[list[str]]:
    import asyncio

    from tritonscope import explorer
    from tritonscope.core.model import VariantRequest
    from tritonscope.explorer.app import ExplorerApp

    request = VariantRequest(file="sample:matmul", target="sm90")
    opening = explorer.start(request)
    first = await asyncio.to_thread(opening.first)
    app = ExplorerApp(opening.compiles, request, first, watch=False)
    quoted = []
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause()
            for _, keys, _, what in EXPLORE_STEPS:
                await pilot.press(*keys)
                while app.compiling or (what == "pass" and not app.screen.query("#pipeline")):
                    await pilot.pause(0.1)
                if what == "pass":
                    index = next(r.index for r in app.screen.passes.records if r.name == "tritongpu-accelerate-matmul")
                    app.screen.query_one("#pipeline").highlighted = index - 1
                await pilot.pause(0.5)
                quoted.append(_quote(app, what))
    finally:
        opening.compiles.close()
    return quoted


def _quote(app, what: str) -> list[str]:
    from tritonscope.explorer.panes import CodePane

    def rows(pane, numbers) -> list[str]:
        return [pane.row_text(pane._rows[n], 100).rstrip() for n in sorted(numbers)]

    if what == "pass":
        before, after = app.screen.query_one("#before", CodePane), app.screen.query_one("#after", CodePane)
        lines = [
            f"── {before.border_title}: changed, from line 35",
            *rows(before, before.content.changed & before.linked),
        ]
        return lines + [
            f"── {after.border_title}: changed, from line 35",
            *rows(after, after.content.changed & after.linked),
        ]
    sass = app.query_one("#stage-2", CodePane)
    if what == "cursor":
        source = app.query_one("#source", CodePane)
        return [
            f"SASS   {sass.row_text(sass.cursor, 100).strip()}",
            f"source {source.row_text(source.cursor, 100).strip()}",
        ]
    if what == "panel":
        panel = [line.strip() for line in app.query_one("#resources").render().plain.splitlines() if "was" in line]
        changed = rows(sass, sass.content.changed)
        return panel + [f"── SASS: {len(changed)} lines changed (▌)", *[r for r in changed if "HGMMA" in r][:2]]
    lines = []
    for pane in app.query(CodePane):
        if pane.display and pane.id != "source":
            linked = rows(pane, pane.linked)
            count = f"{len(linked)} line{'s' if len(linked) != 1 else ''}"
            lines += [f"── {pane.border_title}: {count} from line 35", *linked[:4]]
            lines += ["   ..."] if len(linked) > 4 else []
    return lines


def build() -> str:
    parts = [
        "# A guided tour: from Python to SASS\n",
        "What the Triton compiler makes of a kernel, followed through tritonscope's commands on the "
        "kernels it bundles (`tritonscope samples` lists them; `sample:NAME` names one): vector add, "
        "softmax and matmul first, from Python through TTIR, TTGIR, LLVM IR and PTX to SASS; then the "
        "questions a kernel engineer meets (why an access is narrow, why a config does not fit a GPU, "
        "what torch.compile made), and last a matmul and an attention tuned on an H100. It needs no "
        "more than Triton's own tutorials teach. Every excerpt below is real output, made by "
        "`docs/build_tour.py` with the installed Triton; no GPU is needed for any of it, except the "
        "bench figures of the last chapter, captured once on an H100 and kept in the repository. "
        "The chapters from vector add down to HGMMA are also a notebook, with the Python API "
        "([tour.ipynb](tour.ipynb): `pip install jupyterlab` then `jupyter lab docs/tour.ipynb`, or "
        "open it in VS Code; [api.md](api.md) says how its views work). The `sample:` kernels come "
        "with the installed package; the few commands that name a file under `docs/` or `tests/` run "
        "from the root of a checkout of this repository.\n",
    ]
    for title, prose, command, select in STEPS:
        excerpt = [line.rstrip() for line in select(run(command))]
        if not excerpt:
            raise SystemExit(f"tour: `tritonscope {command}` printed nothing the tour could quote")
        if title:
            parts.append(f"\n## {title}\n\n{prose}\n")
        elif prose:
            parts.append(f"\n{prose}\n")
        parts.append(f"\n```\n$ tritonscope {command}\n" + "\n".join(excerpt) + "\n```\n")
    with tempfile.TemporaryDirectory() as folder:
        parts.append(_trace_chapter(Path(folder)))
    return "".join(parts) + explore_chapter() + tutorials_chapter() + hopper_chapter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "tour.md")
    out = parser.parse_args().out
    write_text_atomically(out, build())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
