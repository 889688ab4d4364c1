"""Reading Triton caches and `trace` captures: entries made by real compiles, on the CPU."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from conftest import KERNELS

from tritonscope.analysis import linemap
from tritonscope.app.walk.prepare import compile_request
from tritonscope.core.model import VariantRequest
from tritonscope.core.stages import Stage


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from typer.testing import CliRunner

    from tritonscope.cli import app

    out = tmp_path_factory.mktemp("trace") / "run1"
    result = CliRunner().invoke(app, ["trace", "-o", str(out), "--", sys.executable, str(KERNELS / "compiles_two.py")])
    assert result.exit_code == 0, result.stderr
    assert "captured 2 compiled kernels" in result.stderr
    return out


def test_a_program_that_compiles_nothing_is_said_so(cli, tmp_path):
    said = cli("trace", "-o", tmp_path / "none", "--", sys.executable, "-c", "print(1)").stderr
    assert f"captured 0 compiled kernels into {tmp_path / 'none'} (the program compiled none)" in said


def test_a_program_that_fails_before_compiling_leaves_no_capture(cli, tmp_path):
    """A CUDA program with no GPU (trace without --target) fails at its first tensor: the empty
    capture it left made the next run, with --target, need --force."""
    out = tmp_path / "run1"
    failed = cli("trace", "-o", out, "--", sys.executable, "-c", "raise SystemExit(3)", expect=3)
    assert "the program exited with 3 before it compiled a kernel: nothing was written" in failed.stderr
    assert not out.exists()
    cli("trace", "-o", out, "--", sys.executable, "-c", "print(1)")  # a capture of nothing: written
    cli("trace", "-o", out, "--force", "--", sys.executable, "-c", "raise SystemExit(3)", expect=3)
    assert (out / "kernels.jsonl").exists()  # the earlier capture is left as it was


def test_trace_captures_every_compile_with_its_specialization(capture):
    records = [json.loads(line) for line in (capture / "kernels.jsonl").read_text().splitlines()]
    assert [r["name"] for r in records] == ["add_kernel", "softmax_kernel"]
    add = records[0]
    assert add["signature"]["x_ptr"] == "*fp16" and add["constants"] == {"(4,)": "256"}
    assert add["file"].endswith("vector_add.py") and "def add_kernel(" in add["source"]


def test_cache_list_of_a_capture(cli, capture):
    doc = json.loads(cli("cache", "list", capture, "--json").stdout)
    assert doc["kind"] == "cache list"
    rows = doc["kernels"]
    assert {(r["name"], r["target"]) for r in rows} == {("add_kernel", "sm80"), ("softmax_kernel", "sm90")}
    assert all(r["captured"] and "cubin" in r["stages"] and r["bytes"] > 0 for r in rows)
    table = cli("cache", "list", capture).stdout
    assert "softmax_kernel" in table and "ttir ttgir llir ptx cubin" in table
    assert f"  tritonscope dump {capture}/:softmax_kernel" in table  # the first listed


def test_cache_lists_commands_are_quoted_for_a_folder_with_a_space(cli, capture, tmp_path):
    spaced = tmp_path / "run ü"
    shutil.copytree(capture, spaced)
    table = cli("cache", "list", spaced).stdout.splitlines()
    command = table[table.index("show one with:") + 1].strip()
    assert shlex.split(command) == ["tritonscope", "dump", f"{spaced}/:softmax_kernel"]  # pasted: one argument
    from tritonscope.render.terminal.cache import _pasted

    assert _pasted("-dashed/:k") == "./-dashed/:k"  # read back as a path, not as flags


def test_dump_a_captured_kernel_without_recompiling(cli, capture):
    doc = json.loads(cli("dump", f"{capture}/:add_kernel", "--json").stdout)
    assert doc["variant"]["cached"] and doc["variant"]["target"] == "sm80"
    assert doc["variant"]["constexprs"] == {"BLOCK_SIZE": 256} and doc["variant"]["hints"] == {"n_elements": "D"}
    assert (
        doc["variant"]["signature"]["x_ptr"] == "*fp16" and doc["command"] == f"tritonscope dump {capture}/:add_kernel"
    )
    assert set(doc["stages"]) == {"source", "ttir", "ttgir", "llir", "ptx", "sass"}
    assert doc["resources"]["registers"] > 0 and "not recompiled" in " ".join(doc["notices"])
    lines = {e["line"] for e in doc["line_map"] if e["file"].endswith("vector_add.py")}
    assert 21 in lines  # x = tl.load(...)
    out = cli("compare", f"{capture}/:softmax_kernel", "--stages", "source,sass").stdout
    assert "line 22: row = tl.load(" in out and "LDG" in out


def test_a_plain_triton_cache_finds_the_source_through_locations(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    compiled = compile_request(VariantRequest(file="sample:vector_add", target="gfx942"))
    rows = json.loads(cli("cache", "list", "--json").stdout)["kernels"]  # the default: TRITON_CACHE_DIR
    assert [r["name"] for r in rows] == ["add_kernel"] and not rows[0]["captured"]
    doc = json.loads(cli("dump", f"{tmp_path}/:add_kernel", "--json").stdout)
    assert doc["kernel"]["file"] == compiled.kernel.file and doc["kernel"]["first_line"] == compiled.kernel.first_line
    assert doc["stages"]["amdgcn"] == compiled.stages[Stage.AMDGCN]
    assert doc["stages"]["ttgir"] == compiled.stages[Stage.TTGIR]
    assert {(e["file"], e["line"]) for e in doc["line_map"]} == set(linemap.python_lines(compiled))
    cli("report", f"{tmp_path}/:add_kernel", "-o", tmp_path / "r.html")
    assert "add_kernel" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dump", "{capture}/:nope"], "no kernel named 'nope' in"),
        (["dump", "{capture}/:add_kernel", "-c", "BLOCK_SIZE=8"], "is already compiled"),
        (["cache", "list", "{capture}/missing"], "no such directory"),
        (["trace", "-o", "{capture}", "--", "true"], "directory is not empty"),
    ],
)
def test_bad_cache_requests(cli, capture, args, message):
    result = cli(*[a.format(capture=capture) for a in args], expect=2)
    assert message in result.stderr


def test_trace_passes_on_the_programs_exit_code(cli, tmp_path):
    result = cli("trace", "-o", tmp_path / "run", "--", sys.executable, KERNELS / "compiles_two.py", "3", expect=3)
    assert "captured 2 compiled kernels" in result.stderr
    assert "cannot run" in cli("trace", "-o", tmp_path / "other", "--", "no-such-program-x", expect=2).stderr


def test_a_python_file_given_as_the_command_is_said_to_need_its_interpreter(cli, tmp_path, monkeypatch):
    """`trace -o d -- prog.py` with prog.py right there said "No such file or directory"."""
    (tmp_path / "prog.py").write_text("print(1)\n")
    monkeypatch.chdir(tmp_path)
    result = cli("trace", "-o", tmp_path / "run", "--", "prog.py", "3", expect=2)
    assert "cannot run prog.py: the file is not executable" in result.stderr
    assert "-- python prog.py 3" in result.stderr
    (tmp_path / "prog.py").chmod(0o755)
    result = cli("trace", "-o", tmp_path / "run", "--", "prog.py", expect=2)
    assert "no command on PATH" in result.stderr and "-- ./prog.py" in result.stderr


def test_diff_and_passes_start_from_the_captured_specialization(cli, capture):
    doc = json.loads(cli("diff", f"{capture}/:add_kernel", "--vary", "BLOCK_SIZE=256,512", "--json").stdout)
    first = doc["variants"][0]["variant"]
    assert first["target"] == "sm80" and first["file"].endswith("vector_add.py")
    assert first["signature"]["x_ptr"] == "*fp16" and first["constexprs"] == {"BLOCK_SIZE": 256}
    passes = json.loads(cli("passes", f"{capture}/:softmax_kernel", "--json").stdout)
    assert passes["variant"]["target"] == "sm90" and passes["variant"]["constexprs"] == {"BLOCK_SIZE": 1024}


def test_trace_json_names_the_capture_and_keeps_stdout_for_it(tmp_path):
    from cli_process import tritonscope

    program = f"print('hello from the program'); import runpy; runpy.run_path({str(KERNELS / 'compiles_two.py')!r})"
    proc = tritonscope("trace", "-o", tmp_path / "run", "--json", "--", sys.executable, "-c", program)
    document = json.loads(proc.stdout)  # the program's own output is not mixed into it
    assert document["kind"] == "trace" and document["returncode"] == 0
    assert document["kernels"] == ["add_kernel", "softmax_kernel"]
    assert document["out"] == str(tmp_path / "run")
    assert "hello from the program" in proc.stderr


def test_a_warp_specialized_compile_is_rebuilt_as_it_was_launched(tmp_path, monkeypatch):
    """Gluon's warp_specialize counts its worker partitions in the metadata's num_warps (4 launched,
    8 there): a rebuild from the cache (diff, passes, --from-run) takes the launch's from the TTGIR,
    and its maxnreg, or Triton refuses the layouts written for 4 warps (the tutorials' Gluon 08)."""
    from conftest import make_request

    from tritonscope.captures.rebuild import source_request
    from tritonscope.core.source import CachedKernel

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    flags = {"kernel": "pipelined_scale", "constexprs": ("STAGES=2", "BLOCK=64"), "maxnreg": 128}
    args = ("in_desc=tensordesc<fp32[64, 64]>", "out_ptr=*fp32", "factor=2.0", "tiles=16")
    compiled = compile_request(make_request(str(KERNELS / "gluon" / "warp_specialized.py"), args=args, **flags))
    assert compiled.metadata["num_warps"] == 8
    again = source_request(CachedKernel(f"{tmp_path}/:pipelined_scale", f"{tmp_path}/", "pipelined_scale"))
    assert (again.num_warps, again.maxnreg) == (4, 128)


def test_a_tuple_constexpr_reads_back_as_the_tuple_it_was():
    """A constexpr tuple (Gluon 06's `tmem_block`) is recorded as its text; it parses back to the
    tuple, and a flag gives it as one: `-c tmem_block=(64, 128)`."""
    from tritonscope.core.values import format_value, parse

    assert parse("(64, 128)") == (64, 128) and parse("(1,)") == (1,) and parse("(64)") == "(64)"
    assert parse("(fp16, (1, 2), true)") == (parse("fp16"), (1, 2), True)
    assert all(parse(format_value(v)) == v for v in [(64, 128), (1,), (), ((1, 2), "x")])


def test_a_source_file_recorded_in_the_staging_folder_is_compiled_from_the_capture(cli, tmp_path):
    """`trace -o cap` writes into `.cap.new.PID.XXXX` and renames it cap: torch.compile's kernels,
    written under cap/inductor, were recorded at their staging path, gone since, so `fit cap/` and
    `diff cap/:NAME --vary` could not compile them again. A capture made so is compiled from cap."""
    from tritonscope.captures.entries import entries
    from tritonscope.captures.rebuild import entry_request

    capture = tmp_path / "cap"
    pytest.importorskip("torch")
    cli("trace", "--target", "sm90", "-o", capture, "--", sys.executable, "-c", _TRACED_FROM_INDUCTOR_LIKE_FOLDER)
    (entry,) = [e for e in entries(capture) if e.name == "double_kernel"]
    staged = str(entry.specialization["file"])
    assert "/.cap.new." in staged and not Path(staged).exists()  # as the program saw it, while written
    request = entry_request(entry, f"{capture}/:double_kernel")
    assert request.file == str(capture.resolve() / "made" / "kernel.py") and Path(request.file).is_file()
    copied = tmp_path / "after"  # a copy under another name: its own files, not the first's (h22b)
    shutil.copytree(capture, copied)
    shutil.rmtree(capture)
    (moved,) = [e for e in entries(copied) if e.name == "double_kernel"]
    assert entry_request(moved, f"{copied}/:double_kernel").file == str(copied.resolve() / "made" / "kernel.py")
    capture = copied
    # one compile of several by its hash, as check and dump's `reproduce` name it: NAME@HASH8
    digest = entry.metadata["hash"][:8]
    shown = cli("dump", f"{capture}/:double_kernel@{digest}", "--stage", "ttir").stdout
    assert f"dump {capture}/:double_kernel@{digest}" in " ".join(shown.split())
    wrong = cli("dump", f"{capture}/:double_kernel@ffffffff", expect=2).stderr
    assert f"has a hash starting ffffffff: {digest}" in wrong


# A program that writes its kernel's file into the capture while it is traced (torch.compile writes
# its kernels under the capture's inductor/ folder, TORCHINDUCTOR_CACHE_DIR), then launches it.
_TRACED_FROM_INDUCTOR_LIKE_FOLDER = """
import importlib.util, os, pathlib
import torch
made = pathlib.Path(os.environ["TORCHINDUCTOR_CACHE_DIR"]).parent / "made"
made.mkdir()
(made / "kernel.py").write_text('''import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
''')
spec = importlib.util.spec_from_file_location("made_kernel", made / "kernel.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = torch.ones(1024, device="cuda")
y = torch.empty_like(x)
module.double_kernel[(4,)](x, y, 1024, BLOCK=256)
"""


_TWO_OF_ONE_NAME = """
import torch
from tritonscope.core.samples import samples_dir
import importlib.util
spec = importlib.util.spec_from_file_location("vector_add", samples_dir() / "vector_add.py")
va = importlib.util.module_from_spec(spec)
spec.loader.exec_module(va)
for n in (4096, 4099):  # divisible by 16, then not: two compiles of add_kernel
    x = torch.rand(n, device="cuda")
    va.launch(x, x)
"""


def test_a_name_compiled_twice_is_listed_with_the_hash_that_picks_each(cli, tmp_path):
    """`list DIR/` printed `add_kernel` twice, and no way to pick either but the hash it did not show."""
    pytest.importorskip("torch")
    capture = tmp_path / "run"
    cli("trace", "--target", "sm90", "-o", capture, "--", sys.executable, "-c", _TWO_OF_ONE_NAME)
    doc = json.loads(cli("cache", "list", capture, "--json").stdout)
    picks = [r["reference"].rpartition("@")[2] for r in doc["kernels"] if r["name"] == "add_kernel"]
    digests = [d for d in picks if len(d) == 8]
    assert len(set(digests)) == 2, doc["kernels"]
    table = cli("list", f"{capture}/").stdout
    for digest in digests:
        assert f"add_kernel@{digest}" in table, table
        cli("dump", f"{capture}/:add_kernel@{digest}", "--stage", "ttir")  # each picked by what the list shows
    assert f"tritonscope dump {capture}/:add_kernel@" in " ".join(table.split())
