"""`tritonscope mcp`: the Model Context Protocol server, over stdio, on the official SDK.

Each tool (tools.py) is registered with its inputs, its description and its output schema (the
`--json` document of its kind, documents.py); its answer comes from answers.py. The session's warm
worker starts with the server, so that the first call finds Triton imported."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import typing
from typing import IO, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Strict, ValidationError

from .. import __version__
from ..core import inputs
from ..core.errors import TritonscopeError
from ..isolate.session import Session
from . import documents, tools
from .answers import Answers, tool_error
from .resources import Resources

INSTRUCTIONS = """tritonscope shows what the Triton compiler does to a GPU kernel, with the real compiler and no GPU.
Which tool answers which question:
- why is it slow, which line spills: explain (per-line cost, findings with evidence and what to try)
- what did the compiler make of it, what did line N become: dump (stages a page at a time; line=N)
- does it fit on an A10 / an H100: check with target sm86 / sm90 and budgets (spills=0, registers<=128)
- which config, target or release is better; what changed between Triton 3.6 and 3.9: diff with vary
- which pass did it: passes (show=NAME for one pass's change)
- a whole program's kernels: trace (target=sm90 needs no GPU), then capture_list, capture_diff, capture_check
Answers are cut to fit: each part says what is shown and its next_cursor; ask again with cursor for more.
Kernels: a file path, sample:NAME (the samples tool), pkg.module:kernel, or a capture's DIR/:NAME."""

# Tools that change something outside tritonscope's answers: trace runs a program and writes a folder.
_ACTING = {"trace"}


class _Server(MCPServer):
    """The SDK's server, refusing a tool input it does not know with the names it does: the SDK
    would drop it, and a typo (`num_warp`) would compile another variant than the one asked for."""

    known: dict[str, list[str]]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name not in self.known:
            raise ToolError(f"error: no tool named {name!r}; the tools are {', '.join(self.known)}")
        try:
            inputs.refuse_unknown(arguments, self.known[name])
        except TritonscopeError as exc:
            raise tool_error(exc) from None
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the SDK's: pydantic's own words and a link
                raise ToolError(_invalid(name, exc.__cause__)) from None
            wrapped = f"Error executing tool {name}: "  # the SDK's words before a tool's own error
            if str(exc).startswith(wrapped):  # said as the inputs' errors are: `error: ...` alone
                raise ToolError(str(exc).removeprefix(wrapped)) from None
            raise


def _strict(hint: Any) -> Any:
    """A number's or a flag's input taken as given: pydantic would take `num_warps: true` as 1 warp and
    "8" as 8 warps, where the Python API refuses both (h22a)."""
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is Annotated else hint
    members = typing.get_args(base) or (base,)
    return Annotated[hint, Strict()] if any(m in (int, float, bool) for m in members) else hint


def _invalid(tool: str, error: ValidationError) -> str:
    """Inputs the tool's schema refuses, one per line, in an agent's terms."""
    lines = []
    for each in error.errors():
        where = ".".join(str(part) for part in each["loc"]) or "the inputs"
        given = f" (given {each['input']!r})" if each["type"] != "missing" else ""
        lines.append(f"{where}: {each['msg'].lower()}{given}")
    return f"error: {tool}'s inputs: " + "; ".join(lines) + "\nhint: the tool's input schema gives each input's type"


def build(answers: Answers) -> MCPServer:
    """The server: every tool of tools.py and the resources, answered through `answers`."""
    server = _Server("tritonscope", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    server.known = {tool.__name__: list(inspect.signature(tool).parameters) for tool in tools.TOOLS}
    resources = Resources(server, answers)
    answers.seen = resources.seen
    for tool in tools.TOOLS:
        hints = ToolAnnotations(
            read_only_hint=tool.__name__ not in _ACTING,
            destructive_hint=False,
            idempotent_hint=tool.__name__ not in _ACTING,
            open_world_hint=tool.__name__ in _ACTING,
        )
        server.add_tool(_answered(answers, tool), name=tool.__name__, annotations=hints, structured_output=True)
    return server


def _answered(answers: Answers, tool):
    """The tool as the SDK calls it: its inputs validated, its Ask answered, its failures tool errors."""

    @functools.wraps(tool)
    async def answered(**values: Any) -> CallToolResult:
        try:
            ask = tool(**values)
        except TritonscopeError as exc:
            raise tool_error(exc) from None
        return await answers.reply(ask)

    hints = typing.get_type_hints(tool, include_extras=True)
    parameters = [p.replace(annotation=_strict(hints[p.name])) for p in inspect.signature(tool).parameters.values()]
    returned = Annotated[CallToolResult, documents.output_of(tool.__name__)]
    answered.__signature__ = inspect.Signature(parameters, return_annotation=returned)  # type: ignore[attr-defined]
    del answered.__wrapped__  # type: ignore[attr-defined]  # the SDK reads the signature above
    return answered


def serve(session: Session, stdout: IO[str] | None = None) -> None:
    """Serves MCP on stdin and stdout until the client closes stdin, answering through `session`.
    `stdout` is the command line's own copy of stdout (file descriptor 1 points at stderr while a
    command runs): the protocol goes back on descriptor 1, which the SDK takes for itself and points
    at stderr again while it serves, so that nothing a kernel or a program prints reaches the wire."""
    server = build(Answers(session))
    if stdout is not None:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # not a file: descriptor 1 as it is
            stdout.flush()
            os.dup2(stdout.fileno(), 1)
    server.run("stdio")
