"""How a tool call is answered: its task run in the session's warm worker (or its kept value taken),
the result drawn as its `--json` document (render/registry.py), cut to what was asked for
(pages.py), and returned with a short summary first (summaries.py). A failure is a tool error the
agent can act on: the command line's message, its file and line, and what to do."""

from __future__ import annotations

import functools
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
from ..core.errors import TimedOut, TritonscopeError
from ..isolate import Cancelled, Task
from ..isolate.session import Session
from ..render.registry import render
from . import pages, summaries
from .pages import Document

ANSWER_BYTES = 8000  # an answer asked for without max_lines is cut to this size: summary and JSON


@dataclass(frozen=True)
class Paging:
    """How a tool's document is cut for this call: its own parts by `own`, every other part too
    (pages.every_part), `count` lines or items each (max_lines; None: as many as fit ANSWER_BYTES,
    from `default`, the parts `last` names cut after every other), and the cursor that goes on with one part."""

    own: pages.Cut = pages.own_parts()
    count: int | None = None
    default: int = 40
    cursor: str | None = None
    last: tuple[str, ...] = ()

    def cut(self, document: Document) -> Document:
        size = functools.partial(answer_size, whole=document)
        fit = self.own, self.count, self.default, self.cursor, size, ANSWER_BYTES, self.last
        return pages.fitted(document, *fit)


@dataclass(frozen=True)
class Ask:
    """What a tool asks: the task that computes the result, its time limit, the files its answer
    depends on, how the result's document is cut for this call, and whether the answer is kept."""

    task: Task
    timeout: float
    inputs: tuple[str, ...] = ()
    paging: Paging = Paging()
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
        whole = worded(whole)
        try:
            document = ask.paging.cut(whole)
        except TritonscopeError as exc:  # a cursor this tool did not give
            raise tool_error(exc) from None
        summary = TextContent(type="text", text=summaries.summary(document, whole))
        text = TextContent(type="text", text=as_json(document))
        return CallToolResult(content=[summary, text], structured_content=document)

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


def as_json(document: Document) -> str:
    return json.dumps(document, separators=(",", ":"), allow_nan=False)


def answer_size(document: Document, whole: Document | None = None) -> int:
    """The bytes of the answer a (cut) document of `whole` makes: its summary and its JSON."""
    return len(summaries.summary(document, whole).encode()) + len(as_json(document).encode())


def worded(document: Document) -> Document:
    """The document with its notices and notes naming the tool inputs where they name flags."""
    said = {
        key: [as_inputs(line) if isinstance(line, str) else line for line in document[key]]
        for key in ("notices", "notes")
        if isinstance(document.get(key), list)
    }
    return {**document, **said} if said else document


def tool_error(exc: TritonscopeError) -> ToolError:
    """A tritonscope error as the command line says it, the message then the hint, with the flags it
    names said as the tool's inputs: an agent sets `kernel`, not `-k`."""
    said = _LONGER if isinstance(exc, TimedOut) or "timed out after" in exc.message else exc.hint
    hint = f"\nhint: {said}" if said else ""
    return ToolError(as_inputs(f"error: {exc.message}{hint}"))


_LONGER = "give the call a larger timeout (seconds), or compile a smaller variant (trace: time_limit)"


# The command line's flags and the tool inputs that stand for them (core/inputs.py). An example
# command (`tritonscope dump FILE -k NAME -c BLOCK=...`) becomes the inputs it sets.
_AGENT = inputs.taken_by(inputs.AGENT)
_VALUES = {i.short.lstrip("-"): i.name_in(inputs.AGENT) for i in _AGENT if i.pairs and i.short}  # c: constexprs
_EXAMPLE = re.compile(r"tritonscope \w+ \S+((?: -[kca] \S+)+)")
_VALUE = re.compile(rf"-([{''.join(_VALUES)}]) (\w+)=([^\s),]+)")
_TOOL_FLAGS = (
    ("--force", "replace=true"),
    ("-o/--out", "out"),
    ("--out", "out"),
    ("--lines", "lines"),
    ("--line", "line"),
    ("--vary", "vary"),
    ("--show", "show"),
    ("--value", "value"),
    ("--budget", "budgets"),
    ("--baseline", "baseline"),
    ("--grid", "grid_size"),
    ("--wave", "wave"),
    ("--timeout", "timeout"),
    ("--time-limit", "time_limit"),
)
_FLAGS = [
    *(  # `choose with --target`: the input, in an agent's words
        (re.compile(rf"(?<=with )(?:{i.short}/)?{i.flag}\b"), f"the {i.name_in(inputs.AGENT)} input")
        for i in _AGENT
        if i.flag
    ),
    *(
        (re.compile(rf"(?<![\w-])(?:{i.short}/)?{i.flag}\b"), i.name_in(inputs.AGENT))  # -w/--num-warps, --dtype
        for i in _AGENT
        if i.flag
    ),
    (re.compile(r" \(or --configs\)"), ""),  # diff's tool has no such input
    (re.compile(r"--vary NAME=V1,V2"), 'vary {"NAME": [V1, V2]}'),
    (re.compile(r"`?tritonscope samples`? lists them"), "the samples tool lists them"),
    (  # no tool writes a baseline: a dump's document is one (check.read_baseline reads `dump --json`)
        re.compile(r"the same command with --update-baseline"),
        "save the dump tool's JSON document of the same inputs (its structured content) at that path",
    ),
    (
        re.compile(r"`?tritonscope list FILE`? shows each helper's callers"),
        "the list_kernels tool shows each helper's callers",
    ),
    (re.compile(r"\(made by `tritonscope trace -o DIR`\)"), "(made by the trace tool)"),
    (re.compile(r"--from lists the kernel's layouts"), "the layout tool lists the kernel's layouts"),
    (re.compile(r"`?tritonscope cache list DIR`? shows them"), "the capture_list tool shows them"),
    *(  # the tools' own inputs where the command line names its flags for them
        (re.compile(rf"(?<![\w-]){flag}(?![\w-])"), name) for flag, name in _TOOL_FLAGS
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
