"""`tritonscope fit`: every autotune config of a kernel (or a --vary grid) compiled for every target,
each judged against that target's limits: fits, does not fit (and why), does not compile.

Each config x target is one compile, run by the executor (local workers, or Ray with --cluster) and
judged where it ran (analysis/fitting.py), so only a verdict and a few figures come back. The compile
reads the binary's resource listing, not its SASS; where shared memory is over the limit, the buffers
that make it up are listed as `explain` lists them (analysis/findings/target.py). A capture folder
(`trace -o DIR`) gives its kernels' compiles as the rows, each rebuilt from its record.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..analysis.fitting import checked_budgets, figures, judge
from ..core.errors import CompileError, UsageError
from ..core.model import OPTION_NAMES, VLLM_TILES, AutotuneConfig, Budget, ParamKind, VariantRequest
from ..core.source import CachedKernel, CaptureFolder
from ..core.values import format_value
from ..isolate import Executor, Outcome, Task, pool
from ..results.fit import NO_COMPILE, NOT_COMPILED, Cell, ConfigRow, FitResult, KernelFit
from ..triton_api import version
from . import launch
from .fit_rank import Ranker, Ranking, ToRank, why_not, with_estimates
from .walk import releases, sweep

# A T4, an A100, an A10 or RTX 3090, an L4 or RTX 4090, an H100, a B200, an RTX 5090 and an MI300X.
DEFAULT_TARGETS = ("sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "gfx942")
NO_SASS = "SASS not read: fit judges the resource listing and the TTGIR"


@dataclass(frozen=True)
class Plan:
    """One kernel's rows, each with the request that compiles it (for the first target) and, for a
    capture's, its recorded launches (whose grid `--rank` estimates)."""

    kernel: str
    file: str
    specialization: str
    rows: tuple[ConfigRow, ...]
    requests: tuple[VariantRequest, ...]
    launches: tuple[tuple[dict, ...], ...] = ()
    notes: tuple[str, ...] = ()  # the autotune configs another target's import makes differ (the rows are the first's)
    sizes: tuple[str, ...] = ()  # the varied arguments: sizes of the launch, each ranked apart
    configs_by_target: bool = False  # the first of `notes` say so
    pruned: tuple[str, ...] = ()  # the kernel's autotuner prunes its configs itself: said
    parameters: tuple[str, ...] = ()  # the kernel's arguments and constexprs, as a --grid may name them


def fit(
    request: VariantRequest,
    targets: tuple[str, ...],
    axes: list[sweep.Axis],
    budgets: tuple[Budget, ...],
    jobs: int,
    timeout: float,
    on_done: Callable[[int, int], None] | None = None,
    ranking: Ranking | None = None,
) -> FitResult:
    """The matrix of one kernel of a file: its autotune configs (and --vary axes) x `targets`;
    `on_done(compiled, of)` as each compile ends; with `ranking`, each cell's launch time
    (app/fit_rank.py)."""
    checked_budgets(budgets)
    with pool(jobs=jobs, timeout=timeout) as workers:
        if request.triton is None:  # workers start while this process loads the kernel file
            workers.warm(count=jobs, preload=sweep.COMPILE_MODULE)
        plan = plan_file(replace(request, target=targets[0]), axes, targets[1:])
        if ranking is not None and ranking.grid is not None:  # a name the kernel lacks: refused before compiling
            ranking.grid.check_names(plan.parameters)
        kernels = matrices([plan], targets, budgets, workers, on_done, ranking)
    notes = (*plan.notes, *plan.pruned, *_fixed_grid(ranking, plan))
    result = FitResult(kernels, tuple(b.text for b in budgets), request.triton or version.installed(), notes)
    return replace(result, ranked=ranking is not None, configs_by_target=plan.configs_by_target)


def _fixed_grid(ranking: Ranking | None, plan: Plan) -> tuple[str, ...]:
    """A --grid that no varied constexpr enters (`--grid 1024` over configs of 32 to 128 rows a block):
    each config's launch then does another share of the work, and ranking them compares unlike launches."""
    if ranking is None or ranking.grid is None:
        return ()
    named = set(ranking.grid.names())
    names = {name for row in plan.rows for name in row.values} - set(OPTION_NAMES) - set(plan.sizes)
    varied = sorted(name for name in names if len({repr(row.values.get(name)) for row in plan.rows}) > 1)
    if not varied or named & set(varied):
        return ()
    return (
        f"--grid {ranking.grid.text} is the same for every config, though the configs differ in "
        f"{', '.join(varied)}: each launch does another share of the work, so the ranking compares unlike "
        f"launches; give the grid as the kernel's launch computes it (--grid '{_grid_example(plan, varied)}')",
    )


def _grid_example(plan: Plan, varied: list[str]) -> str:
    """A --grid in the kernel's own names: each varied constexpr over the argument its name ends in
    (BM over M, BLOCK_SIZE_N over N), in the arguments' order, two at most; the example named BLOCK_M
    for a kernel of BM and BN, and copied as written it was refused (h26a)."""
    order = {name: index for index, name in enumerate(plan.parameters)}
    pairs = sorted(
        (order[size], size, block)
        for block in varied
        for size in plan.parameters
        if size not in varied and re.search(rf"(?:^|_|B){re.escape(size)}$", block)
    )
    if not pairs:  # no name tells which size a block tiles: the size left to the user
        return f"cdiv(SIZE, {varied[0]})"
    return " * ".join(f"cdiv({size}, {block})" for _, size, block in pairs[:2])


def plan_file(request: VariantRequest, axes: list[sweep.Axis], others: tuple[str, ...] = ()) -> Plan:
    """The rows of a kernel file's kernel: its autotune configs times the --vary axes (a grid where it
    has no configs; the variant as given where it has neither). `others`: the other targets, whose
    configs a file that builds them from the GPU makes differently (each cell compiles its own)."""
    from .walk.load import load_file
    from .walk.prepare import from_reference, prepare

    request = from_reference(request)
    loaded = load_file(request.source, request.target_info)
    picked = loaded.pick(request.kernel)
    spec = picked.spec
    _refuse_given_config_keys(request, spec)
    configs: list[AutotuneConfig | None] = list(spec.autotune_configs) or [None]
    outcomes = sweep.expand(request, axes, spec, configs=bool(spec.autotune_configs), at_least=1)
    # the first row specialized, for the arguments' types: a constexpr with no default may come
    # from an axis (--vary BLOCK=...), as in diff
    # (the first row whose config can be: a bad one is its own cell's error; where all fail, the first's)
    prepared = next((p for p in map(_prepared, outcomes) if p is not None), None) or prepare(outcomes[0].request)
    combos = itertools.product(configs, *(a.values for a in axes))
    rows = [_row(config, dict(zip([a.name for a in axes], values, strict=True))) for config, *values in combos]
    # the constexprs given with -c too (the problem's size, N=4096: the matrix holds for it alone), and a
    # varied argument with all its values (the first row's alone was shown: EM=16 of 16,1024; h20a)
    varied = {a.name: ",".join(map(format_value, a.values)) for a in axes}
    given = [(k, format_value(v)) for k, v in request.constexprs if k not in varied]
    shown = [(k, varied.get(k) or format_value(v)) for k, v in prepared.variant.arguments.items()]
    specialization = " ".join(f"{k}={v}" for k, v in (*shown, *given))
    requests = tuple(o.request for o in outcomes)
    notes = _configs_by_target(request, spec, others) if loaded.simulated else ()
    kinds = {p.name: p.kind for p in spec.params}
    sizes = tuple(a.name for a in axes if a.name in kinds and kinds[a.name] is not ParamKind.CONSTEXPR)
    pruned = _pruned_by_the_kernel(spec.name, picked.wrappers)
    parameters = tuple(p.name for p in spec.params)
    return Plan(
        spec.name,
        request.file,
        specialization,
        tuple(rows),
        requests,
        (),
        notes,
        sizes,
        bool(notes),
        pruned,
        parameters,
    )


def _pruned_by_the_kernel(name: str, wrappers: tuple[Any, ...]) -> tuple[str, ...]:
    """A note where the kernel's autotuner prunes its configs itself (prune_configs_by): fit compiles and
    ranks every config, those it would prune too, and a pruner --emit-prune writes would replace it."""
    from ..triton_api.kernels import config_pruners

    found = [p for wrapper in wrappers for p in config_pruners(wrapper)]
    if not found:
        return ()
    return (
        f"{name}'s autotuner prunes its configs itself (prune_configs_by: {', '.join(found)}), by the launch's "
        "arguments: every config is compiled and ranked here, those it would prune too; a pruner --emit-prune "
        "writes takes the place of its own",
    )


def _configs_by_target(request: VariantRequest, spec, others: tuple[str, ...]) -> tuple[str, ...]:
    """Where the file's import asked the (simulated) GPU for its autotune configs (attorch picks
    num_stages by compute capability): what the other targets' imports make otherwise."""
    from .walk.load import load_file

    first = [c.values for c in spec.autotune_configs]
    notes = []
    for target in others:
        their_spec = load_file(request.source, replace(request, target=target).target_info).pick(spec.name).spec
        theirs = [c.values for c in their_spec.autotune_configs]
        changed = [
            f"#{i} " + ", ".join(f"{k}={v}" for k, v in t.items() if mine.get(k) != v)
            for i, (mine, t) in enumerate(zip(first, theirs, strict=False))
            if mine != t
        ]
        if len(theirs) != len(first):
            changed.append(f"{len(theirs)} configs, not {len(first)}")
        if changed:
            notes.append(
                f"the file makes its autotune configs from the GPU: each column compiles its own target's, "
                f"and the rows name {request.target}'s; {target}'s differ: {'; '.join(changed)}"
            )
    return tuple(notes)


def _refuse_given_config_keys(request: VariantRequest, spec) -> None:
    """A -c the autotune configs set themselves: each row's label would name the config's value while
    the compile took the given one (and Triton refuses a launch that gives it too)."""
    given = dict(request.constexprs)
    set_by_configs = sorted({k for c in spec.autotune_configs for k in c.constexprs} & set(given))
    if set_by_configs:
        name = set_by_configs[0]
        raise UsageError(
            f"-c {name}={given[name]}: {spec.name}'s autotune configs set {name} themselves, and Triton refuses "
            "a launch that gives it too",
            hint=f"to try other values in every config: --vary {name}={given[name]},...; one config: dump --config N",
        )


def _prepared(outcome):
    """A row's request prepared, or None where its config cannot be (its cell says why)."""
    from .walk.prepare import prepare

    try:
        return prepare(outcome.request)
    except CompileError:
        return None


def _row(config: AutotuneConfig | None, varied: dict[str, Any]) -> ConfigRow:
    values: dict[str, Any] = {**(config.values if config else {}), **varied}
    # num_ctas=1 is every config's (Triton's default): kept to match a triton.Config by, not shown
    label = {name: format_value(value) for name, value in values.items() if (name, value) != ("num_ctas", 1)}
    return ConfigRow(label, values, config.index if config else None)


def matrices(
    plans: list[Plan],
    targets: tuple[str, ...],
    budgets: tuple[Budget, ...],
    workers: Executor,
    on_done: Callable[[int, int], None] | None = None,
    ranking: Ranking | None = None,
) -> tuple[KernelFit, ...]:
    """Every plan's rows x targets, compiled in one run of the workers (all kernels share them). Ctrl-C
    stops the compiles: the cells that ended stand, the others are NOT_COMPILED (the result is partial)."""
    requests = [replace(r, target=t) for plan in plans for r in plan.requests for t in targets]
    recorded = [ran for plan in plans for ran in (plan.launches or ((),) * len(plan.requests)) for _ in targets]
    cells: list[Cell | None] = [None] * len(requests)
    order = _ranking_order(requests) if ranking is not None else list(range(len(requests)))
    ranker = Ranker([[i for i in order if requests[i].target == t] for t in targets]) if ranking else None

    def done(at: int, outcome: Outcome) -> None:
        index = order[at]
        cells[index] = cell_of(outcome, ranker, index)
        if on_done:
            on_done(sum(cell is not None for cell in cells), len(cells))

    tasks = [_task(requests[i], budgets, ranking, recorded[i]) for i in order]
    try:
        workers.run(tasks, on_done=done)
    except KeyboardInterrupt:  # the running compiles are cancelled; what ended is shown, said partial
        cells = [cell or Cell(NOT_COMPILED, "Ctrl-C stopped fit before this compile ended") for cell in cells]
    finally:
        estimates = ranker.finish() if ranker is not None else {}
    finished = with_estimates([cell for cell in cells if cell is not None], estimates)
    if len(finished) != len(requests):
        raise RuntimeError(f"the executor answered {len(finished)} of {len(requests)} compiles")
    found, at = [], 0
    for plan in plans:
        grid = []
        for _ in plan.rows:
            grid.append(tuple(finished[at : at + len(targets)]))
            at += len(targets)
        fitted = KernelFit(plan.kernel, plan.file, plan.specialization, plan.rows, targets, tuple(grid), plan.sizes)
        found.append(fitted)
    return tuple(found)


def _ranking_order(requests: list[VariantRequest]) -> list[int]:
    """The compiles in the order `--rank` wants them: a target's cells together, so that its estimates
    are made while the next target's compile (app/fit_rank.py), and the targets with no estimate last,
    compiled while the last estimates are made."""
    columns = list(dict.fromkeys(r.target for r in requests))

    def key(index: int) -> tuple[bool, int, int]:
        request = requests[index]
        target = request.target_info
        no_estimate = target is None or target.backend != "cuda" or target.speeds is None
        return no_estimate, columns.index(request.target), index

    return sorted(range(len(requests)), key=key)


def _task(
    request: VariantRequest, budgets: tuple[Budget, ...], ranking: Ranking | None = None, launched: tuple = ()
) -> Task:
    if ranking is not None:
        arguments: tuple = (request, budgets, ranking, launched)
        return releases.task(measure_ranked, arguments, request.triton, (request.file,))
    return releases.task(measure, (request, budgets), request.triton, (request.file,))


def cell_of(outcome: Outcome, ranker: Ranker | None = None, index: int = 0) -> Cell:
    """A worker's cell (a ranked one's compile handed to the ranker), or a compile that failed as a cell
    that says why in one line."""
    to_rank = None
    if not outcome.ok:
        cell = Cell(NO_COMPILE, one_line(outcome.error or "failed"))
    elif isinstance(outcome.value, tuple):
        cell, to_rank = outcome.value
    else:
        cell = outcome.value
    if ranker is not None:
        ranker.add(index, to_rank)
    return cell


def one_line(error: str) -> str:
    """The compiler's reason in one line: the first line, without the `FILE:LINE: KERNEL does not compile
    for TARGET:` that every cell of the column would repeat."""
    first = error.strip().splitlines()[0] if error.strip() else "failed"
    _, sep, rest = first.partition(" does not compile")
    if sep:
        first = rest.partition(": ")[2] or first
    return first


def measure(request: VariantRequest, budgets: tuple[Budget, ...]) -> Cell:
    """In a worker: one config compiled for one target and judged there."""
    from .walk.prepare import compile_undisassembled

    return judged(compile_undisassembled(request), budgets)


def measure_ranked(
    request: VariantRequest, budgets: tuple[Budget, ...], ranking: Ranking, launched: tuple[dict, ...] = ()
) -> tuple[Cell, ToRank | None]:
    """In a worker: the cell as `fit` judges it, and what this process needs to estimate its launch
    (`launched`: a captured launch of it, whose grid and values stand)."""
    from .walk.prepare import compile_undisassembled, prepare

    compiled = compile_undisassembled(request)
    cell = judged(compiled, budgets)
    target = compiled.target
    why = why_not(cell, target)
    if why is not None:
        return replace(cell, estimate_note=why), None
    module = prepare(request).module if not launched else None  # its grid(meta), its defaults
    try:
        grid = launch.grid_for(compiled.variant, ranking.grid, module, launched)
    except UsageError as exc:  # --grid names what the kernel lacks: the command refuses it (FitResult.refused_grid)
        said = exc.message + (f" ({exc.hint})" if exc.hint else "")
        refused = said if ranking.grid is not None else None  # the user's --grid, not the file's own grid
        return replace(cell, estimate_note=f"no estimate: {said}", grid_refused=refused), None
    if isinstance(grid, str):
        return replace(cell, estimate_note=grid), None
    # LLVM IR, the largest text, is not read by the estimate: it stays in the worker
    unread = {key: text for key, text in compiled.artifacts.texts.items() if key != "llir"}
    compiled = replace(compiled, artifacts=replace(compiled.artifacts, texts=unread))
    return cell, ToRank(compiled, grid[0], grid[1])


def judged(compiled, budgets: tuple[Budget, ...]) -> Cell:
    """A compile (`prepare.Undisassembled`) judged against its target's limits and the budgets."""
    from ..analysis.artifacts import read_resources

    resources = read_resources(compiled.target, compiled.artifacts)
    metadata = compiled.artifacts.metadata
    verdict = judge(compiled.target, resources, metadata["num_warps"], metadata.get("tmem_size"), budgets)
    buffers = _buffers(compiled) if verdict.limit == "shared memory" else ()
    return Cell(verdict.verdict, verdict.reason, figures(resources), verdict.limit, buffers)


def _buffers(compiled) -> tuple[str, ...]:
    """The shared buffers of a compile, largest first, as explain's shared-memory finding lists them."""
    from ..analysis.artifacts import to_compilation
    from ..analysis.findings import Kernel
    from ..analysis.findings.target import shared_buffer_list

    artifacts = compiled.artifacts
    if compiled.target.backend == "cuda":  # the SASS was never read: said, so that none is expected
        artifacts = replace(artifacts, notices=(*artifacts.notices, NO_SASS))
    c = to_compilation(compiled.spec, compiled.variant, artifacts, compiled.target)
    listed = sorted(shared_buffer_list(Kernel.of(c)), key=lambda buffer: -buffer[2])
    return tuple(text for _, text, _, _ in listed)


def refuse_vllm_names(request: VariantRequest, target, varied: list[str]) -> None:
    """A kernel whose configs cannot give vLLM's tile names, refused before any compile (it was refused
    after compiling every cell, with no matrix shown: h23a): its autotune configs' names, the later
    --vary and the -c given, read from the file (a capture's kernels are checked as the file is written)."""
    from .catalog import list_kernels

    if isinstance(request.source, (CaptureFolder, CachedKernel)):
        return
    found = list_kernels(request.source, target)
    kernels = [k for k in getattr(found, "kernels", ()) if not k.is_helper and k.name == (request.kernel or k.name)]
    if len(kernels) != 1:  # the command's own error says which to pick
        return
    (kernel,) = kernels
    configs = [set(c.values) for c in kernel.autotune_configs] or [set()]
    given = set(varied) | {name for name, _ in request.constexprs}
    lacking = [name for name in VLLM_TILES if any(name not in names | given for names in configs)]
    if lacking:
        raise UsageError(
            f"--emit-config vllm: {kernel.name}'s configs have no {', '.join(lacking)}, which vLLM's fused-MoE "
            "configs give; vLLM would not read the file",
            hint="for another kernel, --emit-prune FILE.py --keep N writes a pruner that keeps its fastest",
        )
