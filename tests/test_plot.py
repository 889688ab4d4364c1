"""`bench --plot` and `--size A..B` without a GPU: a fixed BenchResult drawn with the real matplotlib."""

from __future__ import annotations

import re
import sys

import pytest

from tritonscope.cli.argtypes import size_list
from tritonscope.core.errors import UsageError
from tritonscope.render import plot
from tritonscope.results.bench import BenchResult, Measurement, Peak

SIZES = [2**e for e in range(12, 21)]  # 2**12..2**20


def _vector_add() -> BenchResult:
    """Two variants; BLOCK_SIZE=4096 fails at the largest size (no point there), torch has every size."""
    results = []
    for n in SIZES:
        for block in (256, 4096):
            failed = block == 4096 and n == SIZES[-1]
            ms = None if failed else 1e-3 * (1 + n / 2**16)
            results.append(
                Measurement(
                    n, {"BLOCK_SIZE": str(block)}, 0.0, not failed, ms=ms, torch_ms=1.2e-3 * (1 + n / 2**16),
                    flops=n, bytes=12 * n,
                )
            )  # fmt: skip
    return BenchResult("sample_kernels/vector_add.py", Peak(3000.0, 800.0), tuple(results))


def _series_points(svg: str) -> dict[str, int]:
    """The markers drawn in each series' group (matplotlib draws a marker as a <use> of one path)."""
    groups = re.findall(r'<g id="(series-\d+)">(.*?)</g>', svg, re.DOTALL)
    return {gid: body.count("<use ") for gid, body in groups}


def test_the_svg_has_a_line_per_variant_and_torch_with_a_point_per_size():
    svg = plot.render(_vector_add(), "svg").decode()
    assert _series_points(svg) == {"series-0": 9, "series-1": 8, "series-2": 9}
    for label in ("triton BLOCK_SIZE=256", "triton BLOCK_SIZE=4096", "torch", "GB/s"):
        assert f">{label}<" in svg or f"> {label}<" in svg or label in re.sub(r"<[^>]+>", "", svg)
    assert "TFLOP/s" not in svg and "vector_add.py: GB/s against size" in svg
    assert plot.render(_vector_add(), "svg") == plot.render(_vector_add(), "svg")  # no date, fixed ids


def test_throughput_is_the_works_bytes_over_the_time():
    (label, points), *_ = plot.series(_vector_add(), "GB/s")
    assert label == "triton BLOCK_SIZE=256"
    size, gbps = points[0]
    assert size == 4096 and gbps == pytest.approx(12 * 4096 / (1e-3 * (1 + 4096 / 2**16)) / 1e6)


def test_a_compute_bound_kernel_is_drawn_in_tflops():
    n = 4096
    m = Measurement(n, {}, 0.0, True, ms=0.2, torch_ms=0.25, flops=2 * n**3, bytes=6 * n * n)
    result = BenchResult("sample_kernels/matmul.py", Peak(3000.0, 800.0), (m,))
    assert plot.unit(result) == "TFLOP/s"
    expected = [("triton", ((n, 2 * n**3 / 0.2 / 1e9),)), ("torch", ((n, 2 * n**3 / 0.25 / 1e9),))]
    assert plot.series(result, "TFLOP/s") == expected


def test_png_is_written_whole(tmp_path):
    out = tmp_path / "sub" / "add.png"
    plot.write(_vector_add(), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in out.parent.iterdir()] == ["add.png"]


def test_a_plot_is_checked_before_the_gpu_runs(monkeypatch, tmp_path):
    with pytest.raises(UsageError, match=r"\.svg or \.png"):
        plot.check(tmp_path / "add.pdf")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    with pytest.raises(UsageError, match=r"pip install 'tritonscope\[plot\]'"):
        plot.check(tmp_path / "add.svg")


def test_size_ranges_step_through_the_powers_of_two():
    assert size_list(["2**12..2**27"]) == [2**e for e in range(12, 28)]
    assert size_list(["4096..16384", "100", "4096"]) == [4096, 8192, 16384, 100]
    for bad in ("2**12..100", "2**20..2**12", "x..2**4"):
        with pytest.raises(UsageError):
            size_list([bad])
