"""The tools: each turns its inputs into the command line's typed values and asks for one task of
app/calls.py, the same app function its command calls. Each returns an Ask (answers.py runs it);
its description says when to call it, with an example."""

from __future__ import annotations

import functools
import os
import shlex
from typing import Annotated

from pydantic import AfterValidator, Field

from ..app import calls
from ..app.calls import answer_inputs
from ..core import forms
from ..core import source as sources
from ..core.errors import UsageError
from ..core.model import VariantRequest
from ..isolate import task
from . import pages
from .answers import Ask, Paging
from .inputs import Timeout, call_limit, variant_inputs

# Seconds a task whose own workers take the call's timeout is given beyond it: theirs ends first and
# says where it was stuck (the kernel's line the interpreter was running), not this task's wait.
NESTED = 15.0

StageList = Annotated[
    list[str] | None,
    Field(description="Stages: source, ttir, ttgir, llir, ptx, sass (NVIDIA), amdgcn (AMD). Default: all produced."),
]
PythonLine = Annotated[int | None, Field(description="A line of the kernel's Python file: only what it became.")]
PythonLines = Annotated[str | None, Field(description="Lines A-B of the kernel's Python file, e.g. '30-36'.")]
MaxLines = Annotated[
    int | None,
    Field(
        description="At most this many lines (or items) per part; page.next_cursor goes on. Default: as many as "
        "fit an answer of about 8 KB, the largest parts cut most.",
        ge=1,
        le=5000,
    ),
]
FirstLine = Annotated[int, Field(description="Start each stage at this line of its text (1-based).", ge=1)]
Cursor = Annotated[
    str | None,
    Field(description="A page.next_cursor from this tool's last answer, the other inputs unchanged: the next page."),
]
Budgets = Annotated[
    list[str] | None,
    Field(
        description="Limits, e.g. ['spills=0', 'registers<=128', 'occupancy>=50%', 'shared<=96KiB']. Figures: "
        "registers, spills, local_bytes, shared, occupancy, global_load_bits, global_store_bits, instructions, "
        "conversion_bytes, findings; a capture's compiles_after_MARK (compiles after tritonscope.mark(MARK))."
    ),
]
Vary = Annotated[
    dict[str, list[int | float | bool | str | None]],
    Field(
        description="Values to compare per name, every combination compiled: a constexpr, an argument, num_warps, "
        'num_stages, num_ctas, maxnreg, target or triton (releases), e.g. {"num_warps": [4, 8]} or '
        '{"target": ["sm80", "sm90"]} or {"triton": ["3.6.0", "3.9.0"]}.'
    ),
]
Folder = Annotated[
    str,
    Field(description="A capture folder (written by the trace tool or `tritonscope trace -o`)."),
    AfterValidator(os.path.expanduser),  # `~/runs/h100`: no shell expands an agent's paths
]


@variant_inputs
def dump(
    request: VariantRequest,
    stages: StageList = None,
    line: PythonLine = None,
    lines: PythonLines = None,
    first_line: FirstLine = 1,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Compile a Triton kernel (no GPU needed) and read its stages (Python, TTIR, TTGIR, LLVM IR, PTX,
    SASS or AMDGCN), registers, spills, shared memory, occupancy and the Python-line map. Call it to see
    what the compiler made of a kernel, what one Python line became (line=N: its IR in every stage), or
    whether a variant fits a GPU (target=...). Stages come a page at a time (max_lines); the summary says
    how many lines each has, and page.stages.NAME.next_cursor continues one.
    Example: {"kernel_file": "sample:matmul", "target": "sm80", "stages": ["sass"], "line": 35}"""
    timeout = call_limit(timeout, 300.0)
    chosen = forms.stages(stages, "stages")
    picked = forms.line_range(line, lines.replace(" ", "") if lines else None)
    cut = Paging(functools.partial(pages.dump, first_line=first_line), max_lines, 40, cursor)
    return Ask(task(calls.dump, request, chosen, picked), timeout, answer_inputs(request.source), cut)


@variant_inputs
def explain(
    request: VariantRequest,
    line: PythonLine = None,
    lines: PythonLines = None,
    what_if: Annotated[bool, Field(description="Compile what the findings suggest (up to 4 compiles).")] = True,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Why is this kernel slow? The cost of each Python line (instructions, global loads and stores with
    their width, shared-memory traffic, matrix instructions, barriers, spills, layout conversions, live
    registers) and findings: each names its line, the evidence in the IR or machine code, the cause and
    what to try, checked by compiling it where cheap (what_if). Call it first on a slow kernel, or to
    find which line spills. Example: {"kernel_file": "sample:vector_add", "args": {"n_elements": 4099}}"""
    timeout = call_limit(timeout, 300.0)
    picked = forms.line_range(line, lines.replace(" ", "") if lines else None)
    cut = Paging(functools.partial(pages.explain, lines=picked), max_lines, 40, cursor, last=("findings",))
    return Ask(task(calls.explain, request, what_if, True, False), timeout, answer_inputs(request.source), cut)


@variant_inputs
def check(
    request: VariantRequest,
    budgets: Budgets = None,
    baseline: Annotated[
        str | None, Field(description="A saved `dump --json` report: fail where a figure got worse.")
    ] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Hold a kernel variant to budgets: does it fit (registers, spills, shared memory, occupancy on a
    target)? The answer's ok is false with each broken budget and the finding behind it. Call it to ask
    "does it fit on an A10" (target sm86) or before handing over a change.
    Example: {"kernel_file": "sample:matmul", "target": "sm86", "budgets": ["spills=0", "shared<=99KiB"]}"""
    timeout = call_limit(timeout, 300.0)
    inputs = answer_inputs(request.source) + ((baseline,) if baseline else ())
    cut = Paging(pages.own_parts("entries"), max_lines, 40, cursor)
    return Ask(task(calls.check, request, tuple(budgets or ()), baseline), timeout, inputs, cut)


@variant_inputs
def diff(
    request: VariantRequest,
    vary: Vary,
    stages: Annotated[
        list[str] | None, Field(description="Stages to diff (default ttgir and the machine code).")
    ] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Compare variants of a kernel: each combination of the values in vary compiled in its own worker,
    with its registers, spills, shared memory, occupancy and instruction mix, and the normalized diff of
    each stage against the first variant. Call it to choose between configs, targets or Triton releases
    ("what changed between 3.6 and 3.9": vary triton). A variant that fails is reported, the others
    finish. Example: {"kernel_file": "sample:matmul", "vary": {"num_warps": [4, 8], "num_stages": [2, 3]}}"""
    timeout = call_limit(timeout, 600.0)
    axes = tuple(forms.typed_axes(vary))
    chosen = forms.stages(stages, "stages")
    cut = Paging(pages.diff, max_lines, 60, cursor, last=("variants",))
    return Ask(
        task(calls.diff, request, axes, False, chosen, timeout),
        timeout + NESTED,
        answer_inputs(request.source),
        cut,
    )


@variant_inputs
def passes(
    request: VariantRequest,
    show: Annotated[
        str | None, Field(description="A pass: its number, its name (every run) or NAME#K: what it changed.")
    ] = None,
    changed_only: Annotated[bool, Field(description="Only the passes that changed the IR.")] = False,
    vary: Annotated[
        dict[str, list[int | float | bool | str | None]] | None,
        Field(
            description='Two pipelines to compare, e.g. {"triton": ["3.6.0", "3.9.0"]}: the first pass that differs.'
        ),
    ] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Watch the compiler's MLIR passes: every pass in order, which changed the IR and by how many lines;
    with show, what one pass changed (its diff). Call it to learn which pass made something (a layout
    conversion, the pipelining) or, with vary, where two releases' pipelines first part.
    Example: {"kernel_file": "sample:matmul", "show": "tritongpu-pipeline"}"""
    timeout = call_limit(timeout, 600.0)
    if vary:
        compared = task(calls.passes_compare, request, tuple(forms.typed_axes(vary)), timeout)
        return Ask(compared, timeout, answer_inputs(request.source), Paging(pages.own_parts(), max_lines, 60, cursor))
    cut = Paging(functools.partial(pages.passes, changed_only=changed_only), max_lines, 60, cursor)
    return Ask(task(calls.passes, request, show, timeout), timeout + NESTED, answer_inputs(request.source), cut)


@variant_inputs
def layout(
    request: VariantRequest,
    value: Annotated[str | None, Field(description="A tensor's Python name (e.g. row, acc): draw its layout.")] = None,
    line: Annotated[
        int | None, Field(description="Draw the layout of the first tensor this Python line makes.")
    ] = None,
    shape: Annotated[list[int] | None, Field(description="The shape to draw over, e.g. [64, 64].")] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Which thread (warp, lane, register) holds each element of a tensor, in the layouts a kernel's
    TTGIR uses. Without value or line: every layout the kernel uses with its Python lines, and each move
    through shared memory with its bank conflicts. Call it to see why a layout conversion or a shared
    memory access is costly. Example: {"kernel_file": "sample:softmax", "value": "row"}"""
    timeout = call_limit(timeout, 120.0)
    text = "x".join(str(size) for size in shape) if shape else None
    cut = Paging(_layout_page, max_lines, 256, cursor)
    return Ask(
        task(calls.layout, request, value, line, text, timeout),
        timeout + NESTED,
        answer_inputs(request.source),
        cut,
    )


def _layout_page(doc: pages.Document, count: pages.Count, cursor: str | None) -> pages.Document:
    keys = {"layout": "owners", "shared_layout": "banks"}
    if doc["kind"] == "layout_list":
        return pages.paged_list(doc, "layouts", count, cursor)
    key = keys[doc["kind"]]
    return pages.mapping(doc, key, count, cursor) if doc.get(key) else doc


@variant_inputs
def grid(
    request: VariantRequest,
    grid_size: Annotated[
        list[int] | None, Field(description="The launch grid [X, Y, Z], if the file has no hook.")
    ] = None,
    wave: Annotated[int | None, Field(description="Count the input tiles the first K programs load.", ge=1)] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Which program computes which part of the output, in launch order, and what it reads: the kernel's
    own index arithmetic run on Triton's interpreter (scalar arguments need values). Call it to check a
    grouped or swizzled launch order, or tile reuse across a wave of programs.
    Example: {"kernel_file": "sample:matmul", "args": {"M": 1152, "N": 1152, "K": 1152}, "wave": 9}"""
    timeout = call_limit(timeout, 120.0)
    size = forms.sizes(",".join(str(n) for n in grid_size), "grid_size", ",") if grid_size else None
    cut = Paging(pages.grid, max_lines, 64, cursor)
    return Ask(task(calls.grid, request, size, wave, timeout), timeout + NESTED, answer_inputs(request.source), cut)


def samples(max_lines: MaxLines = None, cursor: Cursor = None) -> Ask:
    """The bundled sample kernels, to try any tool on (kernel_file "sample:NAME"): vector_add, softmax,
    matmul and more, each with what it shows. Call it first when you have no kernel of your own.
    Example: {}"""
    return Ask(
        task(calls.samples), call_limit(None, 60.0), paging=Paging(pages.own_parts("samples"), max_lines, 40, cursor)
    )


def list_kernels(
    kernel_file: Annotated[str, Field(description="A Python file of kernels, sample:NAME or pkg.module.")],
    target: Annotated[str, Field(description="The GPU a file that asks for one is imported against.")] = "auto",
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """The kernels of a file: each one's parameters with their kinds and types, constexprs, autotune
    configs (numbered, for config=N), heuristics, and which @triton.jit functions are helpers. Call it
    before the other tools on a file you have not seen, to learn the names they take.
    Example: {"kernel_file": "liger_kernel.ops.rms_norm"}"""
    timeout = call_limit(timeout, 120.0)
    chosen = forms.command_target(target)  # an unknown target is refused before the file is looked at
    source = sources.parse(kernel_file)
    folder = (source.path,) if isinstance(source, (sources.KernelFile, sources.ModuleReference)) else ()
    cut = Paging(pages.own_parts("kernels"), max_lines, 40, cursor)
    return Ask(task(calls.list_kernels, source, chosen), timeout, folder, cut)


def trace(
    command: Annotated[
        list[str] | str,
        Field(description='The program to run, e.g. ["python", "infer.py"] (a string is split as a shell splits it).'),
    ],
    out: Annotated[
        str,
        Field(description="The capture folder to write (new, or one tritonscope wrote)."),
        AfterValidator(os.path.expanduser),
    ],
    target: Annotated[
        str | None, Field(description="Run against a simulated GPU of this target (sm80, sm90...): no GPU needed.")
    ] = None,
    autotune: Annotated[
        str | None, Field(description="With target: the candidate autotuned kernels launch: first, last, N or K=V,...")
    ] = None,
    launches: Annotated[int, Field(description="Record each kernel's first N launches.", ge=0)] = 3,
    replace: Annotated[bool, Field(description="Replace `out` if tritonscope wrote it before.")] = False,
    time_limit: Annotated[float, Field(description="Stop the program after this many seconds.", gt=0)] = 300.0,
) -> Ask:
    """Run a program (a model's inference or training step) and capture every kernel Triton compiles in
    it, torch.compile's too, into a folder: with target, against a simulated GPU, so no GPU is needed.
    Then capture_list names its kernels, dump and explain read one (kernel_file "OUT/:NAME"), and
    capture_diff compares two captures. Example: {"command": ["python", "infer.py"], "out": "h100/",
    "target": "sm90", "time_limit": 600}"""
    argv = shlex.split(command) if isinstance(command, str) else command
    if not argv:
        raise UsageError('give the program to run, e.g. ["python", "infer.py"]')
    simulated = forms.command_target(target) if target is not None else None
    rule = forms.autotune_rule(autotune) if autotune is not None else None
    call = task(calls.trace, tuple(argv), out, replace, launches, simulated, rule, time_limit)
    return Ask(call, time_limit + 60.0, keep=False)


def capture_list(folder: Folder, max_lines: MaxLines = None, cursor: Cursor = None) -> Ask:
    """The kernels a capture holds: each compile's name, target, options, stages and recorded launches,
    with its reference (DIR/:NAME) for dump, explain and check. Call it after trace.
    Example: {"folder": "h100/"}"""
    cut = Paging(pages.own_parts("kernels"), max_lines, 100, cursor)
    return Ask(task(calls.capture_list, folder), call_limit(None, 120.0), (folder,), cut)


def capture_diff(
    before: Folder,
    after: Folder,
    kernel: Annotated[str | None, Field(description="One kernel's name: its stages diffed.")] = None,
    stages: StageList = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Two captures side by side (before and after a change, two GPUs, two releases): every kernel
    compile paired with its counterpart, same, changed (each figure's delta, regressions marked), added
    or removed; nothing is compiled. With kernel, that kernel's stages diffed.
    Example: {"before": "before/", "after": "after/"}"""
    timeout = call_limit(timeout, 600.0)
    chosen = forms.stages(stages, "stages")
    cut = Paging(pages.diff if kernel else pages.own_parts("kernels"), max_lines, 60, cursor)
    call = task(calls.capture_diff, before, after, kernel, chosen, timeout)
    return Ask(call, timeout, (before, after), cut)


def capture_check(
    folder: Folder,
    budgets: Budgets = None,
    baseline: Annotated[str | None, Field(description="Another capture: fail where a kernel got worse.")] = None,
    max_lines: MaxLines = None,
    cursor: Cursor = None,
    timeout: Timeout = None,
) -> Ask:
    """Hold every kernel compile of a capture to budgets (and to its counterpart in a baseline capture):
    the answer's ok is false with each broken budget. Call it to gate a whole model's kernels, or with
    "compiles_after_warmup=0" to fail on any compile after the program's tritonscope.mark("warmup"),
    each named with its kernel, its cause and the line that launched it.
    Example: {"folder": "h100/", "budgets": ["spills=0"], "baseline": "before/"}"""
    timeout = call_limit(timeout, 600.0)
    inputs = (folder, baseline) if baseline else (folder,)
    cut = Paging(pages.own_parts("entries"), max_lines, 100, cursor)
    return Ask(
        task(calls.capture_check, folder, tuple(budgets or ()), baseline, timeout), timeout + NESTED, inputs, cut
    )


TOOLS = (
    samples,
    list_kernels,
    dump,
    explain,
    check,
    diff,
    passes,
    layout,
    grid,
    trace,
    capture_list,
    capture_diff,
    capture_check,
)
