"""analysis/findings/ as one package: every command gets its findings from the one `find`, so explain,
profile and check say the same of the same variant; a missing input is a note, not a smaller set; the
detector modules import no one in a circle."""

from __future__ import annotations

import ast
import dataclasses
from importlib.metadata import version
from pathlib import Path

import pytest
from conftest import KERNELS, compiled, make_request

from tritonscope.analysis import findings
from tritonscope.analysis.findings import DETECTORS, Input, Kernel, find
from tritonscope.analysis.measured import LINE_MAP
from tritonscope.app import kernel_figures, profile, space
from tritonscope.app.check import check
from tritonscope.app.explain import explain
from tritonscope.core.model import CheckEntry
from tritonscope.core.stages import Stage

PACKAGE = Path(findings.__file__).parent
_TRITON = tuple(int(p) for p in version("triton").split(".")[:2])
# Triton 3.9 loads gfx950's dot tiles straight into LDS by default (amdg.buffer_load_to_local): no tile
# passes through registers, so there is no bypass to suggest, and the LDS layout it picks is conflict-free.
_GFX950_SHOWN = {findings.LDS_BYPASS, findings.BANK_CONFLICTS} if _TRITON < (3, 9) else set()
SHARED = str(KERNELS / "gluon" / "shared_memory.py")

# Each variant with the kinds it shows: target findings (sm90's cp.async tiles), a Gluon kernel's
# warp partitions and shared buffers, a Gluon kernel's bank conflicts (read in a worker by Triton's
# layout code: what profile left out), an AMD compile (its target finding and bank conflicts).
VARIANTS = [
    ("sample:matmul", "sm90", {}, {findings.TMA, findings.CONVERSION, findings.OCCUPANCY}),
    (
        "sample:fused_attention_gluon",
        "sm90",
        {"kernel": "attention_gluon_kernel"},
        {findings.PARTITION, findings.SHARED_BUFFERS},
    ),
    (SHARED, "sm90", {"kernel": "column_reads", "constexprs": ("BLOCK=64",)}, {findings.BANK_CONFLICTS}),
    ("sample:matmul", "gfx950", {}, _GFX950_SHOWN),
]
ABSENT = {"gfx950": set() if _TRITON < (3, 9) else {findings.LDS_BYPASS}}  # kinds a variant must not show


def _variant_id(variant) -> str:
    """A test's name from its file, target and kernel: the same in every process (a set's order is not,
    and pytest-xdist's workers must collect the same names)."""
    file, target, flags, _ = variant
    return "-".join([file.split("/")[-1], target, *([flags["kernel"]] if "kernel" in flags else [])])


@pytest.mark.parametrize(("file", "target", "flags", "shown"), VARIANTS, ids=[_variant_id(v) for v in VARIANTS])
def test_explain_profile_and_check_report_the_same_findings(file, target, flags, shown):
    request = make_request(file, target, **flags)
    explained = explain(request, what_if=False)
    assert shown <= {f.kind for f in explained.findings}
    assert not ABSENT.get(target, set()) & {f.kind for f in explained.findings}
    for banks in (f for f in explained.findings if f.kind == findings.BANK_CONFLICTS):
        # a tl kernel's author cannot name a shared layout (h19a: Gluon's advice on mamba's kernel, mi300)
        gluon = "gluon" in file or file == SHARED
        assert ("a tl kernel cannot name one" in banks.suggestion) is not gluon
        assert ("NVMMASharedLayout" in banks.suggestion) is (gluon and target.startswith("sm"))
        assert len(set(banks.lines)) == len(banks.lines)
    _, on_profile, profile_notes = profile.explained(compiled(file, target, **flags), LINE_MAP)
    (checked,) = check([CheckEntry("entry", request)]).outcomes
    assert on_profile == checked.findings == explained.findings
    assert profile_notes == checked.notes == explained.notes
    # diff --space counts them, and a capture's summary compares their kinds and messages: the same set.
    assert space.measure(request)["findings"] == len(explained.findings)
    summarized = kernel_figures.of(compiled(file, target, **flags))["findings"]
    assert [(f.kind, f.message) for f in summarized] == [(f.kind, f.message) for f in explained.findings]


def test_a_stage_the_compile_lacks_is_a_note_naming_the_kinds_not_looked_for():
    c = compiled("sample:matmul", "sm90")
    whole = find(Kernel.of(c))
    without = dataclasses.replace(c, stages={s: t for s, t in c.stages.items() if s != Stage.TTGIR})
    found, notes = find(Kernel.of(without))
    (note,) = notes
    assert note.startswith("the compile has no TTGIR; not looked for: tma-candidate, wgmma-waited-at-issue")
    assert "narrow-global-access" in note and "occupancy" in note and "spills" not in note
    assert {f.kind for f in whole.findings} >= {findings.TMA, findings.OCCUPANCY} and not found


def test_machine_code_without_line_information_is_a_note_for_what_needs_the_cost_per_line():
    c = compiled("sample:vector_add", "sm90", args=("n_elements=4099",))
    assert {f.kind for f in find(Kernel.of(c)).findings} == {findings.NARROW}
    unplaced = dataclasses.replace(c, line_map={s: m for s, m in c.line_map.items() if s != Stage.SASS})
    found, notes = find(Kernel.of(unplaced))
    assert {f.kind for f in found} == {findings.REMARK}  # Triton's vectorization warning, which no finding explains now
    assert notes == (
        "the SASS has no line information, so no cost per line; not looked for: narrow-global-access, "
        "layout-conversion, atomic-fenced",
    )


def test_shared_accesses_not_read_are_a_note_and_no_bank_conflicts_are_claimed_absent():
    c = compiled(SHARED, "sm90", kernel="column_reads", constexprs=("BLOCK=64",))
    why = "this Triton has no Gluon layout readers"
    found, notes = find(Kernel.of(c, unread={Input.SHARED_ACCESSES: why}))
    assert notes == (f"shared-memory accesses: not read: {why}; not looked for: bank-conflicts",)
    assert findings.BANK_CONFLICTS not in {f.kind for f in found} and findings.NARROW in {f.kind for f in found}


def test_every_kind_is_found_by_one_detector_of_the_table():
    named = {v for k, v in vars(findings.kinds).items() if k.isupper()}
    found_by = [detector.kind for detector in DETECTORS]
    assert sorted(found_by) == sorted(named - {findings.REMARK})  # remarks.py gives out MLIR's remarks


def test_the_findings_modules_import_one_another_in_no_circle():
    """Every import counts, those inside functions and under TYPE_CHECKING too."""
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    graph = {name: _imported(PACKAGE / f"{name}.py", modules) for name in modules}
    assert "findings" not in {m for used in graph.values() for m in used}  # none imports the package itself
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join((*path, name))}"
        if name not in done:
            for used in graph[name]:
                visit(used, (*path, name))
            done.add(name)

    for name in sorted(modules):
        visit(name, ())
    assert graph["kinds"] == set() and graph["model"] == set() and "detectors" not in set().union(*graph.values())


def _imported(path: Path, modules: set[str]) -> set[str]:
    """The package's modules a module imports (`from .x import`, `from . import x`), anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            found.update(name if name in modules else "findings" for name in names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tritonscope.analysis.findings"):
            found.add("findings")
    return found


def test_a_conversion_no_store_follows_is_not_called_an_epilogue():
    """selective_state_update's B and C broadcasts were "once per tile (an epilogue before a store)" (h19a);
    the store's own conversion keeps that reason."""
    file = KERNELS / "two_layouts.py"
    lines = file.read_text().splitlines()
    broadcast, stored = (
        next(n for n, t in enumerate(lines, 1) if t.strip().startswith(s)) for s in ("xv =", "tl.store")
    )
    result = explain(make_request(str(file), "sm90"), what_if=False)
    advice = {f.line: f.suggestion for f in result.findings if f.kind == findings.CONVERSION}
    assert advice == {
        broadcast: "once per tile, outside any loop, this round trip is usually worth it",
        stored: "once per tile (an epilogue before a store) this round trip is usually worth it",
    }
