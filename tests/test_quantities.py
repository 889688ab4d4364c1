"""Counts, sizes and percentages said one way by every view (issue 55's small things: `1 blocks`,
occupancy 12% in one view and 12.5% in another, `1.016 KiB` against `1.0 KiB`)."""

from __future__ import annotations

import json
import re

import pytest

from tritonscope.agent.summaries import summary as agent_summary
from tritonscope.analysis import fitting
from tritonscope.analysis.findings import OCCUPANCY
from tritonscope.app.check import figures
from tritonscope.app.explain import explain_compilation
from tritonscope.app.walk.prepare import compile_request
from tritonscope.core.model import VariantRequest
from tritonscope.core.quantities import count, percentage, size, size_exact
from tritonscope.core.samples import sample_path
from tritonscope.core.targets import TARGETS
from tritonscope.render.registry import renderer
from tritonscope.render.terminal.check import figures_line
from tritonscope.render.terminal.diff import resource_columns
from tritonscope.results.dump import DumpResult
from tritonscope.results.explain import ExplainResult


def test_counts_sizes_and_percentages():
    assert [count(1, "block"), count(2, "block"), count(0, "spill")] == ["1 block", "2 blocks", "0 spills"]
    assert count(1_024, "register") == "1,024 registers" and count(1, "pass", "passes") == "1 pass"
    assert count(3, "pass", "passes") == "3 passes"
    assert [size(512), size(1_040), size(98_304), size(99_328), size(3 << 20)] == [
        *("512 B", "1.016 KiB", "96 KiB", "97 KiB", "3 MiB"),
    ]
    assert [size_exact(512), size_exact(1_040)] == ["512 B", "1,040 B (1.016 KiB)"]
    assert [percentage(12.5), percentage(25.0), percentage(43.75), percentage(100)] == [
        *("12.5%", "25%", "43.8%", "100%"),
    ]


@pytest.fixture(scope="module")
def matmul_sm80():
    """sample:matmul on an A100: 1 block of 8 warps per SM, 12.5% occupancy, 64 KiB of shared memory."""
    c = compile_request(VariantRequest(str(sample_path("matmul")), target="sm80"))
    occupancy = c.resources.occupancy
    assert (occupancy.blocks_per_sm, occupancy.percent, c.resources.shared_bytes) == (1, 12.5, 65_536)
    return c, explain_compilation(c)  # live registers too, as the command and the agent read them


def test_every_view_says_the_occupancy_blocks_and_shared_memory_alike(matmul_sm80):
    c, explained = matmul_sm80
    r = c.resources
    (occupancy,) = [f for f in explained.findings if f.kind == OCCUPANCY]
    views = {
        "dump": renderer(DumpResult, "terminal", width=200).render(DumpResult(c, ())),
        "explain": renderer(ExplainResult, "terminal", width=200).render(explained),
        "finding": occupancy.message,
        "check": figures_line(figures(explained)),
        "agent": agent_summary(json.loads(renderer(ExplainResult, "json").render(explained))),
        "notebook": renderer(ExplainResult, "summary").render(explained),
        "html": renderer(DumpResult, "html").render(DumpResult(c, ())),
        "diff": " ".join(resource_columns(c).values()),
        "fit": fitting.judge(TARGETS["sm80"], r, 8, None).reason,
    }
    for name, text in views.items():
        assert "12.5%" in text, name
        assert not re.search(r"\b1 (blocks|spills)\b|\b12%|\b13%", text), name
    for name in ("dump", "html"):  # tables: the exact count, and the size as sentences say it
        assert "65,536 B (64 KiB)" in views[name], name
    for name in ("explain", "agent", "notebook", "fit"):
        assert "64 KiB" in views[name] and "65536" not in views[name] and "65,536" not in views[name], name
    assert "1 block = 8 of 64 warps per SM" in views["dump"]
    assert "occupancy 12.5% (1 block, limited by registers)" in views["explain"]
    assert occupancy.message.startswith("occupancy 12.5%: 1 block of 8 warps per SM, limited by registers")
    assert "occupancy 12.5% (1 block per SM, limited by registers)" in views["agent"]
    assert "1 block per SM (12.5%)" in views["fit"]


def test_the_explorer_says_them_as_the_commands_do(matmul_sm80):
    """The explorer's titles and resource rows: occupancy to the same precision, sizes the same way."""
    from tritonscope.explorer.contents import resources
    from tritonscope.explorer.words import titles
    from tritonscope.results.explore import ExploreResult

    c, explained = matmul_sm80
    result = ExploreResult(VariantRequest(str(sample_path("matmul")), target="sm80"), explained)
    narrow, wide = titles(result)
    regs = c.resources.registers  # 167 on Triton 3.6.0; another release allocates its own
    assert narrow.endswith(f"{regs} regs · 0 spills · 64 KiB shared · occupancy 12.5%")
    assert wide.endswith(f"{regs} registers · 0 spills · 64 KiB shared memory · occupancy 12.5%")
    rows = {name: (value, meaning) for name, value, _, meaning in resources(result, None)}
    assert rows["occupancy"][0] == "12.5%" and rows["occupancy"][1].startswith("1 block = 8 of 64 warps per SM")
    assert rows["shared memory"][0] == "65,536 B (64 KiB)"
