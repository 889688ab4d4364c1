"""What an agent gives a tool: the variant inputs of core/inputs.py as pydantic annotations (each
with the description it reads), turned into the same VariantRequest the command line's flags make
(core/forms.py `request_of`).

`variant_inputs` gives a tool the variant inputs, as cli/options.py's `variant_flags` gives a
command its flags (both through core/inputs.py `taking_request`): the tool declares a `request`
parameter, the agent sees the kernel file, the kernel, constexprs, args, dtype, target, the options
and the release, then the tool's own inputs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..core import forms, inputs
from ..core.model import VariantRequest

Timeout = Annotated[
    float | None,
    Field(
        description="Seconds the call may take; a kernel that hangs the compiler is stopped then. Default: the "
        "server's --timeout, else the tool's own (120 s for listings, 300 s for one compile, 600 s for sweeps).",
        gt=0,
    ),
]
server_timeout: float | None = None  # `tritonscope mcp --timeout N`: every call's limit that gives none


def call_limit(given: float | None, own: float) -> float:
    """A call's time limit: its own `timeout`, else the server's --timeout, else the tool's default."""
    return given if given is not None else server_timeout if server_timeout is not None else own


def _field(i: inputs.Input) -> Any:
    """An input as the agent reads it: its JSON type, described in the agent's terms."""
    return Annotated[i.type, Field(description=i.agent_help or i.help)]


def variant_inputs(tool):
    """Gives a tool the variant inputs before its own; it gets them as `request`."""
    parameters = inputs.signature(inputs.taken_by(inputs.AGENT), inputs.AGENT, _field)
    return inputs.taking_request(tool, parameters, lambda given: forms.request_of(given, inputs.AGENT))


def request(kernel_file: str, **values: Any) -> VariantRequest:
    """The request the command line makes of the same flags: FILE parsed once, values typed once."""
    return forms.request_of({"kernel_file": kernel_file, **values}, inputs.AGENT)
