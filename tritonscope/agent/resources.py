"""What an agent can read without a tool call: the bundled samples (the list, each one's source) and
the kernels of every capture a tool has named in this session (trace, capture_list), each as its
`dump` document of the captured compile (nothing compiled), cut as the dump tool cuts by default.

A capture is named by its number in this session (tritonscope://captures/1/kernels/NAME), never by
its path: a resource's address reads only what a tool was given."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource

from ..app import calls
from ..isolate import task
from . import pages
from .answers import Answers, Ask
from .inputs import request

SAMPLES = "tritonscope://samples"
CAPTURE_KERNEL = "tritonscope://captures/{number}/kernels/{name}"


class Resources:
    def __init__(self, server: MCPServer, answers: Answers):
        self.server, self.answers = server, answers
        self.captures: dict[str, int] = {}  # folder -> its number
        self.listed: set[str] = set()
        server.resource(SAMPLES, name="samples", mime_type="application/json")(self.samples)
        server.resource(f"{SAMPLES}/{{name}}", name="sample source", mime_type="text/x-python")(self.sample)
        server.resource(CAPTURE_KERNEL, name="captured kernel", mime_type="application/json")(self.kernel)

    async def samples(self) -> str:
        """The bundled sample kernels: name, kernels, what each shows, and its resource address."""
        document = await self._document(Ask(task(calls.samples), 60.0))
        rows = [{**sample, "uri": f"{SAMPLES}/{sample['name']}"} for sample in document["samples"]]
        return json.dumps({**document, "samples": rows}, indent=1)

    async def sample(self, name: str) -> str:
        """A sample's Python source (its kernels, their defaults and hooks)."""
        found = [s for s in (await self._document(Ask(task(calls.samples), 60.0)))["samples"] if s["name"] == name]
        if not found:
            raise ResourceNotFoundError(f"no sample named {name}: {SAMPLES} lists them")
        return Path(found[0]["path"]).read_text()

    async def kernel(self, number: str, name: str) -> str:
        """A kernel of a capture this session has seen: its dump document, read from the capture."""
        folders = {str(n): folder for folder, n in self.captures.items()}
        if number not in folders:
            raise ResourceNotFoundError(f"no capture {number} in this session: trace or capture_list names one")
        wanted = request(f"{folders[number].rstrip('/')}/:{name}")
        ask = Ask(task(calls.dump, wanted, None, None), 300.0, (folders[number],))
        return json.dumps(pages.dump(await self._document(ask), count=40, cursor=None), indent=1)

    def seen(self, document: pages.Document) -> None:
        """A tool's document: a capture it names gets a number, its kernels a resource each."""
        if document["kind"] == "trace":
            self.add(str(document["out"]), document["kernels"])
        elif document["kind"] == "cache list":
            self.add(str(document["folder"]), [k["name"] for k in document["kernels"]])

    def add(self, folder: str, names: list[str]) -> None:
        number = self.captures.setdefault(folder, len(self.captures) + 1)
        for name in dict.fromkeys(names):
            uri = CAPTURE_KERNEL.format(number=number, name=name)
            if uri in self.listed:
                continue
            self.listed.add(uri)
            read = functools.partial(self.kernel, str(number), name)
            description = f"{name} as captured in {folder}: its dump document (kernel_file {folder}/:{name})"
            self.server.add_resource(
                FunctionResource(
                    uri=uri, name=f"{name} ({folder})", description=description, mime_type="application/json", fn=read
                )
            )

    async def _document(self, ask: Ask) -> pages.Document:
        try:
            return self.answers.document(await self.answers.result(ask))
        except ToolError as exc:
            raise ResourceError(str(exc)) from None
