from __future__ import annotations

from typing import Annotated

import typer

from ..messages import say
from ..runner import ENV, command

CallTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Each call's time limit, unless the call gives its own `timeout` (default: each tool's own, "
        "120 s for listings, 300 s for one compile, 600 s for sweeps).",
    ),
]


@command("mcp")
def mcp(timeout: CallTimeoutOpt = None):
    """Serve tritonscope to coding agents: a Model Context Protocol server on stdin and stdout.

    An MCP client (Claude Code, Cursor, VS Code, Codex...) starts it and calls its tools: samples,
    list_kernels, dump, explain, check, diff, passes, layout, grid, trace and the capture tools, each
    the command of its name with the same inputs, answering with its --json document cut to fit a
    context window. Compiles run in a warm worker; a kernel that hangs or crashes the compiler ends
    that worker, never the server. --timeout is each call's limit unless the call gives its own
    (without it, each tool's own: 120 s for listings, 300 s for one compile, 600 s for sweeps).
    Needs the MCP SDK: pip install "tritonscope[mcp]". docs/agents.md is the skill file for agents.

    Example, in a client's configuration (.mcp.json, claude_desktop_config.json):

      "mcpServers": {"tritonscope": {"command": "tritonscope", "args": ["mcp"]}}
    """
    import sys

    from ...agent import serve
    from .. import argtypes

    if sys.stdin.isatty():
        say("waiting for an MCP client on stdin: an agent's client starts this command (docs/agents.md)", "dim")
    serve(ENV.stdout, argtypes.timeout(timeout) if timeout is not None else None)
