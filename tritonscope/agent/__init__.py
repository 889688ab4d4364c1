"""The agent server: `tritonscope mcp`, tritonscope's facts as Model Context Protocol tools, for coding
agents (docs/agents.md). A front end beside cli/: it turns a tool's inputs into the command line's
typed requests (core/forms.py), runs the same app functions in a warm worker (app/calls.py, through
isolate/session.py), and answers with their `--json` documents, cut to what was asked for. It never
imports Triton, parses IR or computes a figure itself. Needs the `mcp` extra: pip install "tritonscope[mcp]".
"""

from __future__ import annotations

from typing import IO

from ..core.errors import UsageError


def serve(stdout: IO[str] | None = None, timeout: float | None = None) -> None:
    """Serves until the client closes stdin (server.py); a clear message where the SDK is missing.
    The session's worker starts first, so that its imports (Triton's) overlap the SDK's. `timeout`:
    every call's limit that gives none (None: each tool's own, agent/inputs.py)."""
    from ..app import calls
    from ..isolate.session import Session
    from . import inputs

    inputs.server_timeout = timeout
    session = Session(preload=calls.COMPILE_MODULE, timeout=timeout or 600.0).warm()
    try:
        try:
            from .server import serve as run
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types", "pydantic", "anyio"):
                raise
            raise UsageError(
                f"tritonscope mcp needs the MCP Python SDK ({exc.name} is missing)",
                hint='pip install "tritonscope[mcp]"',
            ) from None
        run(session, stdout)
    finally:
        session.close()
