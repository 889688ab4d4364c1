"""`tritonscope list`: the kernels of a file, their parameters, autotune configs and heuristics."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from ..load import LoadedFile
from ..model import ParamKind, to_jsonable

TYPE_FROM = {
    "annotation": "annotated",
    "default": "from its default",
    "body": "inferred from the body",
    "assumed": "assumed (give -a NAME=TYPE or a value)",
}


def render(console: Console, loaded: LoadedFile) -> None:
    console.print(f"[bold]{loaded.path}[/]: {len(loaded.kernels)} @triton.jit function(s)\n")
    for kernel in loaded.kernels:
        spec = kernel.spec
        role = "helper (called by another kernel)" if spec.is_helper else "kernel"
        wrappers = f", {spec.wrappers}" if spec.wrappers else ""
        table = Table(title=f"{spec.name}  line {spec.line}  [dim]{role}{wrappers}[/]", title_justify="left")
        for column in ("parameter", "kind", "type", "default", "how the type was found"):
            table.add_column(column)
        for p in spec.params:
            type_ = "-" if p.kind is ParamKind.CONSTEXPR else p.type
            if p.kind is ParamKind.POINTER and p.type_from != "annotation":
                type_ = "*fp32 (--dtype)"
            default = repr(p.default) if p.has_default else ""
            if p.name in loaded.defaults:
                default = f"{loaded.defaults[p.name]!r} (file)"
            table.add_row(p.name, p.kind.value, type_, default, TYPE_FROM[p.type_from])
        console.print(table)
        for config in spec.autotune_configs:
            console.print(f"  autotune config {config.index}: {config.describe()}")
        for name in spec.heuristics:
            console.print(f"  heuristic computes: {name}")
        console.print()


def render_json(loaded: LoadedFile) -> str:
    document = {"file": str(loaded.path), "kernels": [to_jsonable(k.spec) for k in loaded.kernels]}
    return json.dumps(document, indent=2) + "\n"
