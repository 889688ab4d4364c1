"""`tritonscope recompiles DIR/ --shapes batch=1..256,seq=1..8192`: the compiles still to come. From a
capture of the warmup (the whole capture, or what came before `--after MARK`), each kernel's
specialized arguments are read as functions of the declared sizes (analysis/recompile_prediction.py:
the program's launch line first, then the launches' own values), every point of the ranges is
specialized by Triton's rules, and each specialization the warmup did not compile is a compile to
come; torch.compile's functions are replayed through their guards (analysis/dynamo_prediction.py).
Nothing is compiled unless asked (`--compile`: one compile per predicted variant, for its time).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import re
from pathlib import Path

from ..analysis import recompile_prediction as rp
from ..analysis.dynamo_prediction import (
    RECOMPILE_LIMIT,
    FrameModel,
    PredictedEntry,
    accepts,
    automatic_dynamic,
    dynamic_bounds,
    predict_frame,
)
from ..analysis.launch_source import GRID, function_call, kernel_launch, parsed, positional_params
from ..analysis.size_expressions import const, size
from ..analysis.specialization import config_fields, generated_by_torch, launch_values, not_specialized, specialization
from ..captures.recorded import def_line
from ..captures.timeline import Timeline, read_timeline
from ..core import fileio
from ..core.errors import UsageError
from ..core.pysource import declared_constexprs, is_kernel_def
from ..parsers.dynamo_guards import Guards, guards
from ..results.recompiles import SEEN_AFTER_MARK, FrameForecast, KernelForecast, PredictedCompile, PredictionResult


def predict(
    folder: Path,
    sizes: dict[str, tuple[int, int]],
    until: str | None = None,
    compile_: bool = False,
    refuse_unfollowed: bool = True,
):
    """The compiles the SIZES will make after the warmup (the capture, or its part before UNTIL); where
    no launch follows any of them, a usage error (`refuse_unfollowed`), else the capture's own."""
    timeline = read_timeline(folder)
    cut = _cut(timeline, until)
    sources: dict[str, object] = {}
    kernels, models = [], []
    moved: dict[str, list[str]] = {}  # a declared size -> the pointers whose start it moves (`buf[off:]`)
    gridded: dict[str, list[str]] = {}  # a declared size -> the kernels whose grid it sets ("": and an argument)
    for name, records in _by_kernel(timeline.compiles, cut).items():
        forecast, model = _kernel(timeline, name, records, cut, sizes, sources, moved, gridded)
        kernels.append(forecast)
        if model is not None:
            models.append(model)
    kernels = _seen_after(kernels, timeline, cut)
    carried = rp.carried_values(models, {m.name: _launches(timeline, m.name, cut) for m in models})
    frames = _seen_frames(
        [_frame(group, sizes, carried, sources) for group in _frames(timeline, cut).values()], timeline, cut
    )
    if compile_:
        from .recompile_compiles import with_compile_times

        kernels = with_compile_times(kernels, timeline, cut)
    warmup = f"before the mark {until}" if until else "the whole capture"
    followed = _followed(models, frames)
    # a size that sets a grid alone (`kernel[(rows,)]`) is followed: its answer is that it compiles nothing
    grid_only = tuple(
        name for name in sizes if name not in followed and name not in moved and all(gridded.get(name, [""]))
    )
    unfollowed = tuple(name for name in sizes if name not in followed and name not in grid_only)
    notes = tuple(_unfollowed_note(name, moved, gridded) for name in (*grid_only, *unfollowed))
    found = PredictionResult(str(folder), tuple(sizes.items()), warmup, tuple(kernels), tuple(frames), notes)
    found = dataclasses.replace(found, unfollowed=unfollowed)
    if refuse_unfollowed and sizes and not found.predicts:  # nothing predicted is no pass (CI read exit 0)
        _refuse_unfollowed(unfollowed, timeline, cut, moved, gridded, kernels)
    return found


def _unfollowed_note(name: str, moved: dict[str, list[str]], gridded: dict[str, list[str]]) -> str:
    if name in gridded and name not in moved:  # `kernel[(rows,)]`: a launch's grid is no part of its variant
        kernels = ", ".join(dict.fromkeys(gridded[name]))
        return (
            f"--shapes {name}: it sets only the grid of {kernels}, and a grid is no part of what Triton "
            "specializes a kernel on: no compile comes from it"
        )
    if name in moved:  # a slice's start: the pointer's 16-byte alignment, which the prediction does not follow
        pointers = ", ".join(f"`{p}`" for p in moved[name])
        return (
            f"--shapes {name}: it moves where {pointers} start{'s' if len(moved[name]) == 1 else ''} in its "
            "storage (the launch line slices it), and so its 16-byte alignment, which the prediction does not "
            "follow: a capture at those sizes shows the compiles it makes"
        )
    return (
        f"--shapes {name}: no launch of this capture follows it (no kernel argument nor compiled input's dim "
        "is a function of it)"
    )


def _refuse_unfollowed(
    unfollowed: tuple[str, ...],
    timeline: Timeline,
    cut: float,
    moved: dict[str, list[str]],
    gridded: dict,
    kernels: list[KernelForecast],
) -> None:
    """Every declared size unfollowed (a typo, `hiden`): exit 2, with the program's names it is close to."""
    if any(name in moved for name in unfollowed):
        raise UsageError(
            "; ".join(_unfollowed_note(name, moved, gridded) for name in unfollowed) + ", so nothing is predicted",
            hint="declare the sizes the kernels' integer arguments are made of too (n=1..4096)",
        )
    partial = [f"{k.name}'s {said.split('; held')[0]}" for k in kernels for said in k.params if rp.NOT_DECLARED in said]
    if partial:  # `n = batch * seq` with batch alone declared: an argument reads it, with a size not declared
        raise UsageError(
            f"--shapes {', '.join(unfollowed)}: no argument is a function of the declared sizes alone: "
            + "; ".join(partial),
            hint="declare every size the line reads",
        )
    words: set[str] = set()
    for file in {str((x.get("call_site") or {}).get("file")) for x in timeline.launches if _before(x, cut)}:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            words |= _program_words(fileio.read_input_text(Path(file)))
    close = [m for name in unfollowed for m in difflib.get_close_matches(name, sorted(words - {name}), 1, 0.75)]
    raise UsageError(
        f"--shapes {', '.join(unfollowed)}: no launch of this capture follows "
        f"{'it' if len(unfollowed) == 1 else 'them'} (no kernel argument nor compiled input's dim is a function of "
        f"{'it' if len(unfollowed) == 1 else 'them'}), so nothing is predicted",
        hint=(f"did you mean {', '.join(close)}? " if close else "")
        + "name the program's own variables, those its launches' sizes are made of (n=1..4096)",
    )


def _program_words(text: str) -> set[str]:
    """The names a program's file uses outside its kernels: a @triton.jit function's locals (`offs`, a
    `tl.arange`; `row`, a program id) are no size a launch is made of, and no `--shapes` name."""
    lines = text.splitlines()
    with contextlib.suppress(SyntaxError, ValueError):
        for node in ast.walk(ast.parse(text)):
            if is_kernel_def(node) and node.end_lineno is not None:
                start = min(d.lineno for d in node.decorator_list)
                lines[start - 1 : node.end_lineno] = [""] * (node.end_lineno - start + 1)
    return set(re.findall(r"[A-Za-z_]\w*", "\n".join(lines)))


def _followed(models: list, frames: list[FrameForecast]) -> set[str]:
    """The declared sizes some kernel argument or compiled input's dim is a function of."""
    found = {size for m in models for p in m.params if p.expr is not None for size in p.expr.sizes}
    words = {word for f in frames for text in f.inputs for word in re.findall(r"[A-Za-z_]\w*", text)}
    return found | words


def _cut(timeline: Timeline, until: str | None) -> float:
    """The time the warmup ended: the mark's, or after every record."""
    if until is None:
        return float("inf")
    return float(timeline.passed(until)["time"])


def _before(record: dict, cut: float) -> bool:
    when = record.get("time")
    return not isinstance(when, (int, float)) or when < cut


def _by_kernel(compiles, cut: float) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for record in compiles:
        if _before(record, cut) and not generated_by_torch(record):
            found.setdefault(str(record.get("name")), []).append(record)
    return found


def _launches(timeline: Timeline, name: str, cut: float) -> list[dict]:
    return [x for x in timeline.launches if x.get("name") == name and _before(x, cut) and x.get("params")]


def _source(sources: dict, file: str | None):
    if file not in sources:
        try:
            sources[file] = parsed(fileio.read_input_text(Path(file))) if file else None
        except (OSError, UnicodeDecodeError):
            sources[file] = None
    return sources[file]


def _kernel(timeline: Timeline, name: str, records: list[dict], cut: float, sizes, sources, moved: dict, gridded: dict):
    launches = _launches(timeline, name, cut)
    first = records[0]
    where = (first.get("file"), def_line(first))
    if not launches:
        return KernelForecast(name, *where, (), len(records), (), ("no warmup launch recorded: not predicted",)), None
    site = launches[0].get("call_site") or {}
    tree = _source(sources, site.get("file"))
    line = kernel_launch(tree, site.get("line", 0), name, launches[0]["params"]) if tree is not None else None
    first_values = launch_values(launches[0])
    pointers = [p for p in launches[0]["params"] if f"{p}.dtype" in first_values]
    for pointer in pointers:
        for size_name in line.starts(pointer) & set(sizes) if line is not None else ():  # `x = buf[off:off + n]`
            moved.setdefault(size_name, []).append(pointer)
    if line is not None:  # a size read by the grid alone, no argument: the grid is no part of a variant
        read = {n for p in launches[0]["params"] if p not in pointers for n in line.roots(p)}  # a shape is none
        for size_name in line.roots(GRID) & set(sizes):
            gridded.setdefault(size_name, []).append(name if size_name not in read else "")
    source = str(first.get("source") or "")
    dns, _ = not_specialized(source)
    declared = declared_constexprs(source, name) or set()
    fields = config_fields(first, timeline.candidates(name)) if "autotune(" in source else frozenset()
    model = rp.model(name, records, launches, line, sizes, declared, dns, fields)
    predicted, sampled = rp.predict(model, sizes)
    notes: tuple[str, ...] = ("the ranges were sampled where the rules change",) if sampled else ()
    notes += () if line is not None else (f"the launch line {site.get('file')}:{site.get('line')} was not read",)
    compiles = tuple(
        PredictedCompile(", ".join(p.text for p in x.key), x.where, x.example, x.arguments, x.compiles, x.differs)
        for x in predicted
    )
    said = tuple(p.said for p in model.params if p.kind != "fixed")
    return KernelForecast(name, *where, said, len(model.warmup), compiles, notes), model


def _seen_after(kernels: list[KernelForecast], timeline: Timeline, cut: float) -> list[KernelForecast]:
    """The forecasts with the compiles the capture itself made after the mark: certain to come."""
    by_name = {k.name: k for k in kernels}
    for record in timeline.compiles:
        if _before(record, cut) or generated_by_torch(record):
            continue
        spec = specialization(record)
        name, text = str(record.get("name")), ", ".join(p.text for p in spec.params)
        known = by_name.get(name) or KernelForecast(name, record.get("file"), def_line(record), (), 0, ())
        fields = config_fields(record, timeline.candidates(name)) if "autotune(" in str(record.get("source")) else ()
        untuned = ", ".join(p.text for p in spec.params if p.name not in fields)  # a prediction counts its configs
        if any(p.specialization in (text, untuned) for p in known.predicted):
            continue
        seen = PredictedCompile(text, SEEN_AFTER_MARK, {}, {}, 1, ())
        by_name[name] = dataclasses.replace(known, predicted=(*known.predicted, seen))
    return list(by_name.values())


def _seen_frames(frames: list[FrameForecast], timeline: Timeline, cut: float) -> list[FrameForecast]:
    """The forecasts with torch.compile's frame compiles the capture itself made after the mark."""
    by_function = {(f.function, f.file, f.line): f for f in frames}
    for record in timeline.torch_compiles:
        if _before(record, cut):
            continue
        key = (record["function"], record.get("file"), record.get("line"))
        shapes = {n: tuple(v["shape"]) for n, v in record["inputs"].items() if v.get("kind") == "tensor"}
        seen = PredictedEntry(record["function"], dict(shapes), {}, shapes, seen=True)
        known = by_function.get(key) or FrameForecast(*key, (), 0, ())
        if any(_covers(entry, shapes) for entry in known.predicted):  # one of those predicted: not twice
            continue
        by_function[key] = dataclasses.replace(known, predicted=(*known.predicted, seen))
    return list(by_function.values())


def _covers(entry: PredictedEntry, shapes: dict[str, tuple[int, ...]]) -> bool:
    """Whether a predicted entry is the one a call of these input shapes compiled: its guards accept
    them (each dim the same, or dynamic where the size is 2 or more), for the same inputs."""
    if not entry.sizes or set(entry.sizes) != set(shapes):
        return False
    return accepts(Guards(entry.sizes, dynamic_bounds(entry.sizes)), shapes)


def _frames(timeline: Timeline, cut: float) -> dict[tuple, list[dict]]:
    found: dict[tuple, list[dict]] = {}
    for record in timeline.torch_compiles:
        if _before(record, cut):
            found.setdefault((record["function"], record.get("file"), record.get("line")), []).append(record)
    return found


def _frame(records: list[dict], sizes, carried: dict[str, set[int]], sources) -> FrameForecast:
    """A torch.compile'd function: its inputs' dims over the sizes, and the entries to come."""
    last = records[-1]
    tensors = {n: v for n, v in last["inputs"].items() if v.get("kind") == "tensor"}
    site = last.get("call_site") or {}
    tree = _source(sources, site.get("file"))
    called = last["function"]
    defined = _source(sources, last.get("file"))
    signature = positional_params(defined, last["line"], called) if defined is not None and last.get("line") else None
    call = function_call(tree, site.get("line", 0), list(tensors), called, signature) if tree is not None else None
    seen: dict[tuple[str, int], frozenset[int]] = {}
    for record in records:
        for name, value in record["inputs"].items():
            for i, d in enumerate(value.get("shape") or []):
                seen[(name, i)] = seen.get((name, i), frozenset()) | {d}
    dynamic = {
        (n, i) for n, shape in guards(last.get("guards", [])).sizes.items() for i, d in enumerate(shape) if d is None
    }
    dims = {n: _dims(n, v, call, sizes, carried, seen, dynamic) for n, v in tensors.items()}
    held = {n: tuple(v["shape"]) for n, v in tensors.items()}
    entries = tuple(guards(r.get("guards", [])) for r in records)
    shaped = [
        {n: tuple(v.get("shape") or ()) for n, v in r["inputs"].items() if v.get("kind") == "tensor"} for r in records
    ]
    automatic = automatic_dynamic(list(zip(shaped, entries, strict=True))) and not _static_asked(
        _source(sources, last.get("file")), last.get("line")
    )
    # a dim an entry guards as dynamic (`2 <= L['x'].size()[1]`): mark_dynamic, or dynamic=True
    marked = frozenset(dim for e in entries for b in e.bounds if b.lower and b.limit == 2 for dim in b.dims)
    limit = int(last.get("limit") or RECOMPILE_LIMIT)  # the program's own (set before its first compile)
    frame = FrameModel(
        last["function"], last.get("file"), last.get("line"), dims, held, entries, seen, automatic, marked, limit
    )
    predicted = predict_frame(frame, sizes)
    said = tuple(f"{n}: [{', '.join(d.text if d is not None else '?' for d in ds)}]" for n, ds in dims.items())
    if not automatic:
        said += ("dynamic=False: a size that changes makes a static entry (a dim marked dynamic stays so)",)
    if len(records) + len(predicted) >= limit:
        said += (f"then dynamo's recompile_limit ({limit} entries): later shapes run eagerly",)
    return FrameForecast(frame.function, frame.file, frame.line, said, len(records), tuple(predicted))


def _static_asked(tree, line: int | None) -> bool:
    """Whether the function at LINE is compiled with `@torch.compile(dynamic=False)` (a decorator of
    its own def, or `torch.compile(f, dynamic=False)` on the line): dynamo keeps every entry static."""
    if tree is None or line is None:
        return False
    import ast

    for node in ast.walk(tree):
        calls = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.body[0].lineno:
            calls = [d for d in node.decorator_list if isinstance(d, ast.Call)]
        elif isinstance(node, ast.Call) and getattr(node, "lineno", 0) == line:
            calls = [node]
        for call in calls:
            for keyword in call.keywords:
                if (
                    keyword.arg == "dynamic"
                    and isinstance(keyword.value, ast.Constant)
                    and keyword.value.value is False
                ):
                    return True
    return False


def _dims(name: str, value: dict, call, sizes, carried: dict[str, set[int]], seen, dynamic=frozenset()) -> tuple:
    """Each dim of the input NAME over the sizes: from the call's own shaping, else the one size whose
    warmup values hold every value the dim had (one value will do for a dim its entry made dynamic:
    `dynamic=True` compiles once, and a Hugging Face forward's call is in transformers' own wrapper),
    else a constant it always was; None: held."""
    shaped = call.shape(name, frozenset(sizes)) if call is not None else None
    found = []
    for i, _ in enumerate(value.get("shape") or []):
        if shaped is not None and i < len(shaped) and shaped[i] is not None:
            found.append(shaped[i])
            continue
        values = seen.get((name, i), frozenset())
        least = 1 if (name, i) in dynamic else 2
        fits = [s for s, known in carried.items() if len(values) >= least and values <= known]
        found.append(size(fits[0]) if len(fits) == 1 else const(next(iter(values))) if len(values) == 1 else None)
    return tuple(found)
