from __future__ import annotations

from ..messages import say
from ..options import TimeoutOpt
from ..runner import ENV, command


@command("mcp")
def mcp(timeout: TimeoutOpt = 300.0):
    """Serve tritonscope to coding agents: a Model Context Protocol server on stdin and stdout.

    An MCP client (Claude Code, Cursor, VS Code, Codex...) starts it and calls its tools: samples,
    list_kernels, dump, explain, check, diff, passes, layout, grid, trace and the capture tools, each
    the command of its name with the same inputs, answering with its --json document cut to fit a
    context window. Compiles run in a warm worker; a kernel that hangs or crashes the compiler ends
    that worker, never the server. --timeout is each call's limit unless the call gives its own.
    Needs the MCP SDK: pip install "tritonscope[mcp]". docs/agents.md is the skill file for agents.

    Example, in a client's configuration (.mcp.json, claude_desktop_config.json):

      "mcpServers": {"tritonscope": {"command": "tritonscope", "args": ["mcp"]}}
    """
    import sys

    from ...agent import serve
    from .. import argtypes

    if sys.stdin.isatty():
        say("waiting for an MCP client on stdin: an agent's client starts this command (docs/agents.md)", "dim")
    serve(ENV.stdout, argtypes.timeout(timeout))
