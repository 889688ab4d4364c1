"""`bench --plot FILE`: throughput against problem size, one line per variant of the kernel and one
for torch, on a log2 size axis, as triton.testing.perf_report draws the vector-add tutorial.

GB/s, or TFLOP/s where the kernel is compute-bound: where its work's flops per byte (at the
largest size) pass the measured peaks' ratio (matmul FLOP/s over copy bytes/s). matplotlib is
an optional extra (`pip install tritonscope[plot]`), imported only here.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..core.errors import UsageError
from ..results.bench import BenchResult

FORMATS = (".svg", ".png")

Series = tuple[str, tuple[tuple[int, float], ...]]


def check(path: Path) -> None:
    """Before any GPU time is spent: a format matplotlib writes, and matplotlib itself."""
    if path.suffix.lower() not in FORMATS:
        raise UsageError(f"--plot {path}: give a .svg or .png file name")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot draws with matplotlib, not installed here: pip install 'tritonscope[plot]'") from None


def unit(result: BenchResult) -> str:
    """TFLOP/s for a compute-bound kernel, else GB/s."""
    measured = [m for m in result.results if m.flops and m.bytes]
    if not measured:
        return "GB/s"
    largest = max(measured, key=lambda m: m.size)
    ridge = result.peak.matmul_tflops * 1e3 / result.peak.copy_gbps  # FLOP per byte where both peaks meet
    return "TFLOP/s" if largest.flops / largest.bytes > ridge else "GB/s"


def series(result: BenchResult, per: str) -> list[Series]:
    """(label, ((size, throughput), ...)) per variant of the kernel, then torch's."""
    work = "flops" if per == "TFLOP/s" else "bytes"
    scale = 1e9 if per == "TFLOP/s" else 1e6  # per ms
    kernel: dict[str, dict[int, float]] = {}
    torch: dict[int, float] = {}
    for m in result.results:
        label = " ".join(f"{k}={v}" for k, v in m.label.items())
        points = kernel.setdefault(f"triton {label}".strip(), {})
        amount = getattr(m, work)
        if m.correct and m.ms and amount:
            points[m.size] = amount / m.ms / scale
        if m.torch_ms and amount:
            torch.setdefault(m.size, amount / m.torch_ms / scale)
    found = [(label, tuple(sorted(points.items()))) for label, points in kernel.items()]
    return [*found, ("torch", tuple(sorted(torch.items())))]


def render(result: BenchResult, format: str) -> bytes:
    """The plot as SVG (text kept as text, no date: the same result draws the same file) or PNG."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    per = unit(result)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "tritonscope"}):
        figure = Figure(figsize=(7, 4.5), layout="constrained")
        axes = figure.subplots()
        for index, (label, points) in enumerate(series(result, per)):
            if points:
                sizes, values = zip(*points, strict=True)
                axes.plot(sizes, values, marker="o", label=label, gid=f"series-{index}")
        axes.set_xscale("log", base=2)
        axes.set_xlabel("size (as make_inputs takes it)")
        axes.set_ylabel(per)
        axes.set_title(f"{Path(result.file).name}: {per} against size")
        axes.grid(True, alpha=0.3)
        axes.legend()
        buffer = io.BytesIO()
        metadata = {"Date": None} if format == "svg" else {}
        figure.savefig(buffer, format=format, metadata=metadata)
    return buffer.getvalue()


class PlotRenderer:
    """`bench --plot FILE`: the file's name picks the format (.svg or .png), checked when the
    renderer is made, so that the command can ask before any GPU time is spent."""

    def __init__(self, path: Path | str = "plot.svg"):
        check(Path(path))
        self.format = Path(path).suffix.lower().lstrip(".")

    def render(self, result: BenchResult) -> bytes:
        return render(result, self.format)


def write(result: BenchResult, path: Path) -> None:
    """The plot written whole to `path`, as the command wrapper writes `--plot` (for callers of
    tritonscope as a library)."""
    from ..core.fileio import write_output

    write_output(path, PlotRenderer(path).render(result), "--plot", (result.file,))
