"""A sweep's cubins disassembled in one nvdisasm run (triton_api/cubins.py): each listing must be
exactly what nvdisasm prints for that cubin alone, labels, sections and symbols included."""

from __future__ import annotations

import re

import pytest
import triton
from conftest import compiled

from tritonscope.core.errors import TritonscopeError
from tritonscope.parsers import sass_listing
from tritonscope.triton_api import cubins
from tritonscope.triton_api.tools import (
    _nvidia_tool,
    _run_on_binary,
    disassemble,
    disassemble_code,
    disassemble_lines,
)


def _alone(binary: bytes) -> str:
    return _run_on_binary(_nvidia_tool("nvdisasm"), ["-c", "-ndf"], binary)


def test_merged_listing_splits_into_each_cubins_own():
    binaries = [
        compiled("sample:vector_add").binary,
        compiled("sample:matmul").binary,  # a loop: backward and forward branch labels
        compiled("sample:softmax", num_warps=8).binary,
        compiled("sample:matmul", num_warps=8, num_stages=4).binary,
    ]
    merged = _run_on_binary(_nvidia_tool("nvdisasm"), ["-c", "-ndf"], cubins.merge(binaries))
    assert merged.count(".text.matmul_kernel__tritonscope") >= 2  # one file, every kernel in it
    listings = cubins.split(merged, binaries)
    for binary, listing in zip(binaries, listings, strict=True):
        assert listing == _alone(binary)
    assert "BRA `(.L_x_0)" in listings[1] and "HGMMA" in listings[1]


def _alone_with_lines(binary: bytes) -> str:
    return _run_on_binary(_nvidia_tool("nvdisasm"), ["-c", "-gi", "-gp", "-ndf"], binary)


@pytest.mark.parametrize("target", ["sm80", "sm90", "sm100"])
def test_merged_listing_with_line_tables_splits_into_each_cubins_own(target):
    """`fit --rank` reads its cells' SASS with line information, one nvdisasm run per architecture:
    each cubin's line tables go into the merged file, their relocations pointed at its symbols. Each
    listing, with its `//##` lines, is what nvdisasm -gi -gp prints for that cubin alone; so is the
    plain one. sm100's matmul holds the tcgen05 guardrail traps ptxas places after the kernel, in its
    section; `.text.attention_tma_kernel` is a name of 26 characters (the header's column)."""
    binaries = [
        compiled("sample:matmul", target).binary,
        compiled("sample:vector_add", target).binary,
        compiled("sample:matmul", target, num_warps=8, num_stages=4).binary,
        compiled("sample:fused_attention_tma", target).binary,
    ]
    groups: dict[int, list[bytes]] = {}  # one nvdisasm run reads one architecture (the header's flags)
    for binary in binaries:
        groups.setdefault(cubins.architecture(binary), []).append(binary)
    assert max(len(group) for group in groups.values()) > 1
    modes = ((["-c", "-gi", "-gp", "-ndf"], True, _alone_with_lines), (["-c", "-ndf"], False, _alone))
    for group in groups.values():
        for flags, lines, alone in modes:
            merged = _run_on_binary(_nvidia_tool("nvdisasm"), flags, cubins.merge(group, lines=lines))
            listings = cubins.split(merged, group)
            for binary, listing in zip(group, listings, strict=True):
                assert listing == alone(binary)
                assert (listing.count('//## File "') > 5) == lines  # the line information came through
    helpers = cubins._code_sections(binaries[0])[0].helpers
    if target == "sm100" and triton.__version__.startswith("3.6"):  # Triton 3.6's sm100 matmul has them
        assert helpers and all("guardrail" in h[1] for h in helpers)


def test_a_cubin_whose_data_holds_code_addresses_is_read_alone():
    """Gluon's warp-specialized attention branches through a jump table (BRX, `.nv.constant2`): its
    labels come from data `merge` does not carry, so it is read on its own, and still gets its own listing."""
    gluon = compiled("sample:fused_attention_gluon", "sm90").binary
    plain = compiled("sample:vector_add", "sm90").binary
    assert not cubins.mergeable(gluon) and cubins.mergeable(plain)
    assert "BRX" in _alone(gluon)
    assert disassemble_code([gluon, plain]) == [_alone(gluon), _alone(plain)]


def test_disassemble_lines_keeps_what_disassemble_reads():
    """What `disassemble_lines` reads for many cubins is each one's `disassemble`, kept where
    `disassemble` finds it."""
    binaries = [compiled("sample:softmax", "sm86").binary, compiled("sample:matmul", "sm86").binary]
    read = disassemble_lines(binaries)
    assert read == [_alone_with_lines(b) for b in binaries]
    assert [disassemble(b) for b in binaries] == read


@pytest.mark.parametrize("target", ["sm90", "sm100", "sm120"])
def test_an_estimates_read_merges_ptxas13_cubins_too_and_keeps_what_it_can_vouch_for(target, tmp_path, monkeypatch):
    """`fit --rank` reads a target's cells in one nvdisasm run, sm100's and sm120's (ptxas 13's layout)
    too: each listing's instructions, operands, labels and line numbers are the cubin's own. A listing
    is kept for `dump` where it is exactly the cubin's own: not where nvdisasm 13 printed control
    fields, whose column a merge of different kernels may move (sm120)."""
    binaries = [compiled(f"sample:{name}", target).binary for name in ("matmul", "vector_add", "softmax")]
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # not the knob: setting it would outlive the test
    read = disassemble_lines(binaries, exact=False)
    fields = [bool(sass_listing.CONTROL_FIELDS.search(listing)) for listing in read]
    if triton.__version__.startswith("3.6"):  # its nvdisasm prints them for sm120 (3.9's does not)
        assert any(fields) == (target == "sm120")
    for binary, listing, field in zip(binaries, read, fields, strict=True):
        alone = _alone_with_lines(binary)
        assert sass_listing.parse(listing) == sass_listing.parse(alone)
        assert "//## File" in listing
        if not field:
            assert listing == alone
    kept = list((tmp_path / "tritonscope").glob("*.sass"))
    assert len(kept) == fields.count(False)


def test_disassemble_code_groups_by_architecture_and_remembers():
    binaries = [compiled("sample:vector_add").binary, compiled("sample:vector_add", target="sm80").binary]
    assert cubins.architecture(binaries[0]) != cubins.architecture(binaries[1])
    first = disassemble_code(binaries)
    assert first == [_alone(b) for b in binaries]
    # Each architecture's own header (CUDA 12 says EF_CUDA_SM90, CUDA 13 `.target sm_90a`).
    assert re.search(r"sm_?80", first[1], re.I) and re.search(r"sm_?90", first[0], re.I)
    assert disassemble_code(binaries) == first  # read back from the memo


def test_a_sweeps_finish_gives_what_a_whole_compile_gives():
    """finish() builds the line maps while nvdisasm runs; the Compilation must be the same as one
    built in one go from the same artifacts and their SASS."""
    from dataclasses import replace

    from tritonscope.analysis.artifacts import to_compilation
    from tritonscope.app.walk.prepare import compile_undisassembled, finish
    from tritonscope.core.model import VariantRequest
    from tritonscope.core.stages import Stage

    undone = compile_undisassembled(VariantRequest(file="sample:matmul", target="sm90"))
    [finished] = finish([undone])
    sass = disassemble_code([undone.artifacts.binary])[0]
    artifacts = replace(undone.artifacts, texts={**undone.artifacts.texts, "sass": sass})
    whole = to_compilation(undone.spec, undone.variant, artifacts, undone.target)
    assert finished.stages[Stage.SASS] == sass and "HGMMA" in sass
    assert finished.line_map == whole.line_map
    assert finished.resources == whole.resources and finished.resources.instructions
    dot_line = next(
        n for n, code in enumerate(undone.spec.source.splitlines(), undone.spec.first_line) if "tl.dot" in code
    )
    assert any((undone.spec.file, dot_line) in sources for sources in finished.line_map[Stage.TTGIR].values())


def test_line_maps_a_worker_built_give_what_finish_builds():
    """At -j 2 a sweep's workers build their compiles' line maps (compile_mapped); finish() then takes
    them as they are, and the Compilation is the one it would have built itself."""
    from tritonscope.app.walk.prepare import compile_mapped, compile_undisassembled, finish
    from tritonscope.core.model import VariantRequest
    from tritonscope.core.stages import Stage

    request = VariantRequest(file="sample:softmax", target="sm80")
    mapped, plain = compile_mapped(request), compile_undisassembled(request)
    assert plain.line_map is None and mapped.line_map and Stage.SASS not in mapped.line_map
    assert {Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX} <= set(mapped.line_map)
    [from_worker], [from_finish] = finish([mapped]), finish([plain])
    assert from_worker.line_map == from_finish.line_map and Stage.SASS in from_worker.line_map


def test_a_sweeps_finish_gives_each_variant_its_own_listing_read_ahead_or_after():
    """At -j 2 a sweep reads the SASS of the compiles in so far while its last ones run (SassAhead);
    finish() reads the rest, and each variant gets its own cubin's listing, whichever run read it."""
    from conftest import make_request

    from tritonscope.app.walk.prepare import SassAhead, compile_undisassembled, finish
    from tritonscope.core.stages import Stage

    blocks = (128, 256, 1024)
    undone = [
        compile_undisassembled(make_request("sample:vector_add", constexprs=(f"BLOCK_SIZE={b}",))) for b in blocks
    ]
    ahead = SassAhead(undone[:2])
    assert ahead.binaries == [u.artifacts.binary for u in undone[:2]]
    listings = [c.stages[Stage.SASS] for c in finish(undone, ahead)]
    assert listings == [_alone(u.artifacts.binary) for u in undone] and len(set(listings)) == len(blocks)


def test_a_damaged_binary_is_said_so_not_by_the_name_of_a_copy_gone_since():
    """cuobjdump reads a copy in a temporary folder: its words name that copy, which is gone by the time
    they are read; they name the binary, and the hint what to do."""
    binary = compiled("sample:vector_add", "sm90").binary[:100]  # a capture's cubin cut short
    try:
        _run_on_binary(_nvidia_tool("cuobjdump"), ["--dump-resource-usage"], binary)
    except TritonscopeError as exc:
        assert exc.message.startswith("cuobjdump failed (exit ") and "kernel.cubin" not in exc.message
        assert "the binary" in exc.message and exc.hint.startswith("the binary is damaged or cut short (100 bytes)")
    else:
        raise AssertionError("cuobjdump read a cubin cut to 100 bytes")
