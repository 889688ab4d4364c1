"""The command line end to end: output content, files, and a clear error for every bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KERNELS

BAD = KERNELS / "bad.py"


def test_dump_shows_header_resources_and_every_stage(cli):
    out = cli("dump", "sample:vector_add", "--target", "sm90", "--no-pager").stdout
    assert "add_kernel" in out and "sm_90" in out and "BLOCK_SIZE=1024" in out
    assert "n_elements: i32 (divisible by 16)" in out
    for title in ("Python source", "TTIR", "TTGIR", "LLVM IR", "PTX", "SASS"):
        assert title in out
    assert "registers" in out and "limited by warps" in out and "100%" in out
    assert "tritonscope dump sample:vector_add -k add_kernel --target sm90" in out  # reproducing command


def test_dump_header_names_what_overrides_the_autotune_config(cli):
    # -c and -s beside a config compile other values than the config's: the header said `config 0 of N` alone
    out = cli("dump", "sample:matmul_autotune", "-t", "sm80", "--config", "0", "--stage", "ttir", "--no-pager").stdout
    assert re.search(r"autotune +config 0 of \d+ *│", out)
    out = cli(
        "dump",
        "sample:matmul_autotune",
        "-t",
        "sm80",
        "--config",
        "0",
        "-c",
        "BLOCK_SIZE_K=16",
        "-s",
        "2",
        "--stage",
        "ttir",
        "--no-pager",
    ).stdout
    said = re.sub(r"\s*│\s*", " ", out.split("autotune", 1)[1].split("constexprs")[0])
    assert "but BLOCK_SIZE_K=16 (the config's" in said and "num_stages=2 (the config's" in said


def test_dump_chosen_stages_side_by_side(cli):
    out = cli("dump", "sample:softmax", "--target", "sm80", "--stage", "ttgir,ptx", "--side-by-side").stdout
    assert "TTGIR (Triton GPU IR)" in out and "PTX" in out and "/*0000*/" not in out  # no SASS listing
    assert "#blocked" in out and ".reg" in out


def test_dump_side_by_side_at_80_columns_shows_the_sass_instructions():
    """Each SASS row of a 38-column half was its address and nvdisasm's padding, cut before the
    instruction (h24a): the padding is cut as the whole view cuts it."""
    from cli_process import tritonscope

    out = tritonscope(
        "dump",
        "sample:vector_add",
        "-t",
        "sm90",
        "--stage",
        "ttgir,sass",
        "--side-by-side",
        "--line",
        "21",
        env={"COLUMNS": "80"},
    ).stdout
    rows = [line.split(" │ ", 1)[1] for line in out.splitlines() if " │ " in line and "/*0" in line]
    assert rows and all(re.search(r"/\*0[0-9a-f]+\*/ +[@A-Z]", row) for row in rows), rows
    assert any("LDG" in row for row in rows), rows


def test_dump_line_on_a_comment_shows_the_comment_and_says_it_made_no_code(cli):
    """`--line 19` on the sample's comment: the source said "0 of 17 lines" and "no line of Python source
    comes from Python line 19", as if the line were not its own (h24a)."""
    out = cli("dump", "sample:vector_add", "-t", "sm90", "--line", "19", "--stage", "source,ttir").stdout
    assert "── Python source  (1 of " in out and "# The last program may run past the end" in out
    assert "Python line 19 made no code: no other stage has a line from it" in out
    assert "no line of Python source comes from" not in out and "no line of TTIR (Triton IR) comes from" in out
    code = cli("dump", "sample:vector_add", "-t", "sm90", "--line", "20", "--stage", "source,ttir").stdout
    assert "made no code" not in code and "mask = offsets < n_elements" in code


def test_dump_json_document(cli):
    doc = json.loads(cli("dump", "sample:matmul", "-t", "gfx942", "--json").stdout)
    assert doc["schema"] == 2 and doc["kind"] == "dump" and doc["tool"]["name"] == "tritonscope"
    assert doc["triton_version"]
    assert set(doc["stages"]) == {"source", "ttir", "ttgir", "llir", "amdgcn"}
    assert doc["variant"]["target"] == "gfx942" and doc["variant"]["signature"]["a_ptr"] == "*fp16"
    assert doc["resources"]["registers"] > 0 and doc["resources"]["occupancy"]["limited_by"]
    assert doc["kernel"]["name"] == "matmul_kernel" and doc["command"].startswith("tritonscope dump")
    assert doc["binary"]["format"] == "hsaco" and doc["binary"]["bytes"] > 0


def test_dump_json_holds_only_the_stages_asked_for(cli):
    doc = json.loads(cli("dump", "sample:vector_add", "-t", "sm90", "--stage", "ttgir", "--json").stdout)
    assert set(doc["stages"]) == {"ttgir"} and "tt.load" in doc["stages"]["ttgir"]
    assert doc["line_map"] and all(set(entry["stages"]) == {"ttgir"} for entry in doc["line_map"])


def test_every_result_type_has_a_json_document_and_a_kind():
    import dataclasses
    import pkgutil

    import tritonscope.results
    from tritonscope.render.json import JsonRenderer
    from tritonscope.render.registry import RENDERERS, part, renderer_class

    found = set()
    for module in pkgutil.iter_modules(tritonscope.results.__path__):
        namespace = vars(__import__(f"tritonscope.results.{module.name}", fromlist=["_"]))
        found |= {v for v in namespace.values() if dataclasses.is_dataclass(v) and hasattr(v, "exit_status")}
    assert len(found) >= 17
    from tritonscope.results.explain import ReportResult
    from tritonscope.results.trace import ReproduceResult

    for kind in found - {ReproduceResult, ReportResult}:  # a script and a page: no JSON document
        assert (kind, "json") in RENDERERS and isinstance(kind.kind, str), kind
        family = renderer_class(kind, "json")  # its family's renderer, with the part that draws it
        assert issubclass(family, JsonRenderer) and callable(getattr(family, part(kind, "json"))), kind
    assert renderer_class(ReportResult, "html").__name__ == "HtmlReport"
    with pytest.raises(TypeError, match="registry"):
        renderer_class(int, "json")


def test_python_dash_m_runs_the_same_cli():
    result = subprocess.run(
        [sys.executable, "-m", "tritonscope", "dump", "sample:double", "-t", "sm90", "--json"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kernel"]["name"] == "double_kernel"


def test_out_dir_gets_every_file(cli, tmp_path):
    out = tmp_path / "out"
    cli("dump", "sample:vector_add", "-t", "sm90", "-o", out)
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        ".tritonscope-output",  # the marker that lets a later --force replace this folder
        "add_kernel.cubin",
        "add_kernel.ll",
        "add_kernel.ptx",
        "add_kernel.sass",
        "add_kernel.source.py",
        "add_kernel.ttgir",
        "add_kernel.ttir",
        "report.json",
    ]
    assert (out / "add_kernel.cubin").read_bytes().startswith(b"\x7fELF")
    assert json.loads((out / "report.json").read_text())["stages"]["ptx"] == (out / "add_kernel.ptx").read_text()
    # Not empty now: refused without --force, replaced with it.
    result = cli("dump", "sample:vector_add", "-t", "gfx942", "-o", out, expect=2)
    assert "not empty" in result.stderr and (out / "add_kernel.cubin").exists()
    cli("dump", "sample:vector_add", "-t", "gfx942", "-o", out, "--force")
    assert (out / "add_kernel.hsaco").exists() and not (out / "add_kernel.cubin").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging directories left behind


def test_failed_compile_writes_nothing(cli, tmp_path):
    out = tmp_path / "out"
    cli("dump", BAD, "-k", "arange_not_power_of_two", "-t", "sm90", "-o", out, expect=1)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["missing.py"], 2, "no such file: missing.py"),
        (["nodir/:k"], 2, "no such capture or cache folder: nodir/ (for nodir/:k, in "),
        (["sample:double", "--target", "rtx"], 2, "hint: rtx is the GPU of target sm75 (T4, RTX 20xx (Turing))"),
        (["missing.py"], 2, "hint: give a Python file with Triton kernels, or a bundled sample: sample:NAME"),
        ([KERNELS / "not_python.txt"], 2, "is not a Python file"),
        ([KERNELS / "syntax_error.py"], 2, "syntax_error.py:5: syntax error"),
        ([KERNELS / "raises.py"], 2, "raises.py:5: the file raised ZeroDivisionError while being imported"),
        ([KERNELS / "no_kernels.py"], 2, "no @triton.jit kernels found"),
        ([BAD], 2, "Choose one with -k NAME"),
        ([BAD, "-k", "nope"], 2, "no kernel named 'nope' in bad.py. Kernels: arange_not_power_of_two, dot_shapes"),
        ([BAD, "-k", "needs_block", "-c", "NOPE=1"], 2, "has no constexpr 'NOPE'. Constexprs: BLOCK"),
        ([BAD, "-k", "needs_block", "-a", "NOPE=1"], 2, "has no argument 'NOPE'. Arguments: x_ptr, n"),
        ([BAD, "-k", "needs_block"], 2, "needs a value for constexpr BLOCK\nhint: give it: -c BLOCK=..."),
        ([BAD, "-k", "needs_block", "-c", "BLOCK"], 2, "-c/--constexpr expects NAME=VALUE, got 'BLOCK'"),
        (
            [BAD, "-k", "needs_block", "-c", "BLOCK=64", "-t", "sm42"],
            2,
            "unknown target 'sm42'. Valid targets: sm75, sm80",
        ),
        # the PTX's architecture (sm_90a) and a near miss name their target
        (
            [BAD, "-k", "needs_block", "-c", "BLOCK=64", "-t", "sm_90a"],
            2,
            "hint: sm_90a is the architecture the PTX names for target sm90: --target sm90",
        ),  # fmt: skip
        ([BAD, "-k", "needs_block", "-c", "BLOCK=64", "-t", "sm900"], 2, "hint: did you mean sm90?"),
        (
            [BAD, "-k", "needs_block", "-c", "BLOCK=64", "-t", "sm90,sm80"],
            2,
            "hint: --target takes one; for several: `fit --targets sm90,sm80` or `diff --vary target=sm90,sm80`",
        ),
        (
            [BAD, "-k", "needs_block", "-c", "BLOCK=64", "-t", "gfx942", "--stage", "sass"],
            2,
            "stage 'sass' is not produced for gfx942. Stages: source, ttir (@triton.jit kernels), "
            "glir (@gluon.jit kernels), ttgir, llir, amdgcn",
        ),
        ([BAD, "-k", "needs_block", "-c", "BLOCK=64", "-w", "3"], 2, "num_warps must be a power of 2"),
        (
            [BAD, "-k", "arange_not_power_of_two"],
            1,
            "bad.py:11: arange_not_power_of_two does not compile: arange's range must be a power of 2",
        ),
        ([BAD, "-k", "dot_shapes"], 1, "bad.py:20: dot_shapes does not compile: "),  # wording varies by release
        (
            [BAD, "-k", "undefined_name"],
            1,
            "bad.py:26: undefined_name does not compile: NameError: undefined_thing is not defined",
        ),
        ([BAD, "-k", "calls_bad_helper"], 1, "bad.py:31: calls_bad_helper does not compile: arange's range"),
    ],
)
def test_bad_input_gets_one_clear_message(cli, args, code, message):
    result = cli("dump", *args, "--json", expect=code)
    assert message in result.stderr
    assert result.stdout == ""


def test_a_time_limit_past_a_week_is_no_limit_not_an_overflow_blamed_on_the_kernel_file(cli):
    """`--timeout 1e10` overflowed a timer in the worker, said as the kernel file raising OverflowError
    while being imported; `inf` was refused as not positive."""
    for limit in ("1e10", "inf"):
        doc = json.loads(cli("dump", "sample:vector_add", "-t", "sm90", "--timeout", limit, "--json").stdout)
        assert doc["stages"]["ttir"]
    assert (
        "must be a positive number of seconds" in cli("dump", "sample:vector_add", "--timeout", "nan", expect=2).stderr
    )


def test_a_missing_file_is_said_alone_not_after_the_guessed_targets_notice(cli, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # no GPU visible: `auto` would guess sm90, and say so
    said = cli("dump", "missing.py", expect=2).stderr
    assert said.startswith("error: no such file: missing.py") and "no GPU visible" not in said, said
    said = cli("dump", "sample:nope", expect=2).stderr
    assert said.startswith("error: no sample named 'nope'") and "no GPU visible" not in said, said
    assert "did you mean" not in said and "hint: did you mean sample:layernorm?" in cli(
        "dump", "sample:layer_norm", expect=2).stderr  # fmt: skip


def test_compile_error_shows_the_source_line_and_call_site(cli):
    err = cli("dump", BAD, "-k", "calls_bad_helper", "-t", "sm90", expect=1).stderr
    assert "offs = tl.arange(0, 100)" in err and "called from" in err and "bad.py:37: bad_helper(x_ptr)" in err


def test_an_error_inside_a_triton_helper_is_placed_at_the_users_call(cli):
    """A failure inside tl.cdiv (a JIT function of triton.language.standard) was placed at the kernel's
    start line plus cdiv's own line: a line of the signature, or past the end of the file."""
    err = cli("dump", BAD, "-k", "cdiv_of_a_pointer", "-c", "BLOCK=64", "-t", "sm90", expect=1).stderr
    line = next(n for n, text in enumerate(BAD.read_text().splitlines(), 1) if "tl.cdiv(x_ptr" in text)
    assert f"bad.py:{line}: cdiv_of_a_pointer does not compile inside Triton's cdiv (standard.py:" in err, err
    assert "steps = tl.cdiv(x_ptr, BLOCK)" in err and "IncompatibleTypeError: invalid operands" in err, err


def test_a_gpus_own_name_is_its_target():
    """`--target h100` was refused (with a hint to type sm90) while `h200` was a target: a GPU's name that
    one target's description has (h100, a100, b200, mi300) is that target."""
    from tritonscope.core.targets import parse_name

    assert [parse_name(n) for n in ("h100", "A100", "b200", "mi300", "h200")] == [
        "sm90",
        "sm80",
        "sm100",
        "gfx942",
        "h200",
    ]


def test_debug_shows_the_traceback(cli):
    result = cli.runner.invoke(__import__("tritonscope.cli").cli.app, ["dump", "missing.py", "--debug"])
    assert result.exit_code == 2 and "Traceback" in result.stderr


def _imports_after(argv: list[str]) -> set[str]:
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom tritonscope.cli import app\n"
        f"r = CliRunner().invoke(app, {argv!r})\nassert r.exit_code == 0, r.stderr\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_help_imports_neither_torch_nor_tritons_compiler():
    modules = _imports_after(["--help"])
    assert "torch" not in modules and "triton.compiler" not in modules and "triton" not in modules


def test_dump_never_imports_torch():
    assert "torch" not in _imports_after(["dump", "sample:layernorm", "-t", "sm90", "--json"])
    assert "torch" not in _imports_after(["dump", "sample:add_op", "-t", "gfx942", "--json"])


def test_auto_target_without_a_gpu_says_so(cli):
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here")
    result = cli("dump", "sample:double", "--json")
    assert "no GPU visible: compiling for sm90" in result.stderr
    assert json.loads(result.stdout)["variant"]["target"] == "sm90"


# Every command that compiles a request, with no --target: its notice said once (issue 50).
COMPILING = [
    ("dump", "sample:double"),
    ("compare", "sample:double"),
    ("explain", "sample:double", "--no-what-if"),
    ("report", "sample:double", "-o", "{tmp}/r.html"),
    ("diff", "sample:double", "--vary", "num_warps=2,4", "-j", "1"),
    ("passes", "sample:double"),
    ("grid", "sample:double"),
    ("layout", "--from", "sample:softmax"),
    ("check", "sample:double", "--budget", "spills=0"),
    ("check", "--project", "{tmp}/pyproject.toml", "-j", "1"),
]


@pytest.mark.parametrize("words", COMPILING, ids=lambda w: " ".join(w[:1] + w[2:3]))
def test_every_compiling_command_says_the_auto_targets_notice_once(cli, tmp_path, words):
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here")
    entries = '[[tool.tritonscope.check]]\nfile = "sample:double"\nflags = "-w {}"\nbudgets = ["spills=0"]\n'
    (tmp_path / "pyproject.toml").write_text(entries.format(2) + entries.format(4))
    result = cli(*(w.format(tmp=tmp_path) for w in words))
    assert result.stderr.count("no GPU visible: compiling for sm90 (choose with --target)") == 1, result.stderr


def test_a_request_resolves_auto_once_and_a_new_target_drops_the_old_notice(tmp_path):
    from tritonscope.core.model import VariantRequest
    from tritonscope.core.targets import local_target

    asked = VariantRequest(file="sample:double")
    with pytest.raises(ValueError, match="resolved where a request is made"):
        asked.target_info  # noqa: B018 - nothing below the front end resolves a target
    made = asked.resolved()
    assert made.resolved() is made and made.target_info is not None and made.target != "auto"
    assert (made.target_notice is None) == (local_target() is not None)
    assert made.for_target("sm80").target == "sm80" and made.for_target("sm80").target_notice is None
    (tmp_path / "run").mkdir()
    for compiled in (f"{tmp_path}/run/:add_kernel", f"{tmp_path}/run/"):  # its own target, once read
        assert VariantRequest(file=compiled).resolved().target_info is None


def test_help_has_examples(cli):
    assert "tritonscope dump sample:matmul -o out/" in cli("dump", "--help").stdout
    assert Path(__file__).parent.joinpath("kernels").is_dir()


def test_bench_without_a_gpu_says_so(cli):
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here")
    assert "none is visible here" in cli("bench", "sample:vector_add", expect=2).stderr


def test_a_kernel_from_tritons_cache_is_said_to_be_read_not_compiled(cli, tmp_path):
    from tritonscope.core.samples import samples_dir

    kernel = tmp_path / "fresh_vector_add.py"  # a new path: Triton's cache key includes it
    kernel.write_text((samples_dir() / "vector_add.py").read_text())
    first = json.loads(cli("dump", kernel, "--target", "sm90", "--json").stdout)
    second = json.loads(cli("dump", kernel, "--target", "sm90", "--json").stdout)
    assert (first["cache_hit"], second["cache_hit"]) == (False, True)
    assert first["compile_seconds"] > 0 and second["compile_seconds"] > 0
    header = cli("dump", kernel, "--target", "sm90", "--stage", "ttir").stdout
    assert "read from Triton's cache" in header and not re.search(r"compiled +in ", header)
    assert "stage times" not in header  # a fresh compile's row; the key column is as wide without it
    assert re.search(r"│ kernel {7}add_kernel ", header), header


@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_a_full_disk_behind_stdout_is_said_as_the_result_not_written(json_out):
    with open("/dev/full", "w") as full:  # every write: ENOSPC
        done = subprocess.run(
            [sys.executable, "-m", "tritonscope", "dump", "sample:double", "--target", "sm90", "--stage", "ttir"]
            + (["--json"] if json_out else []),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    said = "error: cannot write the result to standard output: No space left on device\n"
    assert done.returncode == 2 and done.stderr.endswith(said), done.stderr


def test_the_help_examples_name_only_what_their_samples_have():
    """Every `tritonscope ... sample:NAME` example of every command's --help gives -c, -a, --vary and
    --space only names of that sample's kernel or options: a newcomer ran `diff --help`'s --space
    example and met `--vary BLOCK_M: not a parameter of matmul_kernel`."""
    import typer

    from tritonscope.app.walk.load import load_file
    from tritonscope.cli import runner
    from tritonscope.core.model import OPTION_NAMES

    group = typer.main.get_command(runner.app)
    examples = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for each in getattr(command, "commands", {}).values() or [command]:
            context = each.context_class(each, info_name=name)
            examples += [line.strip() for line in each.get_help(context).splitlines() if "sample:" in line]
    named = re.compile(r"(?:-c|-a|--vary|--space)[ =](\w+)=")
    checked = 0
    for example in examples:
        sample = re.search(r"sample:([a-z_]+)\b", example)
        if sample is None:  # `sample:NAME`: a placeholder
            continue
        kernel = re.search(r"-k (\w+)", example)
        loaded = load_file(f"sample:{sample[1]}")
        spec = loaded.pick(kernel[1] if kernel else None).spec
        known = {p.name for p in spec.params} | set(OPTION_NAMES) | {"target", "triton", "config"}
        for name in named.findall(example):
            assert name in known, f"{example!r}: {spec.name} has no {name}"
            checked += 1
    assert checked >= 10, examples


def test_help_at_80_columns_breaks_no_option_and_indents_an_examples_further_lines():
    """At 80 columns click broke `--update-baseline` after its hyphen, and an example's second line
    read as prose; every command's --help is checked: no line ends inside an option."""
    from tritonscope.cli.help_text import wrapped

    example = "tritonscope check sample:matmul -t sm80 --baseline base.json --update-baseline     (save the figures)"
    lines = wrapped(example, 80, "    ").splitlines()
    assert lines == [
        "    tritonscope check sample:matmul -t sm80 --baseline base.json",
        "        --update-baseline     (save the figures)",
    ]
    assert wrapped("\b\n  kept   as  written\n", 10, "") == "  kept   as  written"
    env = {**os.environ, "COLUMNS": "80"}
    for command in ("dump", "check", "diff", "explain", "fit", "trace"):
        shown = subprocess.run(
            [sys.executable, "-m", "tritonscope", command, "--help"], capture_output=True, text=True, env=env
        ).stdout
        broken = [line for line in shown.splitlines() if re.search(r"\s--?[\w-]*-$", line)]
        assert not broken and max(map(len, shown.splitlines())) <= 80, (command, broken)
        usage = shown.splitlines()[0]  # `dump [OPTIONS] FILE`: newer typer wrote `{FILE}` (a required one)
        assert f"tritonscope {command} [OPTIONS] " in usage and "{" not in usage, usage


def test_list_types_a_value_the_file_gives_as_the_launcher_types_it(cli, tmp_path):
    """`n_cols` used in `/ n_cols + eps` reads as a float from the body; the file gives 4096, an
    int, and dump compiles `n_cols: i32`: list said `float fp32` (h23a)."""
    kernel = tmp_path / "rms.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def norm(x_ptr, n_cols, big, eps, BLOCK: tl.constexpr):\n"
        "    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n"
        "    tl.store(x_ptr + tl.arange(0, BLOCK), x / n_cols + eps + big)\n\n\n"
        'tritonscope_defaults = {"n_cols": 4096, "big": 2**40, "eps": 1e-6, "BLOCK": 64}\n'
    )
    params = {p["name"]: p for p in json.loads(cli("list", kernel, "--json").stdout)["kernels"][0]["params"]}
    assert [(params[n]["kind"], params[n]["type"]) for n in ("n_cols", "big", "eps")] == [
        ("int", "i32"),
        ("int", "i64"),
        ("float", "fp32"),
    ]
    signature = json.loads(cli("dump", kernel, "-t", "sm90", "--stage", "ttir", "--json").stdout)["variant"][
        "signature"
    ]
    assert (signature["n_cols"], signature["big"]) == ("i32", "i64")


def test_list_gives_the_pointer_type_dump_compiles(cli):
    """A pointer the file's tritonscope_defaults types is listed with that type (dump compiles
    `a_ptr: *fp16`), not the --dtype default; an untyped one keeps `*fp32 (--dtype)`."""
    shown = cli("list", "sample:matmul").stdout
    a_ptr = next(line for line in shown.splitlines() if "a_ptr" in line)
    assert "*fp16 (file)" in a_ptr and "--dtype" not in a_ptr and "from the file" in a_ptr
    # a scalar the file gives a value: found there, not `assumed (give -a ...)`; at 80 columns no name is cut
    from cli_process import tritonscope

    narrow = tritonscope("list", "sample:softmax", env={"COLUMNS": "80"}).stdout
    n_cols = next(line for line in narrow.splitlines() if "n_cols" in line)
    assert "781 (file)" in n_cols and "from the" in n_cols and "assumed" not in n_cols
    assert "input_row_stride " in narrow and "…" not in narrow
    # an autotune config folded at 80 columns goes on under its own start, not at column 0 (h19c)
    configs = tritonscope("list", "sample:matmul_autotune", env={"COLUMNS": "80"}).stdout.splitlines()
    assert not [line for line in configs if line.startswith("GROUP_SIZE_M") or len(line) > 80]
    assert "    GROUP_SIZE_M=8, num_warps=8, num_stages=3, num_ctas=1" in configs
    dumped = json.loads(cli("dump", "sample:matmul", "--target", "sm90", "--stage", "ttir", "--json").stdout)
    assert "*fp16" in json.dumps(dumped["variant"]["signature"]["a_ptr"])
    plain = cli("list", "sample:double").stdout
    assert "*fp32 (--dtype)" in plain
    # the JSON says the same (an agent's list_kernels read `*fp32` from the body where *fp16 compiles)
    params = {p["name"]: p for p in json.loads(cli("list", "sample:matmul", "--json").stdout)["kernels"][0]["params"]}
    assert (params["a_ptr"]["type"], params["a_ptr"]["type_from"]) == ("*fp16", "file")
    assert (params["M"]["default"], params["M"]["type_from"], params["BLOCK_SIZE_M"]["type_from"]) == (
        4096,
        "file",
        "annotation",
    )


def test_a_diff_over_targets_does_not_say_which_target_it_compiles_for(cli):
    """`--vary target=...` names each variant's target: the no-GPU notice (`compiling for sm90 (choose
    with --target)`) was said all the same; a diff over another axis still says it."""
    from tritonscope.core.targets import local_target

    if local_target() is not None:
        pytest.skip("a GPU is visible here: no notice either way")
    over_targets = cli("diff", "sample:double", "--vary", "target=sm80,sm90", "--json")
    assert "no GPU visible" not in over_targets.stderr
    assert [v["label"]["target"] for v in json.loads(over_targets.stdout)["variants"]] == ["sm80", "sm90"]
    assert "no GPU visible" in cli("diff", "sample:double", "--vary", "BLOCK_SIZE=128,256", "--json").stderr


def test_a_syntax_error_points_at_its_column(cli):
    """The line of a syntax error, and a caret under the column Python names (as explore's error
    pane is documented to show it)."""
    said = cli("dump", KERNELS / "syntax_error.py", "-t", "sm90", expect=2).stderr.splitlines()
    at = next(i for i, line in enumerate(said) if line.strip() == "def f(:")
    assert said[at + 1].index("^") == said[at].index(":")


def test_a_reader_that_left_does_not_hide_a_failed_gate():
    """`check ... | head -1` in CI: the reader gone (a pipe with no reader), the status is still the
    result's: 1 for a broken budget (it was 0), 0 for a command that succeeded."""
    import os
    import subprocess

    from cli_process import ENV, _argv

    for args, status in (
        (("check", "sample:matmul", "-t", "sm80", "--budget", "registers<=100"), 1),
        (("samples",), 0),
    ):
        read, write = os.pipe()
        os.close(read)  # the reader left before the first line
        try:
            done = subprocess.run(_argv(args), stdout=write, stderr=subprocess.PIPE, text=True, env=ENV, timeout=600)
        finally:
            os.close(write)
        assert done.returncode == status, done.stderr[-2000:]
        assert "Traceback" not in done.stderr and "rror" not in done.stderr, done.stderr[-2000:]


def test_explore_of_a_missing_file_says_so_before_it_asks_for_a_terminal(cli):
    """Without a terminal (a pipe, CI), `explore nofile.py` said only that it needs one."""
    said = cli("explore", "nofile.py", expect=2).stderr
    assert "no such file: nofile.py" in said and "needs a terminal" not in said
    assert "explore needs a terminal" in cli("explore", "sample:vector_add", expect=2).stderr


def test_a_heuristic_reading_an_argument_given_no_value_is_a_usage_error(tmp_path, cli):
    """It was a KernelFileError (nothing is wrong with the file: the request left out a value)."""
    kernel = tmp_path / "heur.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n@triton.jit\n"
        "def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)\n"
    )
    said = cli("dump", kernel, "-c", "BLOCK=256", "-t", "sm90", expect=2).stderr
    assert "error: the heuristic for EVEN of k reads n, which was given no value" in said, said
    assert "hint: give it: -a n=VALUE (or set -c EVEN=...)" in said
    assert "tt.store" in cli("dump", kernel, "-c", "BLOCK=256", "-a", "n=4096", "-t", "sm90", "--json").stdout


def test_a_constexpr_the_autotuners_pruner_sets_is_said_so(tmp_path, cli):
    """gemlite's NUM_STAGES is in no config: its early_config_prune adds it at launch. It was said only
    to be missing, which reads as the file's mistake."""
    kernel = tmp_path / "pruned.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "def prune(configs, named_args, **kwargs):\n"
        "    return [triton.Config({**c.kwargs, 'STAGES': 2}) for c in configs]\n\n"
        "@triton.autotune([triton.Config({'BLOCK': 128})], key=['n'], prune_configs_by={'early_config_prune': prune})\n"
        "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)\n"
    )
    said = cli("dump", kernel, "-t", "sm90", expect=2).stderr
    assert "needs a value for constexpr STAGES (in none of its autotune configs: its prune_configs_by's" in said
    assert "hint: give it: -c STAGES=..." in said


def test_an_import_stopped_at_a_long_statement_shows_it_cut_visibly(tmp_path, cli):
    """The statement was cut at 60 characters mid-code (`target="sm90")` showed as `target)`)."""
    kernel = tmp_path / "longstop.py"
    kernel.write_text(
        "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def k(x_ptr, BLOCK: tl.constexpr):\n    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)\n\n\n"
        "x = torch.ones(4, device='cuda')\n"
        "print('a long statement that reads a value from the device:', x.sum().item(), 'target=sm90')\n"
    )
    said = cli("dump", kernel, "-c", "BLOCK=128", "-t", "sm90", "--json").stderr
    assert "stopped at line 12 (print('a long statement that reads a value from the devic...): " in said, said
