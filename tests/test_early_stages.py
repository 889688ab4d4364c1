"""A compile names its stages as Triton files them (triton_api/early_stages.py), so that the explorer
shows each while Triton makes the next: on every Triton release, as the stage dictionary and the
cache entry of each are Triton's own. The explorer's own use is tests/test_explorer.py's."""

from __future__ import annotations

from pathlib import Path

from conftest import make_request

from tritonscope.analysis.artifacts import stages_so_far
from tritonscope.app.walk.prepare import compile_stages
from tritonscope.core.stages import Stage


def test_a_compile_names_its_stages_as_triton_files_them_the_binary_s_last(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # cold: every stage made here
    told = []
    whole, artifacts = compile_stages(make_request("sample:vector_add", "sm90"), told.append)
    assert artifacts is not None  # the SASS still to be read
    named = [[ext for ext in ("ttir", "ttgir", "llir", "ptx") if ext in filed.files] for filed in told]
    assert named == [["ttir"], ["ttir", "ttgir"], ["ttir", "ttgir", "llir"], ["ttir", "ttgir", "llir", "ptx"]]
    assert [filed.whole for filed in told] == [False, False, False, True]  # the last as ptxas starts
    last = told[-1]
    texts = {ext: Path(path).read_text(encoding="utf-8") for ext, path in last.files.items()}
    so_far = stages_so_far(last, texts)
    assert list(so_far.stages) == [Stage.SOURCE, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX]
    for stage in so_far.stages:  # the compile's own texts and line maps
        assert so_far.stages[stage] == whole.stages[stage]
        assert so_far.line_map[stage] == whole.line_map[stage]
    assert so_far.kernel == whole.kernel and so_far.variant == whole.variant


def test_a_compile_found_in_triton_s_cache_names_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    request = make_request("sample:vector_add", "sm90")
    compile_stages(request)  # no one to tell
    told = []
    again, _ = compile_stages(request, told.append)
    assert told == [] and Stage.PTX in again.stages  # Triton's cache had it: no stage ran
