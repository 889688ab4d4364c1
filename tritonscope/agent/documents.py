"""Each tool's output schema: the `--json` document of its kind (docs/json-schema.md), as an agent
reads it before the first call, with the `page` field saying what was cut. The main fields are
named and typed; a document may hold more (fields are only ever added within a schema version)."""

from __future__ import annotations

from typing import Any

from typing_extensions import Required, TypedDict

Object = dict[str, Any]
Rows = list[dict[str, Any]]


class Envelope(TypedDict, total=False):
    schema: Required[int]  # the schema version of the documents (docs/json-schema.md)
    tool: Required[Object]  # {"name": "tritonscope", "version": ...}
    kind: Required[str]  # which document: dump, explain, check, diff, passes, grid, layout, ...
    page: Object  # per part cut to fit: what is shown, its total, and next_cursor to go on (null: no more)


class Dump(Envelope, total=False):
    triton_version: str
    kernel: Object  # name, file, line, first_line, source, params ...
    variant: Object  # exactly what was compiled: constexprs, signature, hints, options, target
    command: str  # the tritonscope dump command line of this variant
    options: Object
    resources: Object  # registers, spills, shared_bytes, local_bytes, occupancy, instructions
    metadata: Object
    notices: list[str]
    stages: dict[str, str]  # stage name to its text (a page of it; page.stages says which lines)
    line_map: Rows  # per Python line, the lines of each stage it became (only for selected lines)
    selected_lines: list[int]


class Explain(Envelope, total=False):
    kernel: str
    file: str
    target: str
    command: str
    resources: Object
    lines: Rows  # per Python line: line, code, instructions, conversions, live_registers
    findings: Rows  # kind, line, message, evidence, suggestion, lines, what_if, verified
    notes: list[str]


class Check(Envelope, total=False):
    ok: bool
    exit_code: int
    entries: Rows  # name, ok, error, figures, budgets, broken (figure, value, limit, finding), findings
    notes: list[str]


class Diff(Envelope, total=False):
    variants: Rows  # index, label, ok, error; resources, options, command when ok
    diffs: Rows  # stage, old, new, changed, unified (lines; a page of them)
    kernels: Rows  # two captures compared: name, status, regression, changes, findings_appeared ...
    counts: Object


class Passes(Envelope, total=False):
    triton_version: str
    passes: Rows  # index, name, class, level, changed, added, removed; with show, diff
    variants: Rows  # vary: the two pipelines
    divergence: Object  # vary: where they first differ


class Listing(Envelope, total=False):
    samples: Rows  # name, kernels, description, path
    file: str
    kernels: list[Any]  # list: per kernel its params; cache list: name, reference ...; trace: the names
    folder: str
    programs: Rows  # grid: per program index, pid, loads, stores
    layouts: Rows  # layout: the layouts a kernel uses
    owners: Object  # layout: element "row,column" to its holders [warp, lane, register]
    out: str  # trace: the capture folder
    returncode: int


OUTPUTS: dict[str, type] = {
    "dump": Dump,
    "explain": Explain,
    "check": Check,
    "capture_check": Check,
    "diff": Diff,
    "capture_diff": Diff,
    "passes": Passes,
}


def output_of(tool: str) -> type:
    """The document type a tool returns (its outputSchema)."""
    return OUTPUTS.get(tool, Listing)
