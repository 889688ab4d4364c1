"""Issue 52's ground truth: every (kernel, size, config) of the launch set
(tests/kernels/launch_set/, launch_set.py there says what a kernel file declares) timed on the
GPU, with the GPU's own ceilings measured once (benchmarks/gpu_peaks.py), as JSON.

On the GPU machine, from the repository's root:

    PYTHONUNBUFFERED=1 python3 benchmarks/launch_ground_truth.py --out $OUT [--budget 200]

1. the GPU's figures: copy bandwidth in DRAM and in L2, a bf16 matmul's rate, an empty launch;
2. every case compiled at once, in parallel (benchmarks/launch_precompile.py);
3. per kernel and size: the inputs, torch's reference; per config: one launch checked against the
   reference first (a config that fails, or asks for more shared memory than the GPU has, or
   gives a wrong result is recorded with why, and not timed), then triton.testing.do_bench's
   20th, 50th and 80th percentiles (it clears the L2 before each run; the large sizes are well
   beyond it anyway), with the grid, the scalar arguments, and the registers, spills and shared
   memory of the compiled kernel.

Writes OUT/launch_truth.json (again after each kernel, so a run cut short keeps what it did; a
case not reached by --budget says so), then prints a table: per kernel and size, the fastest and
slowest config and their times.

Here, without a GPU:
    python benchmarks/launch_ground_truth.py --cpu            every config checked on Triton's
                                                              interpreter at the tiny sizes
    python benchmarks/launch_ground_truth.py --compile-only   every GPU case specialized and
                                                              compiled for sm90 (step 2 alone)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch_precompile import LAUNCH_SET, load_kernel_file  # noqa: E402

sys.path.insert(0, str(LAUNCH_SET))
import launch_set  # noqa: E402

TRUTH_FILE = "launch_truth.json"
QUANTILES = (0.2, 0.5, 0.8)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="folder of the JSON (default: $OUT, else ./launch-truth)")
    parser.add_argument("--budget", type=float, default=200, help="seconds for everything (default 200)")
    parser.add_argument("--warmup", type=float, default=10, help="do_bench's warmup, ms (default 10)")
    parser.add_argument("--rep", type=float, default=40, help="do_bench's repetition time, ms (default 40)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 4, help="compiles at once (default: the cores)")
    parser.add_argument("--kernels", nargs="*", help="only these kernel files (by name)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--cpu", action="store_true", help="check every config on Triton's interpreter, tiny sizes")
    mode.add_argument("--compile-only", action="store_true", help="no GPU: specialize and compile for sm90")
    return parser.parse_args()


def kernel_files(names: list[str] | None) -> list[Path]:
    files = launch_set.kernel_files()
    if names:
        unknown = set(names) - {p.stem for p in files}
        if unknown:
            sys.exit(f"no kernel file {', '.join(sorted(unknown))} in {LAUNCH_SET}")
        files = [p for p in files if p.stem in names]
    return files


def configs_of(declared: dict) -> list[tuple[int, dict]]:
    """(index, config without its note) of each config a kernel file declares."""
    return [(i, {k: v for k, v in c.items() if k not in launch_set.NOTES}) for i, c in enumerate(declared["configs"])]


# ---------------------------------------------------------------- without a GPU


def check_on_interpreter(files: list[Path], args: argparse.Namespace) -> int:
    """Every config of every kernel at its tiny sizes on Triton's interpreter, against torch, each
    grid against LAUNCH_SET's; written as the GPU's JSON is, with nothing timed."""
    truth = Truth(Path(args.out or os.environ.get("OUT") or "launch-truth").resolve(), args)
    truth.doc["mode"] = "Triton's interpreter, the tiny sizes: checked, not timed"
    for path in files:
        truth.doc["kernels"][path.stem] = measure_kernel(path, args, deadline=float("inf"), on_gpu=False)
        truth.write()
    cases = [c for k in truth.doc["kernels"].values() for c in k["cases"]]
    wrong = [c for c in cases if c["status"] != "checked"]
    print(f"{len(wrong)} wrong of the {len(cases)} configs checked; {truth.path}")
    return 1 if wrong else 0


def compile_for_sm90(files: list[Path], jobs: int) -> int:
    """Step 2 alone, with no GPU: each GPU case specialized for sm90 on meta tensors, compiled."""
    from launch_precompile import compile_all, use_target_only_driver

    target = use_target_only_driver(90)
    specs = capture(files, device="meta")
    summary = compile_all(specs, target, jobs)
    over = [r for r in summary["results"] if r["ok"] and r["shared"] > 232448]
    print(f"{summary['specializations']} specializations, {summary['compiled']} compiled in {summary['wall_s']} s "
          f"({summary['compile_s_total']} s of compiles, {jobs} at once)")  # fmt: skip
    for result in over:
        print(f"  over 227 KiB of shared memory ({result['shared']} bytes): {result['file']} {result['what']}")
    for failure in summary["failed"]:
        print(f"  failed: {failure['file']} {failure['what']}: {failure['error']}")
    return 1 if summary["failed"] else 0


def capture(files: list[Path], device: str) -> list[tuple[str, str, str]]:
    """(file, kernel, Triton's specialization data) of every GPU case, nothing compiled."""
    from launch_precompile import Capture

    specs = []
    for path in files:
        module, declared = load_kernel_file(path), launch_set.declaration(path)
        for size in declared["sizes"]:
            inputs = module.make_inputs(size, device=device)
            with Capture() as heard:
                for _, config in configs_of(declared):
                    module.launcher(*inputs, **config).run()
            specs += [(str(path), declared["kernel"], found) for found in heard.found]
            del inputs
    return specs


# ---------------------------------------------------------------- on the GPU


class Truth:
    """The JSON document, written whole after each kernel."""

    def __init__(self, out: Path, args: argparse.Namespace):
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / TRUTH_FILE
        self.doc = {"settings": {"warmup_ms": args.warmup, "rep_ms": args.rep, "quantiles": list(QUANTILES)}}
        self.doc["settings"]["timer"] = "triton.testing.do_bench: L2 cleared before each run, CUDA events"
        self.doc["kernels"] = {}

    def write(self) -> None:
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(self.doc, indent=1, default=repr))
        partial.replace(self.path)


def run_on_gpu(files: list[Path], args: argparse.Namespace) -> int:
    import gpu_peaks
    import torch
    import triton

    started = time.monotonic()
    deadline = started + args.budget - 10  # the last write
    truth = Truth(Path(args.out or os.environ.get("OUT") or "launch-truth").resolve(), args)
    versions = {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__}
    truth.doc["versions"] = versions
    truth.doc["device"], truth.doc["clocks_before"] = gpu_peaks.device(), gpu_peaks.clocks()
    truth.doc["peaks"] = gpu_peaks.measure()
    truth.write()
    print(f"peaks: {json.dumps(truth.doc['peaks'])}", flush=True)
    truth.doc["precompile"] = precompile(files, args.jobs)
    truth.write()
    hits = CompileCounter()
    for path in files:
        truth.doc["kernels"][path.stem] = measure_kernel(path, args, deadline, on_gpu=True)
        truth.doc["compiles_in_timing"] = hits.counts
        truth.write()
    truth.doc["clocks_after"], truth.doc["wall_s"] = gpu_peaks.clocks(), round(time.monotonic() - started, 1)
    truth.write()
    print(table(truth.doc), flush=True)
    return 0


def precompile(files: list[Path], jobs: int) -> dict:
    from launch_precompile import compile_all
    from triton.runtime import driver

    target = driver.active.get_current_target()
    began = time.monotonic()
    specs = capture(files, device="cuda")
    summary = compile_all(specs, (target.backend, target.arch, target.warp_size), jobs)
    summary["capture_s"] = round(time.monotonic() - began - summary["wall_s"], 2)
    print(f"precompiled {summary['compiled']} of {summary['specializations']} in {summary['wall_s']} s", flush=True)
    return {k: v for k, v in summary.items() if k != "results"}


class CompileCounter:
    """Triton's compiles during the timing, cache hits apart: how well the precompile served."""

    def __init__(self):
        from triton import knobs

        self.counts = {"cache_hit": 0, "compiled": 0}
        knobs.compilation.listener = self._heard

    def _heard(self, *, cache_hit, **_):
        self.counts["cache_hit" if cache_hit else "compiled"] += 1


def measure_kernel(path: Path, args: argparse.Namespace, deadline: float, on_gpu: bool) -> dict:
    """Every size and config of a kernel file: on the GPU its sizes, checked then timed; else its
    tiny sizes on the interpreter, checked."""
    import torch

    module, declared = load_kernel_file(path), launch_set.declaration(path)
    record = {k: declared[k] for k in ("kind", "held_out", "kernel", "dtype", "tolerance", "grid", "work", "configs")}
    record.update(file=str(path.relative_to(ROOT)), cases=[])
    for size in declared["sizes" if on_gpu else "cpu_sizes"]:
        dims = launch_set.dimensions(declared, size)
        late = time.monotonic() > deadline
        inputs = None if late else module.make_inputs(size, device="cuda" if on_gpu else "cpu")
        expected = None if late else module.reference(*inputs)
        work = launch_set.declared_work(declared, dims, launch_set.dtype_of(declared, size).itemsize)
        for index, config in configs_of(declared):
            case = {"size": size, "dims": dims, "config_index": index, "config": config, "work": work}
            case["declared_grid"] = list(launch_set.declared_grid(declared, dims, config))
            if late or time.monotonic() > deadline:
                case["status"] = "not run: out of time"
            else:
                measure_case(module, declared, inputs, expected, config, case, args if on_gpu else None)
            record["cases"].append(case)
            print(f"{path.stem:<18} {size:<16} config {index:>2}: {case['status']} {case.get('ms', '')}", flush=True)
        del inputs, expected
        if on_gpu:
            torch.cuda.empty_cache()
    return record


def measure_case(module, declared, inputs, expected, config, case, timing: argparse.Namespace | None) -> None:
    """Checks one config's output, then times it (with TIMING's do_bench settings; without, on the
    interpreter, the check alone: "checked"); CASE gets the status and the figures."""
    import torch

    try:
        started = module.launcher(*inputs, **config)
        kernel = started.run()
        if timing:
            torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - a config that cannot launch is a result
        name = type(error).__name__
        case["status"] = "out of resources" if name == "OutOfResources" else "failed"
        case["message"] = f"{name}: {error}"[:300]
        return
    case.update(grid=list(started.grid), scalars=started.scalars)
    case.update(n_regs=getattr(kernel, "n_regs", None), n_spills=getattr(kernel, "n_spills", None))
    case.update(shared=getattr(getattr(kernel, "metadata", None), "shared", None))
    case["error"] = launch_set.relative_error(started.output, expected)
    if case["error"] > declared["tolerance"] + 1e-6 or case["grid"] != case["declared_grid"]:
        case["status"] = "wrong"
        return
    if timing is None:
        case["status"] = "checked"
        return
    import triton

    bench = triton.testing.do_bench
    p20, p50, p80 = bench(started.run, warmup=timing.warmup, rep=timing.rep, quantiles=list(QUANTILES))
    case.update(status="ok", ms=p50, ms_p20=p20, ms_p80=p80)


def table(doc: dict) -> str:
    rows = [f"{'kernel':<18} {'size':<16} {'ok':>3} {'best':>4} {'ms':>9} {'worst':>5} {'ms':>9}  skipped"]
    for name, record in doc["kernels"].items():
        by_size: dict[str, list[dict]] = {}
        for case in record["cases"]:
            by_size.setdefault(case["size"], []).append(case)
        for size, found in by_size.items():
            timed = sorted((c for c in found if c["status"] == "ok"), key=lambda c: c["ms"])
            skipped = ", ".join(f"{c['config_index']}:{c['status']}" for c in found if c["status"] != "ok")
            best, worst = (timed[0], timed[-1]) if timed else ({}, {})
            rows.append(
                f"{name:<18} {size:<16} {len(timed):>3} {best.get('config_index', '-'):>4} {best.get('ms', 0):>9.4f} "
                f"{worst.get('config_index', '-'):>5} {worst.get('ms', 0):>9.4f}  {skipped}"
            )
    return "\n".join(rows)


def main() -> int:
    args = arguments()
    files = kernel_files(args.kernels)
    if args.cpu:
        os.environ["TRITON_INTERPRET"] = "1"  # read when the kernel files' @triton.jit run
        return check_on_interpreter(files, args)
    if args.compile_only:
        return compile_for_sm90(files, args.jobs)
    return run_on_gpu(files, args)


if __name__ == "__main__":
    sys.exit(main())
