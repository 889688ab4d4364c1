"""The command line: parses arguments, calls the pipeline, hands the result to a renderer.

No compiler logic here, and no heavy import at module level: `tritonscope --help`
must stay fast and must not load Triton's compiler or torch.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import traceback
import typing
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .errors import TritonscopeError
from .specialize import VariantRequest

app = typer.Typer(
    name="tritonscope",
    help="See what the Triton compiler does to a GPU kernel: every stage from Python to SASS, "
    "with registers, shared memory and occupancy. No GPU needed.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)

# --- options shared by every command that compiles a kernel ----------------------------------

FileArg = Annotated[
    str, typer.Argument(help="A kernel file (path/to/kernels.py) or a bundled sample (sample:NAME).", metavar="FILE")
]
KernelOpt = Annotated[
    str | None, typer.Option("--kernel", "-k", help="Kernel to compile; needed only when the file has more than one.")
]
ConstexprOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--constexpr",
        "-c",
        metavar="NAME=VALUE",
        help="A constexpr value: int, float, true/false, or a dtype (fp16, tl.float16). Repeatable.",
    ),
]
ArgOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--arg",
        "-a",
        metavar="NAME=SPEC",
        help="An argument's Triton type (*fp16, i64, fp32) or a scalar's value (n=4096, eps=1e-5), "
        "specialized as Triton's launcher would. Repeatable.",
    ),
]
DtypeOpt = Annotated[
    str | None, typer.Option("--dtype", help="Element type of pointers not given with -a (default fp32).")
]
TargetOpt = Annotated[
    str,
    typer.Option(
        "--target",
        "-t",
        help="sm80, sm86, sm89, sm90, sm100, sm120, gfx90a, gfx942, gfx950, or auto: the local GPU, else sm90.",
    ),
]
WarpsOpt = Annotated[int | None, typer.Option("--num-warps", "-w", help="Warps per program.")]
StagesOpt = Annotated[int | None, typer.Option("--num-stages", "-s", help="Software pipelining depth.")]
CtasOpt = Annotated[int | None, typer.Option("--num-ctas", help="CTAs per cluster (sm90+).")]
MaxnregOpt = Annotated[int | None, typer.Option("--maxnreg", help="Register cap per thread (NVIDIA).")]
ConfigOpt = Annotated[
    int | None,
    typer.Option("--config", help="Autotune config to compile (default 0); `tritonscope list` numbers them."),
]
NoSpecializeOpt = Annotated[
    bool, typer.Option("--no-specialize", help="Drop all specialization hints (divisibility, alignment, constant 1).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead (docs/json-schema.md).")]
NoPagerOpt = Annotated[bool, typer.Option("--no-pager", help="Never page long output on a terminal.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show Python tracebacks for errors.")]
LineOpt = Annotated[
    int | None, typer.Option("--line", metavar="N", help="Show only what line N of the kernel file became.")
]
LinesOpt = Annotated[str | None, typer.Option("--lines", metavar="A-B", help="Show only what lines A to B became.")]
KeepLocOpt = Annotated[
    bool, typer.Option("--keep-loc", help="Keep location noise (loc(...), !dbg, .loc, //## File) in the IR.")
]


_VARIANT_FLAGS = {
    "kernel": (KernelOpt, None),
    "constexpr": (ConstexprOpt, None),
    "arg": (ArgOpt, None),
    "dtype": (DtypeOpt, None),
    "target": (TargetOpt, "auto"),
    "num_warps": (WarpsOpt, None),
    "num_stages": (StagesOpt, None),
    "num_ctas": (CtasOpt, None),
    "maxnreg": (MaxnregOpt, None),
    "config": (ConfigOpt, None),
    "no_specialize": (NoSpecializeOpt, False),
}


def variant_flags(command):
    """Gives a command FILE and the variant flags, the same in every command that compiles.

    The command declares a `request` parameter instead; typer sees FILE, the variant flags,
    then the command's own options.
    """
    own = typing.get_type_hints(command, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("file", keyword, annotation=FileArg)]
    parameters += [inspect.Parameter(n, keyword, annotation=a, default=d) for n, (a, d) in _VARIANT_FLAGS.items()]
    parameters += [
        p.replace(kind=keyword, annotation=own[p.name])
        for p in inspect.signature(command).parameters.values()
        if p.name != "request"
    ]

    @functools.wraps(command)
    def with_request(**values):
        from .specialize import VariantRequest

        flags = {name: values.pop(name) for name in ("file", *_VARIANT_FLAGS)}
        request = VariantRequest(
            file=flags["file"],
            kernel=flags["kernel"],
            constexprs=tuple(flags["constexpr"] or ()),
            args=tuple(flags["arg"] or ()),
            dtype=flags["dtype"],
            target=flags["target"],
            num_warps=flags["num_warps"],
            num_stages=flags["num_stages"],
            num_ctas=flags["num_ctas"],
            maxnreg=flags["maxnreg"],
            config=flags["config"],
            specialize=not flags["no_specialize"],
        )
        return command(request=request, **values)

    with_request.__signature__ = inspect.Signature(parameters)
    with_request.__annotations__ = {p.name: p.annotation for p in parameters}
    del with_request.__wrapped__  # typer must read the new signature, not the command's
    return with_request


# --- error handling ---------------------------------------------------------------------------


@functools.cache
def _stderr():
    """rich is imported only once something is printed through it: `dump --json` never does."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _stdout():
    from rich.console import Console

    return Console()


@contextmanager
def _errors_reported(debug: bool):
    """Turns every failure into one clear message and an exit code; tracebacks only with --debug."""
    try:
        yield
    except TritonscopeError as exc:
        if debug:
            traceback.print_exc()
        _stderr().print(f"[bold red]error:[/] {_escape(exc.message)}", soft_wrap=True)
        if exc.hint:
            _stderr().print(f"[dim]hint: {_escape(exc.hint)}[/]", soft_wrap=True)
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - anything else is a tritonscope bug
        if debug:
            traceback.print_exc()
        _stderr().print(f"[bold red]internal error:[/] {type(exc).__name__}: {_escape(str(exc))}")
        _stderr().print("[dim]this is a bug in tritonscope; run again with --debug for the traceback[/]")
        raise typer.Exit(3) from None


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


@contextmanager
def _progress(message: str):
    """A spinner on stderr while long work runs, only where stderr is a terminal."""
    if sys.stderr.isatty() and _stderr().is_terminal:
        with _stderr().status(message, spinner="dots"):
            yield
    else:
        yield


def _version_callback(value: bool):
    if value:
        print(f"tritonscope {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version and exit.")
    ] = False,
):
    """See what the Triton compiler does to a GPU kernel."""


# --- commands ---------------------------------------------------------------------------------


@app.command()
def samples(json_out: JsonOpt = False, debug: DebugOpt = False):
    """List the bundled sample kernels (use them as sample:NAME).

    Example: [bold]tritonscope samples[/]
    """
    from rich.table import Table

    from .samples import all_samples

    with _errors_reported(debug):
        found = all_samples()
        if json_out:
            import json

            rows = [
                {"name": s.name, "kernels": list(s.kernels), "description": s.description, "path": str(s.path)}
                for s in found
            ]
            sys.stdout.write(json.dumps(rows, indent=2) + "\n")
            return
        table = Table(title="sample kernels", title_justify="left")
        table.add_column("name", no_wrap=True)
        table.add_column("kernels", no_wrap=True)
        table.add_column("description", ratio=2)
        table.add_column("path", overflow="fold", ratio=1)
        for s in found:
            table.add_row(f"sample:{s.name}", ", ".join(s.kernels), s.description, str(s.path))
        _stdout().print(table)


@app.command("list")
def list_kernels(file: FileArg, json_out: JsonOpt = False, debug: DebugOpt = False):
    """List the kernels in a file: parameters with their kinds and types, autotune configs, heuristics.

    Examples: [bold]tritonscope list my_kernels.py[/], [bold]tritonscope list sample:matmul_autotune[/]
    """
    with _errors_reported(debug):
        from .load import load_file
        from .render import listing

        loaded = load_file(file)
        if json_out:
            sys.stdout.write(listing.render_json(loaded))
        else:
            listing.render(_stdout(), loaded)


@app.command()
@variant_flags
def dump(
    request: VariantRequest,
    stage: Annotated[
        str | None,
        typer.Option(
            "--stage",
            metavar="LIST",
            help="Stages to show, comma-separated: source, ttir, ttgir, llir, ptx, sass (NVIDIA) / amdgcn (AMD). "
            "Default: all.",
        ),
    ] = None,
    side_by_side: Annotated[
        bool, typer.Option("--side-by-side", help="Show the two stages given with --stage in columns.")
    ] = False,
    json_out: JsonOpt = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="DIR", help="Write each stage, the binary and report.json into DIR."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="With --out: replace a non-empty DIR.")] = False,
    line: LineOpt = None,
    lines: LinesOpt = None,
    annotate: Annotated[
        bool, typer.Option("--annotate", help="Prefix every IR line with the Python line it came from.")
    ] = False,
    keep_loc: KeepLocOpt = False,
    no_pager: NoPagerOpt = False,
    debug: DebugOpt = False,
):
    """Compile a kernel and show every stage, highlighted, with its resource figures.

    Examples:

      tritonscope dump sample:vector_add

      tritonscope dump kernels.py -k softmax_kernel -c BLOCK_SIZE=1024 --dtype fp16 --target sm80

      tritonscope dump kernels.py -k matmul_kernel -a a_ptr='*bf16' -a M=4096 -w 8 -s 3 --stage ttgir,ptx --side-by-side

      tritonscope dump sample:matmul --json > report.json

      tritonscope dump sample:matmul -o out/

      tritonscope dump sample:matmul --line 35          (what line 35 became, in every stage)

      tritonscope dump sample:matmul --lines 33-36 --annotate
    """
    with _errors_reported(debug):
        from .errors import UsageError
        from .pipeline import compile_request, select_stages
        from .targets import resolve

        chosen = select_stages(stage, resolve(request.target)[0]) if stage is not None else None
        if side_by_side and (chosen is None or len(chosen) != 2):
            raise UsageError("--side-by-side needs exactly two stages, e.g. --stage ttgir,ptx")
        if out is not None:
            from .render.files import check_destination

            check_destination(out, force)

        with _progress(f"compiling {request.file}"):
            compilation = compile_request(request)
        _print_notices(compilation)
        from .linemap import requested_lines

        source_lines = requested_lines(compilation, line, lines)  # a bad --line fails before anything is written
        if out is not None:
            from .render import files

            written = files.write(compilation, out, force)
            _stderr().print(f"wrote {len(written)} files to {out}")
        if json_out:
            from .render import json_report

            sys.stdout.write(json_report.render(compilation))
            return
        if out is not None:
            return
        from .render import console as console_view

        view = console_view.View(keep_loc=keep_loc, annotate=annotate, source_lines=source_lines)
        stages = chosen or select_stages(None, resolve(compilation.variant.target)[0])
        _page(no_pager, lambda console: console_view.render(console, compilation, stages, side_by_side, view))


@app.command()
@variant_flags
def compare(
    request: VariantRequest,
    stages: Annotated[
        str | None,
        typer.Option(
            "--stages",
            metavar="LIST",
            help="Two or three stages, comma-separated (default source,ttgir,sass; amdgcn on AMD).",
        ),
    ] = None,
    line: LineOpt = None,
    lines: LinesOpt = None,
    keep_loc: KeepLocOpt = False,
    wrap: Annotated[bool, typer.Option("--wrap", help="Fold long lines instead of cutting them.")] = False,
    no_pager: NoPagerOpt = False,
    debug: DebugOpt = False,
):
    """Show 2 or 3 stages in columns, aligned by Python line: what each line of the kernel became.

    Examples:

      tritonscope compare sample:matmul --stages source,ttgir,ptx

      tritonscope compare my.py -k kern --stages ttgir,sass --line 42
    """
    with _errors_reported(debug):
        from .errors import UsageError
        from .pipeline import compile_request, select_stages
        from .targets import resolve

        resolved = resolve(request.target)[0]
        default = "source,ttgir," + ("sass" if resolved.is_nvidia else "amdgcn")
        chosen = select_stages(stages or default, resolved)
        if not 2 <= len(chosen) <= 3:
            raise UsageError(f"compare shows 2 or 3 stages; --stages names {len(chosen)}")
        with _progress(f"compiling {request.file}"):
            compilation = compile_request(request)
        _print_notices(compilation)
        view = _view(compilation, line, lines, keep_loc, annotate=False)
        from .render import compare as compare_view

        _page(
            no_pager,
            lambda console: compare_view.render(console, compilation, chosen, keep_loc, wrap, view.source_lines),
        )


@app.command()
@variant_flags
def diff(
    request: VariantRequest,
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            metavar="NAME=V1,V2",
            help="Values to compare for a constexpr, an argument's type or value, num_warps, num_stages, "
            "num_ctas, maxnreg or target. Repeatable: several make every combination.",
        ),
    ] = None,
    configs: Annotated[bool, typer.Option("--configs", help="Compare every autotune config.")] = False,
    stage: Annotated[
        str | None,
        typer.Option(
            "--stage", metavar="LIST", help="Stages to diff, comma-separated (default ttgir,sass; amdgcn on AMD)."
        ),
    ] = None,
    against: Annotated[
        str, typer.Option("--against", help="Diff each variant against the first one, or against the previous one.")
    ] = "first",
    side_by_side: Annotated[bool, typer.Option("--side-by-side", help="Show diffs in two columns.")] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Compile this many variants at once (default: the cores).")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds one variant may compile.")] = 300.0,
    html_out: Annotated[
        Path | None, typer.Option("--html", metavar="FILE", help="Also write the comparison as an HTML report.")
    ] = None,
    json_out: JsonOpt = False,
    no_pager: NoPagerOpt = False,
    debug: DebugOpt = False,
):
    """Compare variants of a kernel: resources and instruction mix, then normalized IR diffs.

    Each variant compiles in its own process, so one that fails, crashes or hangs is reported and
    the others still finish (exit code 1 if any failed).

    Examples:

      tritonscope diff sample:vector_add --vary BLOCK_SIZE=256,1024

      tritonscope diff sample:matmul --vary num_warps=4,8 --vary num_stages=2,3,4 --stage ttgir

      tritonscope diff sample:softmax --vary target=sm80,sm90,gfx942

      tritonscope diff my.py -k kern --vary x_ptr='*fp16,*fp32' -c BLOCK=128

      tritonscope diff sample:matmul_autotune --configs
    """
    with _errors_reported(debug):
        from . import diffing, sweep
        from .errors import UsageError
        from .load import load_file
        from .model import Stage
        from .targets import resolve

        if against not in ("first", "previous"):
            raise UsageError(f"--against must be first or previous, not '{against}'")
        from . import cache

        base = cache.source_request(request.file) if cache.is_reference(request.file) else request
        axes = sweep.parse_axes(tuple(vary or ()))
        spec = load_file(base.file).pick(base.kernel).spec
        variants = sweep.expand(base, axes, spec, configs)
        if stage is None:
            stage = "ttgir," + ("sass" if resolve(variants[0].request.target)[0].is_nvidia else "amdgcn")
        names = [word.strip().lower() for word in stage.split(",") if word.strip()]
        known = [s.value for s in Stage]
        unknown = [name for name in names if name not in known]
        if unknown or not names:
            raise UsageError(f"unknown stage '{unknown[0] if unknown else stage}'. Stages: {', '.join(known)}")
        # A stage that only some targets produce is diffed among the variants that have it (see below).
        wanted = [Stage(name) for name in names]

        workers = jobs or os.cpu_count() or 1
        with _sweep_progress(len(variants)) as advance:
            sweep.run(variants, workers, timeout, on_done=advance)
        compilations = [v.compilation for v in variants]
        diffs, missing = [], []
        for s in wanted:
            if not any(c is not None and s in c.stages for c in compilations):
                missing.append(f"no variant produces {s.value}")
                continue
            diffs += diffing.diff(compilations, s, against)
        if html_out is not None:
            from .render import html

            _write_page(html_out, html.diff_report(variants, diffs))
        if json_out:
            from .render import diff_json

            sys.stdout.write(diff_json.render(variants, diffs))
        else:
            from .render import diff_view

            _page(no_pager, lambda console: diff_view.render(console, variants, diffs, side_by_side, missing))
        if not all(v.ok for v in variants):
            raise typer.Exit(1)


@app.command()
@variant_flags
def passes(
    request: VariantRequest,
    show: Annotated[
        str | None,
        typer.Option(
            "--show", metavar="N|NAME[#K]", help="What pass N (or every run of NAME, or its K-th run) changed."
        ),
    ] = None,
    full: Annotated[bool, typer.Option("--full", help="With --show: the whole IR after the pass.")] = False,
    changed: Annotated[bool, typer.Option("--changed", help="Only the passes that changed the IR.")] = False,
    llvm: Annotated[bool, typer.Option("--llvm", help="Also the LLVM-level passes (LLVM IR after each).")] = False,
    keep_loc: KeepLocOpt = False,
    html_out: Annotated[
        Path | None, typer.Option("--html", metavar="FILE", help="Also write the pipeline as an HTML report.")
    ] = None,
    json_out: JsonOpt = False,
    no_pager: NoPagerOpt = False,
    debug: DebugOpt = False,
):
    """Watch the compiler work: every MLIR pass in order, which changed the IR, and how.

    The compile runs in a child process with Triton's IR dumps on (MLIR_ENABLE_DUMP), for this
    kernel only, with the same variant flags as dump.

    Examples:

      tritonscope passes sample:matmul

      tritonscope passes sample:matmul --show tritongpu-pipeline

      tritonscope passes sample:matmul --show 31 --full

      tritonscope passes sample:matmul --changed

      tritonscope passes sample:vector_add --target gfx942 --json
    """
    with _errors_reported(debug):
        from . import cache
        from . import passes as pipeline
        from .compile import PassCapture
        from .load import load_file
        from .specialize import specialize
        from .targets import resolve

        if cache.is_reference(request.file):  # a compiled kernel: compile it again from its source
            request = cache.source_request(request.file)
        resolved, notice = resolve(request.target)
        capture = PassCapture(request, llvm)  # the child compiles while the flags are checked here
        try:
            loaded = load_file(request.file)
            chosen_kernel = loaded.pick(request.kernel)
            variant = specialize(chosen_kernel, request, loaded.defaults, resolved)  # bad flags fail here, fast
        except BaseException:
            capture.cancel()
            raise
        if notice:
            _stderr().print(f"[dim]{_escape(notice)}[/]", soft_wrap=True)
        with _progress(f"running {chosen_kernel.spec.name} through the compiler with IR dumps on"):
            dump = capture.dumps()
        records = pipeline.build(dump)
        llvm_records = pipeline.build_llvm(dump) if llvm else None
        selected = pipeline.select(records, show) if show is not None else None
        if html_out is not None:
            from .render import html

            _write_page(html_out, html.passes_report(variant.kernel, variant.target, records))
        if json_out:
            from .render.passes_view import render_json

            sys.stdout.write(render_json(variant, records, llvm_records, selected, full))
            return
        from .render import passes_view

        _page(
            no_pager,
            lambda console: passes_view.render(
                console, variant, records, llvm_records, changed, selected, full, keep_loc
            ),
        )


@app.command()
@variant_flags
def report(
    request: VariantRequest,
    out: Annotated[Path, typer.Option("--out", "-o", metavar="FILE.html", help="Where to write the report.")],
    stage: Annotated[
        str | None,
        typer.Option(
            "--stage", metavar="LIST", help="Stages shown at first (the page can show the others). Default: all."
        ),
    ] = None,
    keep_loc: KeepLocOpt = False,
    debug: DebugOpt = False,
):
    """Write a self-contained HTML report: source beside every stage, lines linked, resources.

    One file with its CSS and script inline: it opens with no network, and can be attached to a
    bug report. Pointing at a Python line lights up what it became in every stage.

    Examples:

      tritonscope report sample:fused_attention -o attention.html

      tritonscope report my.py -k kern -c BLOCK=128 --target sm80 -o kern.html
    """
    with _errors_reported(debug):
        from .pipeline import compile_request, select_stages
        from .render import html
        from .targets import resolve

        chosen = select_stages(stage, resolve(request.target)[0]) if stage is not None else None
        with _progress(f"compiling {request.file}"):
            compilation = compile_request(request)
        _print_notices(compilation)
        stages = chosen or select_stages(None, resolve(compilation.variant.target)[0])
        _write_page(out, html.compilation_report(compilation, stages, keep_loc))


@app.command()
def bench(
    file: FileArg,
    size: Annotated[
        list[int] | None,
        typer.Option("--size", metavar="N", help="Problem size, as the file's make_inputs takes it. Repeatable."),
    ] = None,
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            metavar="NAME=V1,V2",
            help="Values of a keyword of the file's launch hook "
            "(a constexpr such as BLOCK_SIZE, or num_warps). Repeatable.",
        ),
    ] = None,
    input_options: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            metavar="NAME=VALUE",
            help="A keyword for the file's make_inputs hook, e.g. head_dim=128. Repeatable.",
        ),
    ] = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
):
    """Run and time a kernel on the local GPU, checked against torch, beside torch's own speed.

    Needs a CUDA GPU and torch, and the run hooks of the kernel file (every sample has them; see
    docs/kernel-files.md). A wrong result is reported and not timed.

    Examples:

      tritonscope bench sample:matmul --size 4096 --size 8192

      tritonscope bench sample:vector_add --vary BLOCK_SIZE=256,1024,4096

      tritonscope bench sample:fused_attention --size 4096 --input head_dim=128
    """
    with _errors_reported(debug):
        import inspect as inspection

        from . import bench as runner
        from . import sweep

        runner.require_gpu()
        loaded = runner.load_hooks(file)
        axes = sweep.parse_axes(tuple(vary or ()))
        sizes = size or [inspection.signature(loaded.module.make_inputs).parameters["size"].default]
        with _progress("measuring the GPU's copy bandwidth and matmul speed"):
            peak = runner.measure_peak()
        from .specialize import parse_value, split_assignments

        inputs = {
            name: parse_value(value) for name, value in split_assignments(tuple(input_options or ()), "--input").items()
        }
        with _progress(f"running {file}"):
            results = runner.run(loaded, sizes, axes, inputs)
        from .render import bench_view

        if json_out:
            sys.stdout.write(bench_view.render_json(file, peak, results))
        else:
            bench_view.render(_stdout(), file, peak, results)
        if not all(r.correct for r in results):
            raise typer.Exit(1)


@app.command()
def layout(
    text: Annotated[
        str | None,
        typer.Argument(metavar="LAYOUT", help="A TTGIR layout, e.g. '#ttg.blocked<{sizePerThread = [1, 4], ...}>'."),
    ] = None,
    shape: Annotated[str | None, typer.Option("--shape", metavar="AxB", help="Tensor shape, e.g. 64x64.")] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--from", metavar="FILE", help="Take the layout from this kernel's TTGIR (a path or sample:NAME)."
        ),
    ] = None,
    value: Annotated[
        str | None,
        typer.Option(
            "--value", metavar="NAME", help="With --from: the SSA value (a Python variable's name, e.g. row)."
        ),
    ] = None,
    line: Annotated[
        int | None, typer.Option("--line", metavar="N", help="With --from: the first tensor made by Python line N.")
    ] = None,
    kernel: KernelOpt = None,
    constexpr: ConstexprOpt = None,
    arg: ArgOpt = None,
    target: TargetOpt = "auto",
    num_warps: WarpsOpt = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
):
    """Draw which thread (lane and warp) holds each element of a tensor in a TTGIR layout.

    Uses Triton's own linear-layout conversion: blocked, NVIDIA MMA (v2, v3), dot-operand and
    slice layouts.

    Examples:

      tritonscope layout '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
      warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 64x64

      tritonscope layout --from sample:softmax --value row

      tritonscope layout --from sample:matmul --line 35 --target sm80
    """
    with _errors_reported(debug):
        from . import layouts
        from .errors import UsageError

        origin = None
        if (text is None) == (source is None):
            raise UsageError("give a LAYOUT, or --from FILE with --value NAME or --line N")
        if source is None:
            chosen, found_shape = layouts.parse(text), None
        else:
            chosen, found_shape, origin = _layout_from(source, value, line, kernel, constexpr, arg, target, num_warps)
        size = layouts.parse_shape(shape) if shape else found_shape
        if size is None:
            raise UsageError("--shape is needed with a LAYOUT, e.g. --shape 64x64")
        owned = layouts.ownership(chosen, size)
        from .render import layout_view

        if json_out:
            sys.stdout.write(layout_view.render_json(chosen, owned))
        else:
            layout_view.render(_stdout(), chosen, owned, origin)


def _layout_from(source, value, line, kernel, constexpr, arg, target, num_warps):
    """(layout, shape, where it came from) of a value in a real compilation's TTGIR."""
    import re

    from . import layouts, linemap
    from .errors import UsageError
    from .model import Stage
    from .pipeline import compile_request

    if (value is None) == (line is None):
        raise UsageError("with --from, give --value NAME or --line N")
    request = VariantRequest(
        file=source,
        kernel=kernel,
        constexprs=tuple(constexpr or ()),
        args=tuple(arg or ()),
        target=target,
        num_warps=num_warps,
    )
    with _progress(f"compiling {source}"):
        compilation = compile_request(request)
    ttgir = compilation.stages[Stage.TTGIR].splitlines()
    if value is not None:
        pattern = re.compile(rf"^\s*%{re.escape(value.lstrip('%'))}(_\d+)?(:\d+)?\s*=")
        candidates = [n for n, text in enumerate(ttgir, start=1) if pattern.match(text)]
        what = f"value %{value.lstrip('%')}"
    else:
        wanted = linemap.requested_lines(compilation, line, None)
        candidates = sorted(linemap.stage_lines(compilation, Stage.TTGIR, set(wanted)))
        what = f"Python line {line}"
    for number in candidates:
        found = layouts.tensor_type(ttgir[number - 1])
        if found:
            shape, layout_text = found
            aliases = layouts.aliases_of(compilation.stages[Stage.TTGIR])
            origin = f"{what}, TTGIR line {number}: {ttgir[number - 1].strip()[:120]}"
            return layouts.parse(layout_text, aliases), shape, origin
    raise UsageError(f"no tensor with a layout for {what} in the TTGIR of {compilation.kernel.name}")


@app.command()
@variant_flags
def grid(
    request: VariantRequest,
    grid_size: Annotated[
        str | None, typer.Option("--grid", metavar="X[,Y[,Z]]", help="The launch grid, if the file has no grid hook.")
    ] = None,
    wave: Annotated[
        int | None,
        typer.Option(
            "--wave",
            metavar="K",
            help="Count the distinct input tiles the first K programs "
            "load (K programs running at once, e.g. the number of SMs).",
        ),
    ] = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
):
    """Show which program computes which part of the output, in launch order, and what it reads.

    Runs the kernel's own index arithmetic under Triton's interpreter, on the CPU, recording each
    program's loads and stores (no memory is touched). Scalar arguments need values (-a M=1152).

    Examples:

      tritonscope grid sample:matmul_grouped -a M=1152 -a N=1152 -a K=1152
      -c BLOCK_SIZE_M=128 -c BLOCK_SIZE_N=128 -c BLOCK_SIZE_K=128 -c GROUP_SIZE_M=3 --wave 9

      tritonscope grid sample:matmul -a M=1152 -a N=1152 -a K=1152 --wave 9

      tritonscope grid sample:vector_add -a n_elements=98432
    """
    with _errors_reported(debug):
        from . import interpret
        from .load import load_file
        from .specialize import specialize
        from .targets import resolve

        loaded = load_file(request.file)
        chosen = loaded.pick(request.kernel)
        variant = specialize(chosen, request, loaded.defaults, resolve(request.target)[0])
        values, pointers = _grid_values(variant)
        size = _launch_grid(grid_size, loaded.module, {**values})
        with _progress(f"running {chosen.spec.name} on the interpreter, {len(size)}-D grid {size}"):
            programs = interpret.record(str(loaded.path), chosen.spec.name, values, pointers, size)
        from .render import grid_view

        if json_out:
            sys.stdout.write(grid_view.render_json(variant, size, programs, wave))
        else:
            grid_view.render(_stdout(), variant, size, programs, wave)


def _grid_values(variant):
    """Scalar and constexpr values for the interpreter, and each pointer's element type."""
    from .errors import UsageError
    from .specialize import parse_value

    values, pointers = dict(variant.constexprs), {}
    for name, given in variant.arguments.items():
        if given.startswith("*"):
            pointers[name] = given[1:]
            continue
        try:
            values[name] = parse_value(given)
        except ValueError:
            raise UsageError(
                f"grid runs the index arithmetic and needs a value for {name}: give -a {name}=VALUE"
            ) from None
    return values, pointers


def _launch_grid(text, module, meta) -> tuple[int, ...]:
    from .errors import KernelFileError, UsageError

    if text is not None:
        try:
            size = tuple(int(v) for v in text.split(","))
        except ValueError:
            raise UsageError(f"--grid expects X[,Y[,Z]], got '{text}'") from None
    elif callable(getattr(module, "grid", None)):
        try:
            size = tuple(int(v) for v in module.grid(meta))
        except Exception as exc:  # noqa: BLE001 - the file's own hook
            raise KernelFileError(f"the file's grid hook raised {type(exc).__name__}: {exc}") from None
    else:
        raise UsageError("the launch grid is unknown: give --grid X[,Y[,Z]] or define grid(meta) in the file")
    if not 1 <= len(size) <= 3 or min(size) < 1:
        raise UsageError(f"a launch grid has 1 to 3 positive sizes, not {size}")
    return size


cache_app = typer.Typer(help="Read Triton's cache, or a capture made by `tritonscope trace`.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("list")
def cache_list(
    directory: Annotated[
        Path | None,
        typer.Argument(help="A Triton cache or a capture directory (default: TRITON_CACHE_DIR or ~/.triton/cache)."),
    ] = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
):
    """List the compiled kernels in a Triton cache or capture directory, newest first.

    Any of them can then be shown without recompiling: tritonscope dump DIR/:NAME

    Examples:

      tritonscope cache list

      tritonscope cache list run1/
    """
    with _errors_reported(debug):
        import datetime
        import json

        from rich.table import Table

        from . import cache

        folder = directory or cache.default_dir()
        found = cache.entries(folder)
        if json_out:
            rows = [
                {
                    "name": e.name,
                    "reference": f"{folder}/:{e.name}",
                    "target": e.target,
                    "folder": str(e.folder),
                    "options": {k: e.metadata.get(k) for k in ("num_warps", "num_stages", "num_ctas")},
                    "stages": list(e.stages),
                    "bytes": e.size,
                    "modified": e.modified,
                    "captured": e.specialization is not None,
                }
                for e in found
            ]
            sys.stdout.write(json.dumps(rows, indent=2) + "\n")
            return
        table = Table(title=f"{len(found)} compiled kernels in {folder}", title_justify="left")
        for column in ("kernel", "target", "options", "stages", "size", "modified"):
            table.add_column(column)
        for e in found:
            options = f"warps={e.metadata.get('num_warps')} stages={e.metadata.get('num_stages')}"
            when = datetime.datetime.fromtimestamp(e.modified).strftime("%Y-%m-%d %H:%M")
            table.add_row(e.name, e.target, options, " ".join(e.stages), cache.human_size(e.size), when)
        _stdout().print(table)
        if found:
            _stderr().print(f"[dim]show one with: tritonscope dump {folder}/:{found[0].name}[/]", soft_wrap=True)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def trace(
    command: Annotated[list[str], typer.Argument(help="The program to run, after --.", metavar="-- COMMAND...")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="The capture directory to write.")],
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty capture directory.")] = False,
    debug: DebugOpt = False,
):
    """Run a program and capture every kernel Triton compiles in it (torch.compile's kernels too).

    Each kernel's stages, metadata, source and the specialization Triton used land in DIR;
    `tritonscope cache list DIR` lists them and `tritonscope dump DIR/:NAME` shows one.

    Example:

      tritonscope trace -o run1/ -- python train.py --steps 3
    """
    with _errors_reported(debug):
        import shutil
        import subprocess

        from . import cache
        from .errors import UsageError
        from .render.files import check_destination

        check_destination(out, force)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        try:
            finished = subprocess.run(command, env=cache.environment_for_capture(out.resolve()))
        except OSError as exc:
            raise UsageError(f"cannot run {command[0]}: {exc.strerror}") from None
        found = cache.entries(out) if (out / "cache").is_dir() else []
        _stderr().print(
            f"captured {len(found)} compiled kernel(s) into {out}: " + ", ".join(sorted({e.name for e in found})),
            soft_wrap=True,
        )
        if finished.returncode != 0:
            raise typer.Exit(finished.returncode)


@contextmanager
def _sweep_progress(total: int):
    """A progress bar on stderr where it is a terminal; yields the callback that advances it."""
    if not _stderr().is_terminal:
        yield lambda outcome: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("compiling variants"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_stderr()
    ) as progress:
        task = progress.add_task("compile", total=total)
        yield lambda outcome: progress.advance(task)


def _write_page(path: Path, page: str) -> None:
    from .fileio import write_text_atomically

    write_text_atomically(path, page)
    _stderr().print(f"wrote {path}")


def _print_notices(compilation) -> None:
    for notice in compilation.notices:
        _stderr().print(f"[dim]{_escape(notice)}[/]", soft_wrap=True)


def _view(compilation, line, lines, keep_loc: bool, annotate: bool):
    from .linemap import requested_lines
    from .render.console import View

    return View(keep_loc=keep_loc, annotate=annotate, source_lines=requested_lines(compilation, line, lines))


def _page(no_pager: bool, draw) -> None:
    """Draws on stdout, through a pager when stdout is a terminal (less quits at once if it fits)."""
    console = _stdout()
    pager = console.is_terminal and not no_pager
    if pager:
        os.environ.setdefault("LESS", "-RFX")
    with console.pager(styles=True) if pager else nullcontext():
        draw(console)


def main() -> None:
    app()
