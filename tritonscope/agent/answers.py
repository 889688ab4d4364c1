"""How a tool call is answered: its task run in the session's warm worker (or its kept value taken),
the result drawn as its `--json` document (render/registry.py), cut to what was asked for
(pages.py), and returned with a short summary first (summaries.py). A failure is a tool error the
agent can act on: the command line's message, its file and line, and what to do."""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from ..core import inputs
from ..core.errors import TritonscopeError
from ..isolate import Cancelled, Task
from ..isolate.session import Session
from ..render.registry import render
from . import summaries
from .pages import Document


@dataclass(frozen=True)
class Ask:
    """What a tool asks: the task that computes the result, its time limit, the files its answer
    depends on, how the result's document is cut for this call, and whether the answer is kept."""

    task: Task
    timeout: float
    inputs: tuple[str, ...] = ()
    cut: Callable[[Document], Document] = dict
    keep: bool = True  # False: a task that acts (trace runs a program) runs again each time


class Answers:
    """The session, and the documents of the results it keeps (drawn once each)."""

    def __init__(self, session: Session, keep: int = 16):
        self.session = session
        self._documents: OrderedDict[int, tuple[Any, Document]] = OrderedDict()  # id(result) -> it, its document
        self._keep = keep
        self.seen: Callable[[Document], None] | None = None  # told each whole document (resources.py)

    async def reply(self, ask: Ask) -> CallToolResult:
        """The tool's answer: a summary, then the document as JSON, which is also the structured content."""
        whole = self.document(await self.result(ask))
        if self.seen is not None:
            self.seen(whole)
        document = ask.cut(whole)
        text = json.dumps(document, indent=1, allow_nan=False)
        summary = TextContent(type="text", text=summaries.summary(document))
        return CallToolResult(content=[summary, TextContent(type="text", text=text)], structured_content=document)

    async def result(self, ask: Ask) -> Any:
        """The task's value; its failure as a tool error. A call the client cancels ends its task."""
        call = self.session.call(ask.task, ask.timeout, ask.inputs, ask.keep)
        try:
            return await anyio.to_thread.run_sync(call.result, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            call.cancel()
            raise
        except Cancelled:
            raise ToolError("the call was cancelled before it finished") from None
        except TritonscopeError as exc:
            raise tool_error(exc) from None
        except RuntimeError as exc:  # a task's exit code 3: a bug, said as one
            raise ToolError(f"internal error: {exc}; this is a bug in tritonscope") from None

    def document(self, result: Any) -> Document:
        """The result's `--json` document, drawn once while the session keeps the result."""
        kept = self._documents.get(id(result))
        if kept is not None and kept[0] is result:
            self._documents.move_to_end(id(result))
            return kept[1]
        drawn = render(result, "json")
        assert isinstance(drawn, str)  # every result's JSON document is text
        document = json.loads(drawn)
        self._documents[id(result)] = (result, document)
        while len(self._documents) > self._keep:
            self._documents.popitem(last=False)
        return document


def tool_error(exc: TritonscopeError) -> ToolError:
    """A tritonscope error as the command line says it, the message then the hint, with the flags it
    names said as the tool's inputs: an agent sets `kernel`, not `-k`."""
    hint = f"\nhint: {exc.hint}" if exc.hint else ""
    return ToolError(as_inputs(f"error: {exc.message}{hint}"))


# The command line's flags and the tool inputs that stand for them (core/inputs.py). An example
# command (`tritonscope dump FILE -k NAME -c BLOCK=...`) becomes the inputs it sets.
_AGENT = inputs.taken_by(inputs.AGENT)
_VALUES = {i.short.lstrip("-"): i.name_in(inputs.AGENT) for i in _AGENT if i.pairs and i.short}  # c: constexprs
_EXAMPLE = re.compile(r"tritonscope \w+ \S+((?: -[kca] \S+)+)")
_VALUE = re.compile(rf"-([{''.join(_VALUES)}]) (\w+)=([^\s),]+)")
_FLAGS = [
    *(
        (re.compile(rf"(?<![\w-])(?:{i.short}/)?{i.flag}\b"), i.name_in(inputs.AGENT))  # -w/--num-warps, --dtype
        for i in _AGENT
        if i.flag
    ),
    (re.compile(r"(?<![\w-])-k NAME\b"), "the kernel input"),
    (re.compile(r"(?<![\w-])-k (\w+)"), r'kernel="\1"'),
    (re.compile(r"(?<![\w-])-k\b"), "kernel"),
]


def as_inputs(text: str) -> str:
    """`text` with the command line's variant flags named as the tool inputs that set them."""
    text = _EXAMPLE.sub(lambda m: m.group(1).strip(), text)
    text = _VALUE.sub(lambda m: f'{_VALUES[m.group(1)]} {{"{m.group(2)}": {m.group(3)}}}', text)
    for flag, name in _FLAGS:
        text = flag.sub(name, text)
    return text
