"""`tritonscope mcp`: the real server process, started by the MCP SDK's own client over stdio, its
tools called on samples and on a liger-kernel kernel, their facts held to what `dump --json` and
`explain --json` say of the same variant; bad input and a hanging kernel as tool errors after which
the server still answers; concurrent calls each answered with their own facts; the resources."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from cli_process import tritonscope

from tritonscope.core.targets import local_target

mcp = pytest.importorskip("mcp", reason="the test extra installs the MCP SDK")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels"
PROGRAM = KERNELS / "launch_program.py"  # a model step of four kernels, for trace --target
TOOLS = {
    "samples",
    "list_kernels",
    "dump",
    "explain",
    "check",
    "diff",
    "passes",
    "layout",
    "grid",
    "trace",
    "capture_list",
    "capture_diff",
    "capture_check",
}
LIGER = "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel"  # as tests/test_corpus_liger.py compiles it
LIGER_INPUTS = {
    "kernel_file": LIGER,
    "target": "sm90",
    "dtype": "bf16",
    "args": {"RSTD_ptr": "*fp32", "eps": "fp32", "offset": "fp32"},
    "constexprs": {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 4096},
    "num_warps": 8,
}
LIGER_FLAGS = (
    "-t sm90 --dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -a offset=fp32 -c casting_mode=0 -c elementwise_affine=true "
    "-c BLOCK_SIZE=4096 -w 8"
).split()


def server(*args: str, python: list[str] | None = None) -> StdioServerParameters:
    """The server as an MCP client starts it, with this environment (the Triton cache, the path)."""
    command = python or [sys.executable, "-m", "tritonscope", "mcp"]
    return StdioServerParameters(command=command[0], args=[*command[1:], *args], env=dict(os.environ), cwd=ROOT)


def serving(check, *args: str, python: list[str] | None = None) -> None:
    """Runs `check(client)` against a fresh server process; the server ends with the client."""

    async def main():
        async with Client(server(*args, python=python), read_timeout_seconds=600) as client:
            await check(client)

    anyio.run(main)


def structured(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert result.content[0].type == "text" and result.content[1].type == "text"
    assert json.loads(result.content[1].text) == result.structured_content  # the JSON is the structured content
    return result.structured_content


def cli_json(*args: str) -> dict:
    return json.loads(tritonscope(*args, "--json").stdout)


def sass_of_line(document: dict, line: int) -> list[str]:
    """The SASS lines a Python line became, read off a whole `dump --json` document."""
    sass = document["stages"]["sass"].splitlines()
    file = document["kernel"]["file"]
    found = [e["stages"].get("sass", []) for e in document["line_map"] if e["line"] == line and e["file"] == file]
    return [sass[n - 1] for n in sorted({n for numbers in found for n in numbers})]


def test_the_tools_answer_what_the_command_line_answers():
    """Every tool is listed with an example and an output schema; dump and explain of a sample and of
    liger's rms_norm give the registers, spills, a line's SASS and the findings' lines of the CLI's JSON."""
    cli_dump = cli_json("dump", "sample:matmul", "-t", "sm80")
    cli_explain = cli_json("explain", "sample:vector_add", "-t", "sm90", "-a", "n_elements=4099")
    cli_liger = cli_json("dump", LIGER, *LIGER_FLAGS)
    cli_liger_explain = cli_json("explain", LIGER, *LIGER_FLAGS)
    dot = _line_with(cli_dump, "tl.dot(")
    liger_line = _line_with(cli_liger, "tl.load(")

    async def check(client):
        listed = (await client.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert "Example:" in tool.description and tool.output_schema["type"] == "object", tool.name
            assert {"schema", "tool", "kind"} <= set(tool.output_schema["required"]), tool.name
        asked = {"kernel_file": "sample:matmul", "target": "sm80"}
        dump = structured(await client.call_tool("dump", asked))
        assert dump["resources"] == cli_dump["resources"]
        assert all(len(text.splitlines()) <= 40 for text in dump["stages"].values())  # a page, not the whole
        assert dump["page"]["stages"]["sass"]["total_lines"] == len(cli_dump["stages"]["sass"].splitlines())
        lined = structured(await client.call_tool("dump", {**asked, "stages": ["sass"], "line": dot, "max_lines": 500}))
        assert lined["stages"]["sass"].splitlines() == sass_of_line(cli_dump, dot) and "HMMA" in lined["stages"]["sass"]
        explained = structured(
            await client.call_tool(
                "explain", {"kernel_file": "sample:vector_add", "target": "sm90", "args": {"n_elements": 4099}}
            )
        )
        assert explained["findings"], "n_elements=4099 is no multiple of 16: explain finds the narrow accesses"
        assert _findings(explained) == _findings(cli_explain)
        liger = structured(await client.call_tool("dump", {**LIGER_INPUTS, "line": liger_line, "max_lines": 500}))
        assert (liger["resources"]["registers"], liger["resources"]["spills"]) == (
            cli_liger["resources"]["registers"],
            cli_liger["resources"]["spills"],
        )
        assert liger["stages"]["sass"].splitlines() == sass_of_line(cli_liger, liger_line)
        liger_page = await client.call_tool("explain", LIGER_INPUTS)  # its findings weigh more than 8 KB: a page
        assert all(f"line {line}: {kind}:" in result_text(liger_page) for kind, line in _findings(cli_liger_explain))
        liger_explained = structured(await client.call_tool("explain", {**LIGER_INPUTS, "max_lines": 50}))
        assert _findings(liger_explained) == _findings(cli_liger_explain)

    serving(check)


def _line_with(document: dict, code: str) -> int:
    """The first line of the kernel's file holding `code` that has SASS."""
    kernel = document["kernel"]
    for offset, text in enumerate(kernel["source"].splitlines()):
        line = kernel["first_line"] + offset
        if code in text and sass_of_line(document, line):
            return line
    raise AssertionError(f"no line with {code} in {kernel['name']}")


def _findings(document: dict) -> list[tuple[str, int | None]]:
    return [(f["kind"], f["line"]) for f in document["findings"]]


def result_text(result) -> str:
    return result.content[0].text


def test_every_other_tool_answers_on_a_sample(tmp_path):
    """samples, list_kernels, check, diff, passes, layout, grid: each answers with its document's kind
    and the facts its command gives."""
    cli_diff = cli_json("diff", "sample:softmax", "-t", "sm90", "--vary", "num_warps=4,8")
    cli_list = cli_json("list", "sample:matmul_autotune")
    cli_passes = cli_json("passes", "sample:vector_add", "--vary", "num_warps=4,8")

    async def check(client):
        samples = structured(await client.call_tool("samples", {}))
        assert "matmul" in {s["name"] for s in samples["samples"]}
        listing = structured(await client.call_tool("list_kernels", {"kernel_file": "sample:matmul_autotune"}))
        assert listing["kernels"] == cli_list["kernels"] and listing["kernels"][0]["autotune_configs"]
        held = structured(
            await client.call_tool(
                "check", {"kernel_file": "sample:matmul", "target": "sm86", "budgets": ["registers<=64", "spills=0"]}
            )
        )
        assert held["ok"] is False and [b["figure"] for b in held["entries"][0]["broken"]] == ["registers"]
        diff = structured(
            await client.call_tool(
                "diff", {"kernel_file": "sample:softmax", "target": "sm90", "vary": {"num_warps": [4, 8]}}
            )
        )
        assert [v["resources"]["registers"] for v in diff["variants"]] == [
            v["resources"]["registers"] for v in cli_diff["variants"]
        ]
        passes = structured(
            await client.call_tool("passes", {"kernel_file": "sample:vector_add", "changed_only": True})
        )
        assert passes["passes"] and all(p["changed"] for p in passes["passes"])
        shown = structured(
            await client.call_tool("passes", {"kernel_file": "sample:vector_add", "show": passes["passes"][0]["name"]})
        )
        assert shown["passes"][0]["diff"]
        vary = {"kernel_file": "sample:vector_add", "vary": {"num_warps": [4, 8]}}
        paged = structured(await client.call_tool("passes", vary))  # the passes' diffs: a page of each
        assert paged["divergence"]["first"]["name"] == cli_passes["divergence"]["first"]["name"]
        assert paged["page"]["divergence.first.diff"]["total"] == len(cli_passes["divergence"]["first"]["diff"])
        compared = structured(await client.call_tool("passes", {**vary, "max_lines": 1000}))
        assert compared["divergence"] == cli_passes["divergence"]
        auto = await client.call_tool("dump", {"kernel_file": "sample:double", "max_lines": 5})
        said = result_text(auto).count("notice: no GPU visible: compiling for sm90 (choose with the target input)")
        assert said == (local_target() is None), result_text(auto)  # the target resolved once, its notice said once
        answered = await client.call_tool("layout", {"kernel_file": "sample:softmax", "value": "row"})
        layout = structured(answered)
        assert layout["kind"] == "layout" and layout["owners"]
        shape = "x".join(map(str, layout["shape"]))  # its summary a sentence, not `layout: 1 shape`
        assert result_text(answered).startswith(f"layout: {layout['layout']}\n{shape} over ")
        assert f"{layout['registers']} value" in result_text(answered) and " shape" not in result_text(answered)
        grid = structured(
            await client.call_tool(
                "grid", {"kernel_file": "sample:vector_add", "args": {"n_elements": 98432}, "max_lines": 5}
            )
        )
        assert len(grid["programs"]) == 5 and grid["page"]["programs"]["total"] == grid["grid"][0]
        more = structured(
            await client.call_tool(
                "grid",
                {
                    "kernel_file": "sample:vector_add",
                    "args": {"n_elements": 98432},
                    "max_lines": 5,
                    "cursor": grid["page"]["programs"]["next_cursor"],
                },
            )
        )
        assert [p["index"] for p in more["programs"]] == [5, 6, 7, 8, 9]

    serving(check)


def test_the_kernel_tools_answer_on_a_library_kernel():
    """list_kernels, check, diff, passes and layout on liger-kernel's rms_norm forward kernel. (grid runs a
    kernel under Triton's interpreter, where liger's rsqrt, a libdevice call, has no value: it is held on
    the samples, by the test above.)"""
    cli_list = cli_json("list", "liger_kernel.ops.rms_norm")

    async def check(client):
        asked = {"kernel_file": "liger_kernel.ops.rms_norm"}
        first = structured(await client.call_tool("list_kernels", asked))  # a page: four kernels with their source
        assert (
            first["page"]["kernels"]["total"] == 4 and first["kernels"] == cli_list["kernels"][: len(first["kernels"])]
        )
        listing = structured(await client.call_tool("list_kernels", {**asked, "max_lines": 10}))
        assert listing["kernels"] == cli_list["kernels"] and len(listing["kernels"]) == 4
        held = structured(await client.call_tool("check", {**LIGER_INPUTS, "budgets": ["spills=0", "registers<=8"]}))
        figures = held["entries"][0]["figures"]
        assert held["ok"] is False and [b["figure"] for b in held["entries"][0]["broken"]] == ["registers"]
        varied = structured(await client.call_tool("diff", {**LIGER_INPUTS, "vary": {"num_warps": [8, 4]}}))
        assert varied["variants"][0]["resources"]["registers"] == figures["registers"]
        assert [v["label"] for v in varied["variants"]] == [{"num_warps": "8"}, {"num_warps": "4"}]
        passes = structured(await client.call_tool("passes", {**LIGER_INPUTS, "changed_only": True}))
        assert passes["passes"] and all(p["changed"] for p in passes["passes"])
        layouts = structured(await client.call_tool("layout", LIGER_INPUTS))
        assert layouts["kind"] == "layout_list" and layouts["layouts"]

    serving(check)


def test_a_page_goes_on_with_its_cursor():
    async def check(client):
        asked = {"kernel_file": "sample:matmul", "target": "sm90", "stages": ["ptx"], "max_lines": 30}
        first = structured(await client.call_tool("dump", asked))
        cursor = first["page"]["stages"]["ptx"]["next_cursor"]
        second = structured(await client.call_tool("dump", {**asked, "cursor": cursor}))
        whole = cli_json("dump", "sample:matmul", "-t", "sm90", "--stage", "ptx")["stages"]["ptx"].splitlines()
        assert first["stages"]["ptx"].splitlines() == whole[:30]
        assert second["stages"]["ptx"].splitlines() == whole[30:60]
        assert f"cursor '{cursor}'" in result_text(await client.call_tool("dump", asked))

    serving(check)


def test_errors_are_answers_and_the_server_keeps_serving(tmp_path):
    """A missing file, a syntax error, an unknown target, a kernel that crashes the compiler and one
    that hangs it each give a tool error with the command line's message; the next call is answered,
    by the same server."""
    hang = str(KERNELS / "faults" / "hang_heuristic.py")

    async def check(client):
        missing = await client.call_tool("dump", {"kernel_file": str(tmp_path / "nowhere.py")})
        assert missing.is_error and "no such file" in result_text(missing) and "nowhere.py" in result_text(missing)
        assert result_text(missing).startswith("error: ")  # as an input's error: not the SDK's `Error executing`
        broken = await client.call_tool("dump", {"kernel_file": str(KERNELS / "syntax_error.py")})
        assert broken.is_error and "syntax error" in result_text(broken) and "syntax_error.py:" in result_text(broken)
        target = await client.call_tool("dump", {"kernel_file": "sample:matmul", "target": "sm999"})
        assert target.is_error and "sm999" in result_text(target)
        # the flags a message names are said as the inputs that set them
        several = result_text(await client.call_tool("dump", {"kernel_file": str(KERNELS / "mixed.py")}))
        assert several.endswith("Choose one with the kernel input.") and "-k" not in several, several
        needs = await client.call_tool("dump", {"kernel_file": str(KERNELS / "mixed.py"), "kernel": "scale_kernel"})
        assert result_text(needs).endswith('(give it: constexprs {"BLOCK": ...})')
        crashed = await client.call_tool("dump", {"kernel_file": str(KERNELS / "crashy.py"), "args": {"n": 11}})
        assert crashed.is_error and "the compiler process crashed (SIGSEGV)" in result_text(crashed)
        hung = await client.call_tool("dump", {"kernel_file": hang, "timeout": 8})
        assert hung.is_error and "timed out after 8 s" in result_text(hung), result_text(hung)
        assert "hang_heuristic.py" in result_text(hung)  # where it was stuck
        after = structured(await client.call_tool("dump", {"kernel_file": "sample:vector_add", "stages": ["ttir"]}))
        assert after["kind"] == "dump" and after["stages"]["ttir"]
        noisy = structured(await client.call_tool("dump", {"kernel_file": str(KERNELS / "faults" / "writes_fd1.py")}))
        assert noisy["kernel"]["name"] == "fd_kernel"  # what it wrote to descriptor 1 missed the protocol

    serving(check)


def test_concurrent_calls_each_get_their_own_answer():
    async def check(client):
        answers = {}

        async def ask(name, target):
            asked = {"kernel_file": f"sample:{name}", "target": target, "stages": ["ttgir"]}
            answers[(name, target)] = structured(await client.call_tool("dump", asked))

        async with anyio.create_task_group() as group:
            for name, target in (("vector_add", "sm80"), ("softmax", "sm90"), ("matmul", "gfx942")):
                group.start_soon(ask, name, target)
        for (name, target), answer in answers.items():
            assert answer["variant"]["target"] == target and answer["kernel"]["file"].endswith(f"{name}.py")

    serving(check)


def test_an_edited_kernel_file_is_compiled_again(tmp_path):
    """The server keeps answers by request while the kernel file is unchanged, not after."""
    kernel = tmp_path / "k.py"
    source = (ROOT / "sample_kernels" / "vector_add.py").read_text()
    kernel.write_text(source)

    async def check(client):
        asked = {"kernel_file": str(kernel), "target": "sm90", "stages": ["ttir"], "max_lines": 500}
        first = structured(await client.call_tool("dump", asked))
        kernel.write_text(source.replace("x + y", "x * y"))
        second = structured(await client.call_tool("dump", asked))
        assert "arith.addf" in first["stages"]["ttir"] and "arith.mulf" in second["stages"]["ttir"]

    serving(check)


def test_an_edited_helper_file_in_a_package_is_compiled_again(tmp_path):
    """A kept answer follows the helper files the kernel file imports, in a package's subfolder too
    (not only the files beside it): the helper's edit is compiled."""
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "__init__.py").write_text("")
    helper = tmp_path / "ops" / "combine.py"
    helper.write_text("import triton\n\n\n@triton.jit\ndef combine(a, b):\n    return a + b\n")
    kernel = tmp_path / "k.py"
    source = (ROOT / "sample_kernels" / "vector_add.py").read_text()
    kernel.write_text("from ops.combine import combine\n" + source.replace("x + y", "combine(x, y)"))

    async def check(client):
        asked = {"kernel_file": str(kernel), "target": "sm90", "stages": ["ttir"], "max_lines": 500}
        first = structured(await client.call_tool("dump", asked))
        helper.write_text(helper.read_text().replace("a + b", "a * b"))
        second = structured(await client.call_tool("dump", asked))
        assert "arith.addf" in first["stages"]["ttir"] and "arith.mulf" in second["stages"]["ttir"]

    serving(check)


def test_captures_their_tools_and_their_kernels_as_resources(tmp_path):
    """capture_list, capture_diff and capture_check answer as their commands do, a listed capture's
    kernels become resources (their dump documents), and the samples are resources."""
    before, after = tmp_path / "before", tmp_path / "after"
    tritonscope("trace", "--target", "sm90", "-o", before, "--", sys.executable, PROGRAM)
    tritonscope("trace", "--target", "sm90", "-o", after, "--", sys.executable, PROGRAM, "--after")
    cli_diff = cli_json("diff", before, after)

    async def check(client):
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "tritonscope://samples" in uris
        listed = json.loads((await client.read_resource("tritonscope://samples")).contents[0].text)
        matmul = next(s for s in listed["samples"] if s["name"] == "matmul")
        assert "def matmul_kernel(" in (await client.read_resource(matmul["uri"])).contents[0].text
        kernels = structured(await client.call_tool("capture_list", {"folder": str(before)}))
        name = kernels["kernels"][0]["name"]
        uri = f"tritonscope://captures/1/kernels/{name}"
        assert uri in {str(r.uri) for r in (await client.list_resources()).resources}
        read = json.loads((await client.read_resource(uri)).contents[0].text)
        assert read["kind"] == "dump" and read["resources"] == cli_json("dump", f"{before}/:{name}")["resources"]
        compared = structured(await client.call_tool("capture_diff", {"before": str(before), "after": str(after)}))
        assert compared["counts"] == cli_diff["counts"] and compared["counts"]["removed"] == 1
        held = structured(await client.call_tool("capture_check", {"folder": str(after), "budgets": ["spills=0"]}))
        assert held["ok"] is True and len(held["entries"]) == len(structured_names(after))

    serving(check)


def structured_names(capture: Path) -> list[str]:
    return [k["name"] for k in cli_json("cache", "list", capture)["kernels"]]


def test_trace_runs_a_program_within_its_time_limit(tmp_path):
    """trace captures a program's kernels against a simulated GPU; one that runs past its limit is
    stopped, a tool error, and nothing is written."""
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(600)\n")

    async def check(client):
        out = tmp_path / "run"
        command = [sys.executable, str(PROGRAM)]
        traced = structured(await client.call_tool("trace", {"command": command, "out": str(out), "target": "sm90"}))
        assert traced["kind"] == "trace" and traced["kernels"] and (out / "kernels.jsonl").is_file()
        stopped = await client.call_tool(
            "trace", {"command": [sys.executable, str(slow)], "out": str(tmp_path / "late"), "time_limit": 3}
        )
        assert stopped.is_error and "time limit of 3 s" in result_text(stopped)
        assert not (tmp_path / "late").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["run", "slow.py"]

    serving(check)


def test_a_failed_program_is_a_tool_error_in_its_own_words(tmp_path):
    """A traced program that fails is a tool error with its exit code and its last lines on stderr (the
    server's stderr is no agent's to read); a command given as one string is split as a shell would."""

    async def check(client):
        listed = await client.call_tool("trace", {"command": [sys.executable, "nosuch.py"], "out": str(tmp_path / "a")})
        said = result_text(listed)
        assert listed.is_error and "nosuch.py exited with 2 (nothing written)" in said, said
        assert "can't open file" in said and "[Errno 2] No such file or directory" in said
        split = await client.call_tool("trace", {"command": f"{sys.executable} nosuch.py", "out": str(tmp_path / "b")})
        assert split.is_error and "can't open file" in result_text(split), result_text(split)
        assert "validation error" not in result_text(split)

    serving(check)


UNROLLED = """import triton
import triton.language as tl


@triton.jit
def unrolled_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + offsets)
    for i in tl.static_range(8192):  # seconds of compiling on any machine: the time-out comes first
        acc = acc * %s + i
    tl.store(x_ptr + offsets, acc)


tritonscope_defaults = {"BLOCK": 128}
"""


def test_a_time_out_in_the_compiler_says_which_step_it_was_in(tmp_path):
    """A compile past its time limit inside Triton (no line of the user's to name) says Triton's step."""
    kernel = tmp_path / "unrolled.py"
    kernel.write_text(UNROLLED % f"1.{os.getpid()}")  # a constant of its own: no Triton cache entry has it

    async def check(client):
        structured(await client.call_tool("samples", {}))  # the worker is up: its time-out is the compile's
        slow = await client.call_tool("dump", {"kernel_file": str(kernel), "target": "sm80", "timeout": 2})
        said = result_text(slow)
        assert slow.is_error and re.search(r"timed out after 2 s \(in Triton's \w+ \(\w+\.py:\d+\)\)", said), said

    serving(check)


SPIN = """import triton
import triton.language as tl


@triton.jit
def spin(x_ptr, n):
    acc = 0.0
    for i in range(n):
        acc += tl.load(x_ptr + i % 4)
    tl.store(x_ptr, acc)
"""


def test_a_grid_past_its_time_limit_names_the_kernel_line_the_interpreter_was_on(tmp_path):
    """grid's task runs the interpreter in workers of its own, under the call's timeout: theirs ends
    first and says the line, not the task's wait for them (`in tritonscope's _settled`)."""
    kernel = tmp_path / "spin.py"
    kernel.write_text(SPIN)

    async def check(client):
        asked = {"kernel_file": str(kernel), "args": {"n": 10**9}, "grid_size": [1], "timeout": 3}
        slow = await client.call_tool("grid", asked)
        said = result_text(slow)
        assert slow.is_error and f"for more than 3 s: stuck at {kernel}:9" in said, said
        assert "tritonscope's" not in said and 'give smaller sizes (args {"N": 1024})' in said

    serving(check)


def test_the_servers_timeout_and_malformed_calls_are_said_with_what_to_do(tmp_path):
    """`mcp --timeout N` is the limit of a call that gives none (each tool's own default had won); a
    cursor the tool never gave, inputs of the wrong type, an unknown tool and trace's `timeout` (its
    input is time_limit) are tool errors that say what to do, not an empty message or pydantic's text."""
    kernel = tmp_path / "unrolled.py"
    kernel.write_text(UNROLLED % f"2.{os.getpid()}")  # a constant of its own: no Triton cache entry has it

    async def check(client):
        structured(await client.call_tool("samples", {}))  # the worker is up: its time-out is the compile's
        slow = await client.call_tool("dump", {"kernel_file": str(kernel), "target": "sm80"})
        said = result_text(slow)
        assert slow.is_error and "timed out after 2 s" in said and "hint: give the call a larger timeout" in said
        bogus = await client.call_tool("dump", {"kernel_file": "sample:vector_add", "cursor": "bogus:3"})
        assert bogus.is_error and "cursor 'bogus:3' is not one this tool gave" in result_text(bogus)
        typed = await client.call_tool("dump", {"kernel_file": "sample:vector_add", "max_lines": "many"})
        said = result_text(typed)
        assert typed.is_error and said.startswith("error: dump's inputs: max_lines:") and "pydantic" not in said
        assert "given 'many'" in said, said
        for wrong in (True, "8", 8.0):  # taken as 1, 8 and 8 warps: the API refuses each (h22a)
            typed = await client.call_tool("dump", {"kernel_file": "sample:vector_add", "num_warps": wrong})
            said = result_text(typed)
            assert typed.is_error and said.startswith("error: dump's inputs: num_warps:"), said
        unknown = await client.call_tool("nosuch_tool", {})
        assert unknown.is_error and "no tool named 'nosuch_tool'; the tools are samples" in result_text(unknown)
        trace = await client.call_tool("trace", {"command": ["python", "-c", "pass"], "timeout": 5})
        assert trace.is_error and "did you mean time_limit?" in result_text(trace)

    serving(check, "--timeout", "2")


def _answer_bytes(result) -> int:
    return sum(len(part.text.encode()) for part in result.content)


def test_default_answers_fit_8_kb_and_every_part_pages():
    """explain of fused_attention, and every kernel tool on the largest sample (the Gluon attention), answer
    within 8 KB when max_lines is not given; with max_lines, every part is cut to it, the time model's
    lines too, and a part's cursor goes on with it."""
    gluon = {"kernel_file": "sample:fused_attention_gluon"}
    calls = [
        ("explain", {"kernel_file": "sample:fused_attention"}),
        ("list_kernels", gluon),
        ("dump", gluon),
        ("explain", gluon),
        ("check", {**gluon, "budgets": ["spills=0"]}),
        ("diff", {**gluon, "vary": {"num_warps": [4, 8]}}),
        ("passes", gluon),
        ("layout", gluon),
        # a program of a 128-row tile reads a run per row: one program's item was 67 KB
        ("grid", {"kernel_file": "sample:matmul", "args": {"M": 1152, "N": 1152, "K": 1152}, "wave": 9}),
    ]
    whole = cli_json("explain", "sample:fused_attention", "-t", "sm90")

    async def check(client):
        for name, asked in calls:
            answer = await client.call_tool(name, asked)
            document = structured(answer)
            compact = json.dumps(document, separators=(",", ":"))
            assert _answer_bytes(answer) < 8192 and len(compact.encode()) < 8192, (name, _answer_bytes(answer))
        explained = structured(await client.call_tool("explain", {**calls[0][1], "max_lines": 5}))
        assert len(explained["time"]["lines"]) == 5 and len(explained["lines"]) == 5
        assert explained["page"]["time.lines"] == {
            "shown": [0, 4],
            "total": len(whole["time"]["lines"]),
            "next_cursor": "time.lines:5",
        }
        more = structured(await client.call_tool("explain", {**calls[0][1], "max_lines": 5, "cursor": "time.lines:5"}))
        assert more["time"]["lines"] == whole["time"]["lines"][5:10]

    serving(check)


_BLOCKED_SERVER = """
import importlib.abc, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("triton", "torch"):
            raise ImportError(f"blocked in the server process: {name}")
        return None

sys.meta_path.insert(0, Blocked())
sys.argv = ["tritonscope", "mcp"]
from tritonscope.cli import main
main()
"""


def test_the_server_process_never_imports_triton():
    """With Triton and torch blocked in the server process (its workers import them), a dump and an
    explain are answered: the server parses no IR and computes no figure itself."""

    async def check(client):
        dump = structured(await client.call_tool("dump", {"kernel_file": "sample:softmax", "target": "sm90"}))
        explain = structured(await client.call_tool("explain", {"kernel_file": "sample:softmax", "target": "sm90"}))
        assert dump["resources"]["registers"] == explain["resources"]["registers"] > 0

    serving(check, python=[sys.executable, "-c", _BLOCKED_SERVER])


def test_without_the_sdk_the_command_says_what_to_install(tmp_path):
    """Where the MCP SDK is not installed, `tritonscope mcp` is exit 2 with the pip command."""
    blocker = tmp_path / "mcp"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ModuleNotFoundError('No module named mcp', name='mcp')\n")
    done = tritonscope("mcp", expect=2, env={"PYTHONPATH": str(tmp_path)})
    assert 'pip install "tritonscope[mcp]"' in done.stderr


def test_the_agents_worked_session_says_its_release_and_what_the_agent_answers():
    """docs/agents.md's figures name the Triton release that made them (the pinned one: this file
    runs on it alone), and the explain answer it shows is the summary the agent gives now (issue 55:
    `1 blocks/SM`, `12%` beside `12.5%`, no release)."""
    import triton

    from tritonscope.agent.summaries import summary
    from tritonscope.app.explain import explain_compilation
    from tritonscope.app.walk.prepare import compile_request
    from tritonscope.core.model import VariantRequest
    from tritonscope.core.samples import sample_path
    from tritonscope.render.registry import renderer
    from tritonscope.results.explain import ExplainResult

    text = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text(encoding="utf-8")
    release = re.search(r"were made with Triton (\d+\.\d+\.\d+)", " ".join(text.split()))
    assert release is not None and release.group(1) == triton.__version__
    shown = text.split('1. `explain {"kernel_file": "sample:matmul", "target": "sm80"}`')[1].split("```")[1]
    explained = explain_compilation(compile_request(VariantRequest(str(sample_path("matmul")), target="sm80")))
    answer = summary(json.loads(renderer(ExplainResult, "json").render(explained)))
    assert [line.strip() for line in shown.strip().splitlines()] == answer.splitlines()


def test_messages_that_name_a_command_line_only_step_say_the_tools_instead():
    """check's missing baseline said "the same command with --update-baseline", an input no tool has;
    a helper-only file pointed at `tritonscope list FILE` (h22a)."""
    from tritonscope.agent.answers import as_inputs

    said = as_inputs("error: --baseline b.json does not exist yet\nhint: the same command with --update-baseline")
    assert "--update-baseline" not in said and "save the dump tool's JSON document of the same inputs" in said
    said = as_inputs("hint: compile a kernel that calls them (tritonscope list FILE shows each helper's callers)")
    assert said == "hint: compile a kernel that calls them (the list_kernels tool shows each helper's callers)"
