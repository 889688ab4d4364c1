"""`tritonscope layout`: which thread holds each element of a tensor in a TTGIR layout.

The layout comes from text, or from a real compilation's TTGIR (a value's name or a
Python line). Triton's own conversion runs in an isolated worker: it aborts the process on
layouts that do not fit the shape, which must cost the user a message, not tritonscope.
"""

from __future__ import annotations

import ast
import contextlib
import re
import tempfile
from collections.abc import Callable
from dataclasses import replace

from ..analysis import layouts, linemap, module_layouts, shared_layouts
from ..core.errors import UsageError
from ..core.model import Compilation, VariantRequest
from ..core.source import file_text
from ..core.stages import Stage
from ..isolate import Workers, task
from ..isolate.tasks import Outcome, Task
from ..results.layout import LayoutListResult, LayoutResult, SharedLayoutResult
from ..triton_api import layouts as triton_layouts
from ..triton_api.version import release_tuple
from .walk.prepare import compile_request

MAX_ELEMENTS = 1 << 20  # a drawing of more elements than this is unreadable and slow to compute


def layout(
    text: str | None,
    shape: tuple[int, ...] | None,
    request: VariantRequest | None,
    value: str | None,
    line: int | None,
    timeout: float,
) -> LayoutResult | LayoutListResult | SharedLayoutResult:
    """A layout given as text drawn over --shape; or, --from a kernel, the layouts it uses (listed), or
    one value's (--value, --line) drawn."""
    if (text is None) == (request is None):
        raise UsageError("give a LAYOUT, or --from FILE (with --value NAME or --line N to draw one)")
    if request is not None and value is None and line is None:
        if shape is not None:  # it drew nothing at that shape: the list of layouts came, the shape unsaid
            raise UsageError(
                "--shape draws one value at that shape: give --value NAME or --line N with it",
                hint="without them, every layout the kernel uses is listed, each at its own shape",
            )
        return listing(compile_request(request), timeout)
    if request is not None:
        return _from_kernel(request, value, line, shape, timeout)
    chosen = layouts.parse(text)
    size = shape
    if size is None:
        raise UsageError("--shape is needed with a LAYOUT, e.g. --shape 64x64")
    _check_fits(chosen, size)
    outcome = _quietly(task(triton_layouts.linear_layout, chosen, list(size)), timeout)
    if not outcome.ok and outcome.exit_code == 1:  # Triton aborted on it
        raise UsageError(f"Triton cannot lay {chosen.text[:60]}... over {'x'.join(map(str, size))}: {outcome.error}")
    return LayoutResult(chosen, layouts.ownership(outcome.unwrap(), size))


def _check_fits(chosen: layouts.Layout, shape: tuple[int, ...]) -> None:
    """What Triton asserts on (and aborts the process for), checked first with a clear message."""
    _check_fits_size(shape)
    problem = layouts.field_problem(chosen)
    if problem:
        raise UsageError(f"the layout {chosen.text[:60]}...: {problem}")
    rank = layouts.rank(chosen)
    if rank is not None and rank != len(shape):
        raise UsageError(
            f"the layout is {rank}-D but --shape {'x'.join(map(str, shape))} is {len(shape)}-D",
            hint=f"give a {rank}-D shape, e.g. --shape {'x'.join(['64'] * rank)}",
        )


def listing(compilation: Compilation, timeout: float) -> LayoutListResult:
    """Every layout the kernel uses, and its moves through shared memory with their bank conflicts."""
    ttgir, line_map = compilation.stages[Stage.TTGIR], compilation.line_map.get(Stage.TTGIR, {})
    used = module_layouts.used_layouts(ttgir, line_map, compilation.kernel.file)
    accesses = module_layouts.shared_accesses(ttgir, line_map, compilation.kernel.file)
    counts = _conflicts(ttgir, accesses, timeout)
    accesses = [replace(a, conflicts=n) for a, n in zip(accesses, counts, strict=True)]
    c = compilation
    return LayoutListResult(c.kernel.name, c.kernel.language.value, c.variant.target, tuple(used), tuple(accesses))


def _conflicts(ttgir: str, accesses: list, timeout: float) -> list[int | None]:
    """Gluon's bank-conflict counts, in a worker: Triton aborts the process on a pair it cannot lay."""
    if not accesses:
        return []
    pairs = [(a.tensor_type, a.memdesc_type, list(a.shape), a.bitwidth) for a in accesses]
    outcome = _quietly(task(triton_layouts.all_bank_conflicts, ttgir, pairs), timeout)
    if outcome.ok or len(pairs) == 1 or outcome.timed_out:  # past its time: no pair is tried again alone
        return outcome.unwrap() if outcome.ok else [None] * len(pairs)
    # one pair Triton cannot lay aborts the worker: each alone, so that only its own count is unknown
    alone = [_quietly(task(triton_layouts.all_bank_conflicts, ttgir, [pair]), timeout) for pair in pairs]
    return [each.value[0] if each.ok else None for each in alone]


def _from_kernel(request: VariantRequest, value: str | None, line: int | None, shape, timeout: float):
    """A value's layout in a real compilation's TTGIR: distributed (who holds each element) or shared
    (the bank of each element), read by Triton's Gluon, so every layout kind Triton knows is drawn."""
    if (value is None) == (line is None):  # both: neither names which to draw
        raise UsageError("--value NAME and --line N each choose the value to draw: give one of them, not both")
    if value is not None and not value.strip().lstrip("%"):
        raise UsageError("--value needs a name: a tensor's Python name (--value acc), or give --line N")
    compilation = compile_request(request)
    ttgir = compilation.stages[Stage.TTGIR]
    lines = ttgir.splitlines()
    candidates, what = _candidates(compilation, lines, value, line)
    for number in candidates:
        text = lines[number - 1]
        op = text.strip()
        origin = f"{what}, TTGIR line {number}: {_shortened(op)}"
        shared = module_layouts.memdesc_type(text)
        if shared and (value is not None or layouts.tensor_type(text) is None) and _makes_memdesc(text):
            return _shared(compilation, shared, origin, timeout)
        found = layouts.tensor_type(text)
        if found and shape is not None and len(shape) != len(found[0]):  # Triton asserts on it
            kernel_shape = "x".join(map(str, found[0]))
            raise UsageError(
                f"{what} is a {len(found[0])}-D tensor ({kernel_shape}) but --shape {'x'.join(map(str, shape))} "
                f"is {len(shape)}-D",
                hint=f"give a {len(found[0])}-D shape, or leave --shape out to draw it at {kernel_shape}",
            )
        if found:
            return _distributed(ttgir, shape or found[0], found[1], origin, timeout)
    named = _named_values(lines)
    raise UsageError(
        f"no tensor or shared memory with a layout for {what} in the TTGIR of {compilation.kernel.name}",
        hint=(f"values with a layout: {', '.join(named[:12])}{' ...' if len(named) > 12 else ''}; " if named else "")
        + "or give --line N; without --value and --line, --from lists the kernel's layouts",
    )


_NAMED = re.compile(r"^\s*%([A-Za-z_][A-Za-z0-9_]*?)(?:_\d+)?(?::\d+)?\s*=.*(?:tensor|memdesc)<")


def _named_values(ttgir: list[str]) -> list[str]:
    """The names the TTGIR gives values that have a layout (`%acc`, `%offs_am`), once each."""
    found = (match.group(1) for text in ttgir if (match := _NAMED.match(text)))
    return list(dict.fromkeys(name for name in found if not name.startswith("cst")))


def _makes_memdesc(text: str) -> bool:
    """Whether the line's result is a shared-memory descriptor (an alloc, a view of one)."""
    result = text.rsplit("->", 1)[-1] if "->" in text else text.split(":", 1)[-1]
    return "!ttg.memdesc<" in result


def _distributed(ttgir: str, shape, layout_text: str, origin: str, timeout: float) -> LayoutResult:
    _check_fits_size(shape)
    tensor = f"tensor<{'x'.join(map(str, shape))}xf32, {layout_text}>"
    bases = _worker(triton_layouts.distributed_bases, (ttgir, tensor, list(shape)), timeout, layout_text, shape)
    definition = layouts.aliases_of(ttgir).get(layout_text, layout_text)
    chosen = layouts.Layout(definition.split("<")[0].removeprefix("#ttg."), {}, definition)
    return LayoutResult(
        chosen, layouts.ownership(bases, tuple(shape)), f"{origin}\nas Gluon writes it: {bases['gluon']}"
    )


def _shared(compilation: Compilation, found, origin: str, timeout: float) -> SharedLayoutResult:
    shape, memdesc, alias = found
    _check_fits_size(shape)
    ttgir = compilation.stages[Stage.TTGIR]
    read = _shared_read(ttgir, memdesc, shape, timeout)
    bits = module_layouts.bitwidth(memdesc.split("x")[len(shape)].split(",")[0])
    definition = shared_layouts.definition(ttgir, alias) or alias
    mapping, source = _mapping(definition, read["offset"], tuple(shape), compilation.triton_version)
    banks = shared_layouts.banks(mapping, tuple(shape), bits) if mapping else None
    listed = listing(compilation, timeout).accesses
    uses = tuple(a for a in listed if alias in a.memdesc_type.split(",")[1])
    return SharedLayoutResult(definition, read["gluon"], tuple(shape), bits, banks, uses, origin, source)


def _shared_read(ttgir: str, memdesc: str, shape, timeout: float) -> dict:
    """Gluon's spelling of a shared layout and, from 3.9, Triton's offsets; neither where Triton's
    Gluon cannot read it (3.5's crashes on a memdesc), the drawing then being tritonscope's alone."""
    outcome = _quietly(task(triton_layouts.shared_offsets, ttgir, memdesc, list(shape)), timeout)
    return outcome.unwrap() if outcome.ok else {"gluon": None, "offset": None}


def _mapping(definition: str, offsets, shape: tuple[int, ...], release: str):
    """Where each element lives: Triton's shared linear layout where the release gives one (3.9),
    else tritonscope's reading of the layout's parameters (the same rules; tests hold them equal)."""
    if offsets:
        return shared_layouts.SharedMapping(offsets, shared_layouts.paddings(definition)), "triton"
    computed = shared_layouts.mapping(definition, shape, release_tuple(release))
    return computed, "tritonscope" if computed else None


def _worker(function: Callable[..., dict], args: tuple, timeout: float, what: str, shape) -> dict:
    outcome = _quietly(task(function, *args), timeout)
    if not outcome.ok and outcome.exit_code == 1:  # Triton aborted on it
        raise UsageError(f"Triton cannot lay {what[:60]} over {'x'.join(map(str, shape))}: {outcome.error}")
    return outcome.unwrap()


def _quietly(call: Task, timeout: float) -> Outcome:
    """CALL in a worker whose C-level stderr is kept, not printed: where Triton's layout code asserts and
    aborts the process (gfx942's rotating shared layout), its assertion is the error's last words, not
    a line of C++ on the user's terminal."""
    with tempfile.TemporaryFile() as said, Workers(timeout=timeout, stderr=said) as workers:
        outcome = workers.run([call])[0]
        said.seek(0)
        last = said.read().decode(errors="replace").strip().splitlines()[-1:]
    if outcome.ok or not last:
        return outcome
    return replace(outcome, error=f"{outcome.error} ({last[0].strip()[:300]})")


def _check_fits_size(shape) -> None:
    elements = 1
    for size in shape:
        elements *= size
    if elements > MAX_ELEMENTS:
        raise UsageError(f"the tensor is {'x'.join(map(str, shape))}: {elements:,} elements; at most {MAX_ELEMENTS:,}")


_MAKE_BOOLEANS = ("arith.cmpi", "arith.cmpf")  # their type, printed, is their operands'
# Integer tensors these make on a load's line are its mask's or offsets' (`K - k * BLOCK` splat), not the data
_INDEX_PLUMBING = ("tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range")


def _assigned_first(compilation: Compilation, ttgir: list[str], numbers: list[int], name: str) -> list[int]:
    """The TTGIR values named NAME, best first: Triton names a value after the variable its statement
    assigns, so every step of `acc = acc * alpha[:, None]` is `%acc_N`, and so are the pipeliner's
    masks for the loop carrying `acc` and `b = tl.load(b_ptr + ...)`'s hoisted pointers. First those
    made by a statement assigning NAME, the statement's last first (`acc = tl.dot(...)`'s dot); of
    one result (`warp_group_dot_wait`'s `%acc:3` also hands back the operands' shared memory); data,
    not pointers or booleans."""
    kernel = compilation.kernel
    lines: set[int] = set()
    with contextlib.suppress(SyntaxError, ValueError):  # the file's helpers assign it too; a cell's, its lines
        for node in ast.walk(ast.parse(file_text(kernel.file) or "")):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == name for t in targets
            ):
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    made = set(linemap.stage_lines(compilation, Stage.TTGIR, {(kernel.file, line) for line in lines}))

    def rank(n: int) -> tuple:
        text = ttgir[n - 1]
        result, _, rest = text.partition("=")
        op = rest.split()[0] if rest.split() else ""
        if not (layouts.tensor_type(text) or module_layouts.memdesc_type(text)):
            kind = 3  # a scalar, a token: no layout
        elif op in _MAKE_BOOLEANS or "xi1," in text:
            kind = 2
        elif op == "tt.addptr" or ("!tt.ptr" in text and op != "tt.load"):  # a load's type is its pointers'
            kind = 1
        elif op in _INDEX_PLUMBING and re.search(r"tensor<[\dx]+xi\d+", text):  # a mask's bound, splat
            kind = 1
        else:
            kind = 0
        return (n not in made, ":" in result, kind, -n if n in made else n)

    return sorted(numbers, key=rank)


def _candidates(compilation: Compilation, ttgir: list[str], value: str | None, line: int | None):
    if value is not None:
        name = value.lstrip("%")
        pattern = re.compile(rf"^\s*%{re.escape(name)}(_\d+)?(:\d+)?\s*=")
        found = [n for n, text in enumerate(ttgir, start=1) if pattern.match(text)]
        return _assigned_first(compilation, ttgir, found, name), f"value %{name}"
    wanted = linemap.requested_lines(compilation, (line, line))
    return sorted(linemap.stage_lines(compilation, Stage.TTGIR, set(wanted))), f"Python line {line}"


def _shortened(op: str, most: int = 120) -> str:
    """An op's text whole where short; else its types' layouts written out left out (`#…`: the one drawn
    below is said in full), then its types; cut at a word's end with `…` if still long, not mid-type."""
    op = op.split(" loc(")[0]
    if len(op) <= most:
        return op
    op = re.sub(r"#[\w.]+<\{[^{}]*\}>", "#…", op)
    if len(op) <= most:
        return op
    if " : " in op and " -> " in op:  # the operands' types left out, the result's kept (its shape, its type)
        kept = op.split(" : ")[0] + " : … -> " + op.rsplit(" -> ", 1)[1]
        if len(kept) <= most:
            return kept
    head = op.split(" : ")[0] + " : …" if " : " in op else op
    return head if len(head) <= most else head[: head.rfind(" ", 0, most - 1)] + " …"
