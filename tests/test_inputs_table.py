"""The one table of the variant inputs (core/inputs.py) held against every front end that reads it:
each compiling command's `--help`, the agent server's tool schemas (through the MCP SDK's client),
the Python API's keywords, the reproduce line (`Variant.command_line`, parsed back into the same
variant) and the what-ifs' wording; an input added to the table reaches the command line, the agent
and the Python API; an input the agent server does not know is refused, not dropped."""

from __future__ import annotations

import inspect
import os
import re
import shlex
import sys
import typing

import anyio
import pytest
import typer
from typer.testing import CliRunner

from tritonscope.analysis.findings import WhatIf, what_if_flags
from tritonscope.app.explain import changed
from tritonscope.app.walk.prepare import prepare
from tritonscope.cli import app
from tritonscope.cli.options import (
    ArgOpt,
    ConstexprOpt,
    FileArg,
    JsonOpt,
    KernelOpt,
    TargetOpt,
    WarpsOpt,
    _option,
    request_from_words,
    variant_flags,
)
from tritonscope.core import forms, inputs
from tritonscope.core.errors import UsageError
from tritonscope.core.model import OPTION_NAMES

RUNNER = CliRunner()


def _words(text: str) -> str:
    """Text with its line breaks and indents as single spaces: help as typer wraps it."""
    return " ".join(text.split())


def _help(command: str) -> str:
    result = RUNNER.invoke(app, [command, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return _words(result.output)


@pytest.mark.parametrize("command", sorted(set().union(*(i.commands for i in inputs.INPUTS))))
def test_every_command_shows_the_inputs_it_takes_with_their_help(command):
    shown = _help(command)
    taken = inputs.taken_by(inputs.CLI, command)
    for i in taken:
        if i.flag:
            spelled = f"{i.short}, {i.flag}" if i.short else i.flag
            assert re.search(rf"(?<![\w-]){re.escape(spelled)}\b", shown), (command, spelled)
        assert _words(i.help) in shown or (i.name == "file" and command == "check"), (command, i.name)
    for i in inputs.INPUTS:
        assert i in taken or _words(i.help) not in shown, (command, i.name)  # the table names it
    if command in inputs.COMPILING:  # the flags in the table's order
        options = shown.split("Options:", 1)[1]
        places = [options.index(f"{i.flag} ") for i in taken if i.flag]
        assert places == sorted(places), command


def test_the_commands_that_take_a_few_inputs_get_the_tables_types():
    """list, bench, profile and layout name their few inputs one by one, each typed as `_option` would."""
    for name, alias in [
        ("file", FileArg),
        ("kernel", KernelOpt),
        ("constexprs", ConstexprOpt),
        ("args", ArgOpt),
        ("target", TargetOpt),
        ("num_warps", WarpsOpt),
    ]:
        made = typing.get_args(_option(inputs.named(name)))
        assert typing.get_args(alias)[0] == made[0] and vars(typing.get_args(alias)[1]) == vars(made[1]), name


def _schemas() -> dict:
    """Every tool's input schema as the SDK's client lists it, and what an unknown input gets, from
    the server as an MCP client starts it (tests/test_agent.py)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    found: dict = {}
    server = StdioServerParameters(command=sys.executable, args=["-m", "tritonscope", "mcp"], env=dict(os.environ))

    async def main():
        async with Client(server, read_timeout_seconds=600) as client:
            found["tools"] = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            typo = {"kernel_file": "sample:vector_add", "target": "sm90", "num_warp": 8}
            found["typo"] = await client.call_tool("explain", typo)
            found["none"] = await client.call_tool("samples", {"bogus": 1})
            found["after"] = await client.call_tool("dump", {"kernel_file": "sample:vector_add", "stages": ["ttir"]})

    anyio.run(main)
    return found


def test_the_agent_servers_tools_take_the_tables_inputs_and_refuse_others():
    pytest.importorskip("mcp", reason="the test extra installs the MCP SDK")
    found = _schemas()
    taken = inputs.taken_by(inputs.AGENT)
    compiling = [name for name, schema in found["tools"].items() if "constexprs" in schema["properties"]]
    assert set(compiling) == {"dump", "explain", "check", "diff", "passes", "layout", "grid"}
    for tool in compiling:
        properties = found["tools"][tool]["properties"]
        names = [i.name_in(inputs.AGENT) for i in taken]
        assert list(properties)[: len(names)] == names, tool  # first, in the table's order
        for i in taken:
            given = properties[i.name_in(inputs.AGENT)]
            assert given["description"] == (i.agent_help or i.help), (tool, i.name)
            assert given.get("default", inputs.REQUIRED) == i.default, (tool, i.name)
        assert "kernel_file" in found["tools"][tool]["required"]
    typo = found["typo"]
    text = typo.content[0].text
    assert typo.is_error and "unknown input num_warp (did you mean num_warps?)" in text, text
    assert all(name in text for name in ("kernel_file", "constexprs", "num_warps", "what_if")), text
    named = ", ".join(found["tools"]["samples"]["properties"]) or "none"  # the tool's own inputs
    assert found["none"].is_error and f"unknown input bogus. Inputs: {named}" in found["none"].content[0].text
    assert not found["after"].is_error  # the server still answers


# Each input of `dump` given a value other than its default, as words, and what the reproduce
# line shows of it; the inputs of a program's run are resolved into its launch's kernel first.
GIVEN = {
    "kernel": ["-k", "matmul_kernel"],
    "constexprs": ["-c", "GROUP_SIZE_M=4"],
    "args": ["-a", "M=1024"],
    "dtype": ["--dtype", "fp16"],
    "target": ["-t", "sm80"],
    "num_warps": ["-w", "8"],
    "num_stages": ["-s", "2"],
    "num_ctas": ["--num-ctas", "1"],
    "maxnreg": ["--maxnreg", "128"],
    "config": ["--config", "1"],
    "no_specialize": ["--no-specialize"],
    "triton": ["--triton", "3.6.0"],  # the running release: nothing to install
}
FOLDED = {"file": "sample:matmul_autotune", "dtype": "-a 'a_ptr=*fp16'"}  # shown by another name
RUN_ONLY = {"from_run", "launch", "on_read"}


def test_the_reproduce_line_shows_every_input_and_gives_the_same_variant():
    taken = {i.name for i in inputs.taken_by(inputs.CLI, "dump")}
    assert taken == {"file", *GIVEN, *RUN_ONLY}, "say how the reproduce line shows a new input"
    words = [word for name in GIVEN for word in GIVEN[name]]
    variant = prepare(request_from_words(FOLDED["file"], words, "the test")).variant
    line = variant.command_line()
    for name, given in GIVEN.items():
        i = inputs.named(name)
        shown = FOLDED.get(name) or shlex.join([i.spelled, given[1]] if len(given) > 1 else [i.spelled])
        assert f" {shown}" in line, (name, line)
    again = shlex.split(line)
    assert again[:3] == ["tritonscope", "dump", FOLDED["file"]]
    assert prepare(request_from_words(again[2], again[3:], "the reproduce line")).variant == variant


def test_a_what_if_reads_as_the_flags_that_ask_for_it():
    base = request_from_words("sample:matmul", ["-t", "sm80"], "the test")
    asked = [
        *(WhatIf("option", name, 2) for name in OPTION_NAMES),
        WhatIf("constexpr", "BLOCK_SIZE_K", 64),
        WhatIf("arg", "M", 4096),
    ]
    for what_if in asked:
        wording = what_if_flags((what_if,))
        name = what_if.name if what_if.what == "option" else f"{what_if.what}s"
        assert wording.split()[0] == (
            inputs.named(name).flag if what_if.what == "option" else inputs.named(name).spelled
        )
        parsed = request_from_words("sample:matmul", ["-t", "sm80", *shlex.split(wording)], "the what-if")
        assert parsed == changed(base, (what_if,)), wording
    assert what_if_flags((WhatIf("option", "maxnreg", None),)) == "without --maxnreg"
    assert what_if_flags((WhatIf("option", "specialize", True),)) == "with specialization"


def test_the_python_apis_keywords_come_from_the_table_and_make_the_same_request():
    keywords = inputs.signature(inputs.taken_by(inputs.API), inputs.API)
    first, rest = keywords[0], keywords[1:]
    assert first.name == "kernel" and first.default is inputs.REQUIRED  # a path, or the kernel itself
    assert [p.name for p in rest][:2] == ["kernel_name", "constexprs"] and "from_run" not in [p.name for p in rest]
    constexpr_values = inspect.Parameter("constexpr_values", inspect.Parameter.VAR_KEYWORD)
    api = inspect.Signature([first.replace(kind=inspect.Parameter.POSITIONAL_ONLY), *rest, constexpr_values])
    call = api.bind("sample:vector_add", BLOCK_SIZE=1024, args={"x_ptr": "*fp16"}, target="sm90", num_warps=4)
    values = dict(call.arguments)
    values["constexprs"] = values.pop("constexpr_values")  # tritonscope.dump(kernel, BLOCK_SIZE=1024, ...)
    flags = ["-c", "BLOCK_SIZE=1024", "-a", "x_ptr=*fp16", "-t", "sm90", "-w", "4"]
    assert forms.request_of(values, inputs.API) == request_from_words("sample:vector_add", flags, "the test")
    with pytest.raises(UsageError, match=r"unknown input num_warp \(did you mean num_warps\?\)\. Inputs: kernel,"):
        forms.request_of({"kernel": "sample:vector_add", "num_warp": 8}, inputs.API)
    with pytest.raises(UsageError, match="give kernel"):
        forms.request_of({"num_warps": 8}, inputs.API)


def test_an_input_added_to_the_table_reaches_every_front_end(monkeypatch):
    """A new row, and nothing else: the command line's option with its help, the agent's input with
    its description, the Python API's keyword and the printed flag; only the commands it names."""
    from mcp.server.mcpserver.utilities.func_metadata import func_metadata

    from tritonscope.agent.inputs import variant_inputs

    unroll = inputs.Input(
        "unroll", int | None, None, "Unroll loops this many times.", "--unroll", "-u", commands=frozenset({"dump"})
    )
    monkeypatch.setattr(inputs, "INPUTS", (*inputs.INPUTS, unroll))

    def dump(request, json_out: JsonOpt = False): ...

    def explain(request): ...

    def tool(request, max_lines: int = 40): ...

    command = typer.Typer(rich_markup_mode=None)
    command.command()(variant_flags(dump))
    shown = _words(RUNNER.invoke(command, ["--help"], env={"COLUMNS": "200"}).output)
    assert "-u, --unroll <int> Unroll loops this many times." in shown
    assert shown.index("--on-read") < shown.index("--unroll") < shown.index("--json")
    assert "unroll" not in inspect.signature(variant_flags(explain)).parameters  # not a command it names
    schema = func_metadata(variant_inputs(tool)).arg_model.model_json_schema()["properties"]
    assert schema["unroll"]["description"] == "Unroll loops this many times." and list(schema)[-2:] == [
        "unroll",
        "max_lines",
    ]
    assert "unroll" in [p.name for p in inputs.signature(inputs.taken_by(inputs.API), inputs.API)]
    assert inputs.command_words({"unroll": 4}) == ["-u", "4"]


def test_the_table_is_plain_data():
    """core/ may not import typer or pydantic: the front ends make their annotations."""
    source = inspect.getsource(inputs)
    assert not re.search(r"^\s*(import|from) (typer|pydantic)", source, re.MULTILINE)
    assert all(isinstance(i.help, str) and i.help.endswith(".") for i in inputs.INPUTS)
    names = [i.name for i in inputs.INPUTS]
    assert len(names) == len(set(names))
    for front in (inputs.CLI, inputs.AGENT, inputs.API):
        spelled = [i.name_in(front) for i in inputs.taken_by(front)]
        assert len(spelled) == len(set(spelled)), front


def test_a_value_varied_twice_is_one_variant():
    """--vary M=16,16 compiled every variant twice; 1, 1.0 and "1" stay three (an int, a float, a string)."""
    assert forms.axes(["M=16,16,32", 'B=1,1.0,"1"']) == [("M", (16, 32)), ("B", (1, 1.0, "1"))]
