"""torch.compile's frame compiles read from a capture (torch_compiles.jsonl): each compile after the
first of a function, the guards of the entries before it that failed (as TORCH_LOGS=recompiles says
them), what the new entry made of the failing sizes (static or dynamic), the Triton kernels it brought,
and what to do: `torch._dynamo.mark_dynamic`, or `mark_unbacked` where a size of 1 was specialized."""

from __future__ import annotations

import re

from ..analysis.recompile_causes import TORCH_GUARD
from ..analysis.specialization import generated_by_torch
from ..captures.timeline import Timeline
from ..parsers.dynamo_guards import Bound, Reason, guards, item_of, reason, tested_at
from ..results.recompiles import Fix, Launch, TorchRecompile


def torch_recompiles(timeline: Timeline, fixes: bool = True, after: str | None = None) -> list[TorchRecompile]:
    """Each frame compiled again; with AFTER, a function's first compile past the mark AFTER too (a GPU
    run compiles it there: h19b's `h`, first called after the warmup, passed the gate)."""
    found = []
    records = list(timeline.torch_compiles)
    for number, record in enumerate(records):
        first = not record.get("reasons") and not record.get("entry")
        if first and (after is None or after not in timeline.marks_before(record)):
            continue  # the function's first compile, in the warmup
        until = next((r["time"] for r in records[number + 1 :]), float("inf"))
        kernels = tuple(
            str(c.get("name"))
            for c in timeline.compiles
            if generated_by_torch(c) and record["time"] <= c.get("time", -1.0) < until
        )
        read = [reason(r) for r in record.get("reasons", [])]
        # a graph break's resume function is called inside the function: the program's call is the function's
        site = (_resumed_from(record, records[:number]).get("call_site") or record.get("call_site")) or {}
        found.append(
            TorchRecompile(
                function=record["function"],
                file=record.get("file"),
                line=record.get("line"),
                compile_id=str(record.get("compile_id", "")),
                seconds=record.get("seconds"),
                launch=Launch(site.get("file"), site.get("line"), _inputs(record)) if site else None,
                reasons=tuple(r.text.split("  # ")[0] for r in read),
                said=f"torch.compile compiled `{record['function']}` for the first time: it was not called "
                "before the mark"
                if first
                else said(record, read),
                marks_passed=timeline.marks_before(record),
                kernels=tuple(dict.fromkeys(kernels)),
                fix=fix(record, read, records[:number]) if fixes and not first else None,
                at=record.get("time"),
            )
        )
    return found + eager_calls(timeline, after)


def eager_calls(timeline: Timeline, after: str | None = None) -> list[TorchRecompile]:
    """Per function, its calls past torch._dynamo's recompile_limit (each ran eagerly, uncompiled: the
    run's worst loss where it happens, and no compile to count), from the first such call."""
    by_function: dict[str, list[dict]] = {}
    for record in timeline.eager_calls:
        if after is None or after in timeline.marks_before(record):
            by_function.setdefault(str(record["function"]), []).append(record)
    found = []
    for function, calls in by_function.items():
        first, limit = calls[0], calls[0].get("recompile_limit")
        site = first.get("call_site") or {}
        entries = f"{limit} entr{'y' if limit == 1 else 'ies'}"
        said = f"torch.compile gave up on `{function}` at this call: it has {entries}, torch._dynamo's "
        said += "recompile_limit; this call and every later one that no entry serves run eagerly, uncompiled"
        code = f"torch._dynamo.config.recompile_limit = {2 * int(limit or 8)}"
        advice = f"{code}, or mark the size that changes dynamic (the guards above) so that one entry serves them"
        found.append(
            TorchRecompile(
                function=function,
                file=first.get("file"),
                line=first.get("line"),
                compile_id="",
                seconds=None,
                launch=Launch(site.get("file"), site.get("line"), _inputs(first)) if site else None,
                reasons=tuple(str(r).split("  # ")[0] for r in first.get("reasons", [])),
                said=said,
                marks_passed=timeline.marks_before(first),
                fix=Fix(TORCH_GUARD, function, advice, code, "not compiled: trace the program again with the change"),
                eager=len(calls),
            )
        )
    return found


def _inputs(record: dict) -> str:
    shown = []
    for name, value in record.get("inputs", {}).items():
        if value.get("kind") == "tensor":
            shown.append(f"{name}: {list(value.get('shape', []))}")
        elif value.get("kind") in ("int", "float", "bool"):
            shown.append(f"{name}={value.get('value')}")
    return ", ".join(shown[:4])


def _failed(read: list[Reason]) -> dict[tuple[str, int], list[Reason]]:
    by_dim: dict[tuple[str, int], list[Reason]] = {}
    for r in read:
        if r.dim is not None:
            by_dim.setdefault(r.dim, []).append(r)
    return by_dim


def said(record: dict, read: list[Reason]) -> str:
    """The recompile in one sentence: the sizes whose guards failed, and what the new entry made of them."""
    failed = _failed(read)
    if not failed:
        return f"torch.compile compiled `{record['function']}` again: " + (
            "; ".join(dict.fromkeys(_plainly(r.expected) for r in read)) or "no reason recorded"  # each entry says it
        )
    sizes = guards(record.get("guards", [])).sizes
    parts, dynamic = [], []
    for (name, dim), reasons in failed.items():
        actual = next((r.actual for r in reasons if r.actual is not None), _actual(record, name, dim))
        wanted = [r.expected for r in reasons]
        bounds = [w for w in wanted if "<" in w]
        shown = f"{actual}; " if actual is not None else ""
        tested = _tested(reasons, actual)
        if tested:
            detail = f"{shown}the entry's {tested[0].text}: the function tests the size{tested[1]}"
        elif bounds:
            detail = f"{shown}{bounds[0]}: a size of 1 is never made dynamic"
        else:
            entries = f"entr{'ies' if len(reasons) > 1 else 'y'} {', '.join(r.entry for r in reasons)}"
            detail = f"{shown}{entries} expected {', '.join(wanted)}"
        base, bracket, rest = name.partition("[")  # kwargs['input_ids'] as dynamo prints it: L['kwargs']['input_ids']
        parts.append(f"`L['{base}']{bracket}{rest}.size()[{dim}]` ({detail})")
        entry = sizes.get(name)
        if entry is not None and dim < len(entry):
            dynamic.append(entry[dim] is None)
    made = "a dynamic size" if any(dynamic) else "a static size" if dynamic else "new guards"
    return (
        f"torch.compile guard failed on {' and '.join(parts)}: recompiled with {made} ({record.get('compile_id', '')})"
    )


_LENGTH = re.compile(r"^len\((\w+)\) == (\d+)$")


def _plainly(guard: str) -> str:
    """A guard dynamo prints in its own terms, said as what changed: `len(kwargs) == 7` is a call with
    another number of keyword arguments (transformers' generate() passes more after its first step)."""
    length = _LENGTH.match(guard)
    if length and length[1] == "kwargs":
        return f"the call gave another number of keyword arguments than the entry's {length[2]} ({guard})"
    if length:
        return f"`{length[1]}` had another length than the entry's {length[2]} ({guard})"
    return guard


def _tested(reasons: list[Reason], actual: int | None) -> tuple[Bound, str] | None:
    """The upper bound a size passed (`x.size()[1] <= 32`), with where the function tests the size
    (`, at prog.py:7 (if n > 32:)`): a Python branch on a dynamic size, whose each side dynamo
    compiles an entry of its own. None where the failing bound is a lower one (a 1 specialized)."""
    for r in reasons:
        for bound in r.bounds:
            (name, dim), *others = bound.dims
            if bound.lower or others or actual is None:
                continue
            if bound.holds({name: (0,) * dim + (actual,)}) is False:
                where = tested_at(r.text)
                return bound, f", at {where}" if where else ""
    return None


def _actual(record: dict, name: str, dim: int) -> int | None:
    shape = record.get("inputs", {}).get(name, {}).get("shape")
    return shape[dim] if isinstance(shape, list) and dim < len(shape) else None


def fix(record: dict, read: list[Reason], earlier: list[dict] | None = None) -> Fix | None:
    """One change for the failing guard: mark_unbacked where a 1 was specialized, else mark_dynamic
    (of every dimension that changed since the failing entry: EARLIER, the frame compiles before)."""
    failed = _failed(read)
    if not failed:
        return None
    (name, dim), reasons = next(iter(failed.items()))
    dims = _changed_dims(record, earlier or [], name, dim, reasons)
    keyword = item_of(name)  # kwargs['input_ids']: the tensor given as input_ids=
    argument = keyword if isinstance(keyword, str) else name.split(".")[0].split("[")[0]
    where = f"before the first call of {record['function']}"
    library = _library(record.get("file"))
    whose = f"in {library}, which the program calls" if library else "the program's own"
    proof = f"not compiled: the function is {whose}; trace the program again with the change"
    tested = _tested(reasons, _actual(record, name, dim))
    if tested:
        said = f"the function's code tests dimension {dim} of `{argument}`{tested[1]}: dynamo compiles an "
        said += "entry for each side of the test, each serving every size on its side (one compile more, not "
        said += "one a size); to keep one entry, compute with the size in tensor operations (torch.where) or "
        said += "torch.cond instead of a Python `if`"
        return Fix(TORCH_GUARD, name, said, "", proof)
    if any("<" in r.expected for r in reasons):
        code = f"torch._dynamo.decorators.mark_unbacked({argument}, {dim})"
        said = f"a size of 1 in dimension {dim} of `{argument}` is specialized even where the size is dynamic: "
        said += f"{code} {where}"
        return Fix(TORCH_GUARD, name, said, code, proof)
    resumed = re.fullmatch(r"torch_dynamo_resume_in_(\w+)_at_(\d+)", str(record["function"]))
    if resumed and argument in _resumed_from(record, earlier or []).get("inputs", {}):  # the function's argument
        code = f"torch._dynamo.mark_dynamic({argument}, {dims[0] if len(dims) == 1 else dims})"
        said = f"{code} before the first call of {resumed.group(1)} (its argument, read after its graph break at "
        said += f"line {resumed.group(2)}), or torch.compile(..., dynamic=True), so that one entry serves every size"
        return Fix(TORCH_GUARD, name, said, code, proof)
    if resumed or argument.startswith("___"):  # dynamo's own names: the code after a graph break, its stack
        function, line = (resumed.group(1), resumed.group(2)) if resumed else (record["function"], "?")
        said = (
            f"dimension {dim} of a value {function} computed before its graph break at line {line}: mark that "
            f"tensor dynamic where it is made (torch._dynamo.mark_dynamic(t, {dim})), compile {function} with "
            "dynamic=True, or remove the graph break"
        )
        return Fix(TORCH_GUARD, name, said, "", proof)
    code = f"torch._dynamo.mark_dynamic({argument}, {dims[0] if len(dims) == 1 else dims})"
    said = f"{code} {where} (or torch.compile(..., dynamic=True)), so that one entry serves every size"
    if isinstance(keyword, str):  # the call's keyword: the program's own name for the tensor may be another
        said += f" (`{argument}`: the tensor the call passes as {argument}=)"
    if library:  # its argument may be made inside the library, where the program cannot mark it
        said += f"; {record['function']} is in {library}: where `{argument}` is not the program's, dynamic=True"
    return Fix(TORCH_GUARD, name, said, code, proof)


def _resumed_from(record: dict, earlier: list[dict]) -> dict:
    """The frame compile of the function a graph break's resume function continues (`f` for
    torch_dynamo_resume_in_f_at_6): the last before it; {} where there is none."""
    resumed = re.fullmatch(r"torch_dynamo_resume_in_(\w+)_at_\d+", str(record.get("function")))
    if not resumed:
        return {}
    return next((r for r in reversed(earlier) if r.get("function") == resumed.group(1)), {})


def _changed_dims(record: dict, earlier: list[dict], name: str, dim: int, reasons: list[Reason]) -> list[int]:
    """The dimensions of NAME that differ from the failing entry's input to this call's: dynamo's reason
    names only the first guard that failed, and a transposed [8, 16] -> [16, 8] marked in dimension 0
    alone compiles again on dimension 1 (h20b)."""
    entries = {str(r.get("compile_id")): r for r in earlier}
    now = (record.get("inputs", {}).get(name) or {}).get("shape")
    for failing in reasons:
        before = (entries.get(str(failing.entry), {}).get("inputs", {}).get(name) or {}).get("shape")
        if isinstance(now, list) and isinstance(before, list) and len(now) == len(before):
            changed = [i for i, (a, b) in enumerate(zip(before, now, strict=True)) if a != b]
            return changed if dim in changed else [dim]
    return [dim]


def _library(file: str | None) -> str | None:
    """The installed package a function's file belongs to (transformers), None for the program's own."""
    parts = (file or "").replace("\\", "/").split("/")
    at = next((i for i, part in enumerate(parts) if part in ("site-packages", "dist-packages")), None)
    return parts[at + 1] if at is not None and at + 1 < len(parts) - 1 else None
