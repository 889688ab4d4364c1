"""Every output through one way: render/registry.py draws any result in any format (for every
front end, not only the command line), and the command wrapper writes the files a command names."""

from __future__ import annotations

import dataclasses
import json
import pkgutil
from pathlib import Path

import pytest
from conftest import KERNELS, compiled

import tritonscope.results
from tritonscope.cli.output import File, Folder, Output, write
from tritonscope.core.errors import UsageError
from tritonscope.core.status import ExitStatus
from tritonscope.render.registry import RENDERERS, part, render, renderer_class
from tritonscope.results.base import Result
from tritonscope.results.diff import DiffResult, VariantOutcome
from tritonscope.results.dump import DumpResult

BAD = KERNELS / "bad.py"


@pytest.fixture(scope="module")
def dumped() -> DumpResult:
    c = compiled("sample:vector_add", "sm90")
    return DumpResult(c, tuple(c.stages))


def test_the_registry_draws_a_result_in_every_format_without_the_cli(dumped):
    document = render(dumped, "json")
    assert json.loads(document)["kind"] == "dump" and json.loads(document)["kernel"]["name"] == "add_kernel"
    text = render(dumped, "terminal", width=80)
    assert "add_kernel" in text and "registers" in text and "\x1b[" not in text
    assert "\x1b[" in render(dumped, "terminal", color=True)
    page = render(dumped, "html", keep_loc=True)
    assert page.startswith("<!DOCTYPE html>") and "add_kernel" in page and "loc(" in page
    files = render(dumped, "files")
    assert files["report.json"].decode() == document and files["add_kernel.cubin"].startswith(b"\x7fELF")
    with pytest.raises(TypeError, match="no junit renderer for DumpResult: add it to render/registry.py"):
        render(dumped, "junit")


def test_json_and_html_find_each_result_through_the_registry_alone():
    """A renderer of several result types has no table of its own: each row names its part."""
    shared = {(kind, fmt) for (kind, fmt) in RENDERERS if fmt in ("json", "html")}
    assert len(shared) >= 25
    for kind, fmt in shared:
        assert callable(getattr(renderer_class(kind, fmt), part(kind, fmt))), (kind, fmt)
    for module in ("json", "html"):
        source = (Path(tritonscope.__file__).parent / "render" / f"{module}.py").read_text()
        assert "_BODIES" not in source and "isinstance(result" not in source


def test_every_result_derives_from_result_and_succeeds_unless_it_can_fail():
    for module in pkgutil.iter_modules(tritonscope.results.__path__):
        namespace = vars(__import__(f"tritonscope.results.{module.name}", fromlist=["_"]))
        for value in namespace.values():
            if dataclasses.is_dataclass(value) and hasattr(value, "kind"):
                assert issubclass(value, Result), value
    with pytest.raises(TypeError, match="names no `kind`"):
        type("Nameless", (Result,), {})
    assert DumpResult(compiled("sample:vector_add", "sm90"), ()).exit_status == ExitStatus.SUCCESS
    failed = DiffResult((VariantOutcome({"BLOCK": "3"}, None, None, "does not compile"),), ())
    assert failed.exit_status == ExitStatus.FAILED


def test_the_wrapper_writes_every_named_file_whole(dumped, tmp_path):
    saved, folder = tmp_path / "saved.json", tmp_path / "out"
    other = DumpResult(dumped.compilation, (next(iter(dumped.compilation.stages)),))  # a part of it
    write(Output(dumped, files=(File(saved, "json", "-o", result=other), Folder(folder, force=False))))
    assert saved.read_text() == render(other, "json")
    assert (folder / "report.json").read_text() == render(dumped, "json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "saved.json"]  # no staging left
    with pytest.raises(TypeError, match="draws a folder's files"):
        write(Output(dumped, files=(File(tmp_path / "x", "files", "-o"),)))
    assert not (tmp_path / "x").exists()


def test_a_folder_is_checked_without_leaving_anything(tmp_path):
    Folder(tmp_path / "out", force=False).checked()
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the user's")
    with pytest.raises(UsageError, match="did not write this folder"):
        Folder(tmp_path / "mine", force=True).checked()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_an_output_folder_is_refused_before_the_compile(cli, tmp_path):
    """A kernel that does not compile (exit 1) is never compiled: the folder is refused first (exit 2)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("the user's")
    refused = cli("dump", BAD, "-k", "arange_not_power_of_two", "-t", "sm90", "-o", out, expect=2)
    assert "directory is not empty" in refused.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_plot_is_refused_before_the_gpu_is_asked_for(cli, tmp_path):
    refused = cli("bench", "sample:vector_add", "--plot", tmp_path / "add.pdf", expect=2)
    assert "--plot" in refused.stderr and "give a .svg or .png file name" in refused.stderr
    assert list(tmp_path.iterdir()) == []


def test_check_writes_its_baseline_and_junit_report_before_its_view(cli, tmp_path):
    base, junit = tmp_path / "base.json", tmp_path / "check.xml"
    flags = ["-t", "sm90", "-a", "n_elements=4096", "--budget", "registers<=8", "--baseline", base]
    result = cli("check", "sample:vector_add", *flags, "--update-baseline", "--junit", junit, "--json", expect=1)
    assert json.loads(result.stdout)["exit_code"] == 1  # the view still comes, and the status
    assert f"wrote {base}" in result.stderr and f"wrote {junit}" in result.stderr
    dumped = json.loads(cli("dump", "sample:vector_add", "-t", "sm90", "-a", "n_elements=4096", "--json").stdout)
    saved = json.loads(base.read_text())
    assert saved["kind"] == "dump" and saved["resources"] == dumped["resources"]
    assert 'failures="1"' in junit.read_text()


def test_bench_plot_goes_through_the_wrapper_in_the_format_its_name_says(tmp_path, capsys):
    from tritonscope.results.bench import BenchResult, Measurement, Peak

    m = Measurement(4096, {"BLOCK_SIZE": "256"}, 0.0, True, ms=0.01, torch_ms=0.02, bytes=12 * 4096)
    bench = BenchResult("sample_kernels/vector_add.py", Peak(3000.0, 800.0), (m,))
    svg, png = tmp_path / "add.svg", tmp_path / "add.png"
    for path in (svg, png):
        drawn = File(path, "plot", "--plot", options={"path": path}, said="plot written to {path}").checked(BenchResult)
        write(Output(bench, files=(drawn,)))
    assert svg.read_text().startswith("<?xml") and "<svg" in svg.read_text() and "GB/s" in svg.read_text()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {svg}" in capsys.readouterr().err
    with pytest.raises(UsageError, match=r"--plot .*add\.pdf: give a \.svg or \.png file name"):
        File(tmp_path / "add.pdf", "plot", "--plot", options={"path": tmp_path / "add.pdf"}).checked(BenchResult)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["add.png", "add.svg"]
