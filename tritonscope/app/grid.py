"""`tritonscope grid`: which program writes which part of the output, and what it reads.

The kernel's own index arithmetic runs under Triton's interpreter in an isolated worker
(triton_api/interpreter.py); this module turns its record into Programs and counts tiles.
"""

from __future__ import annotations

import importlib.util

from ..core.errors import KernelFileError, UsageError
from ..core.launch_grid import GridSpec
from ..core.model import VariantRequest
from ..core.source import CellKernel
from ..core.stages import Language
from ..core.values import TypeName
from ..isolate import Workers, task
from ..results.grid import Access, GridResult, Program
from .walk.prepare import prepare
from .walk.releases import in_release

MAX_PROGRAMS = 1_000_000  # programs the interpreter runs one by one: more would take hours


@in_release
def grid(
    request: VariantRequest, size: tuple[int, ...] | GridSpec | None, wave: int | None, timeout: float
) -> GridResult:
    """`size`: numbers, or `--grid`'s expressions of the arguments and constexprs (`cdiv(M, BLOCK_M)`),
    as explain and fit take them; None: the file's grid(meta)."""
    if wave is not None and wave < 1:  # every front end's: the API's wave=0 drew no wave
        raise UsageError(f"--wave must be at least 1, not {wave}")
    prepared = prepare(request)
    if prepared.kernel.spec.language == Language.GLUON:
        raise UsageError(
            f"{prepared.kernel.spec.name} is a @gluon.jit kernel: grid runs kernels under Triton's interpreter, "
            f"which runs @triton.jit kernels only",
            hint="dump, explain and layout show what a Gluon kernel's programs do",
        )
    values, pointers = _values(prepared.variant)
    if isinstance(size, GridSpec):
        names = [p.name for p in prepared.kernel.spec.params]
        size = size.evaluate({**values, **dict(prepared.variant.constexprs)}, names)[: len(size.sizes)]
    size = check_grid(size) if size else launch_grid(prepared.module, values)
    source = prepared.request.source
    where = source if isinstance(source, CellKernel) else str(prepared.kernel.spec.file)
    programs = record(where, prepared.kernel.spec.name, values, pointers, size, timeout)
    loads = wave_loads(programs, wave) if wave else None
    return GridResult(prepared.variant, size, tuple(programs), wave, loads)


def _values(variant) -> tuple[dict, dict]:
    """Scalar and constexpr values for the interpreter, and each pointer's type."""
    values, pointers = dict(variant.constexprs), {}
    for name, given in variant.arguments.items():
        if isinstance(given, TypeName) and given.is_pointer:
            pointers[name] = str(given)
        elif isinstance(given, TypeName):
            raise UsageError(f"grid runs the index arithmetic and needs a value for {name}: give -a {name}=VALUE")
        else:
            values[name] = given
    return values, pointers


def launch_grid(module, meta: dict) -> tuple[int, ...]:
    """The launch grid from the kernel file's `grid(meta)` hook."""
    hook = getattr(module, "grid", None)
    if not callable(hook):
        raise UsageError("the launch grid is unknown: give --grid X[,Y[,Z]] or define grid(meta) in the file")
    try:
        size = tuple(int(v) for v in hook(meta))
    except Exception as exc:  # noqa: BLE001 - the file's own hook
        raise KernelFileError(f"the file's grid hook raised {type(exc).__name__}: {exc}") from None
    return check_grid(size)


def check_grid(size: tuple[int, ...]) -> tuple[int, ...]:
    if not 1 <= len(size) <= 3 or min(size) < 1:
        raise UsageError(f"a launch grid has 1 to 3 positive sizes, not {size}")
    programs = 1
    for extent in size:
        programs *= extent
    if programs > MAX_PROGRAMS:
        raise UsageError(
            f"a grid of {size} is {programs:,} programs; grid runs each on the interpreter, at most {MAX_PROGRAMS:,}",
            hint="give smaller sizes (-a), or larger blocks (-c), to see the same pattern",
        )
    return size


def record(
    file: str | CellKernel, kernel: str, values: dict, pointers: dict, size: tuple[int, ...], timeout: float
) -> list:
    """Every program's loads and stores, from a run in an isolated worker with the interpreter on."""
    if importlib.util.find_spec("numpy") is None:
        raise UsageError(
            "grid runs Triton's interpreter, which needs numpy", hint="pip install numpy (or tritonscope[grid])"
        )
    with Workers(timeout=timeout, env={"TRITON_INTERPRET": "1"}) as workers:
        workers.warm()  # its start-up overlaps this process's import of the task's module (numpy)
        from ..triton_api import interpreter

        outcome = workers.run([task(interpreter.record, file, kernel, values, pointers, size)])[0]
    if outcome.timed_out:
        stuck = (outcome.error or "").partition("(stuck at ")[2].rstrip(")")
        where = f": stuck at {stuck}" if stuck else ""
        raise UsageError(
            f"the interpreter ran {kernel} for more than {timeout:g} s{where}",
            hint="raise --timeout, or give smaller sizes (-a N=1024): the interpreter runs every program of the grid",
        )
    if not outcome.ok and outcome.exit_code == 1:
        raise KernelFileError(f"the interpreter could not run {kernel}: {outcome.error}")
    return [
        Program(p["index"], tuple(p["pid"]), [Access(**a) for a in p["loads"]], [Access(**a) for a in p["stores"]])
        for p in outcome.unwrap()
    ]


def wave_loads(programs: list[Program], wave: int) -> dict[str, int]:
    """Distinct input tiles (a tile: the elements of one load) the first `wave` programs load, per pointer."""
    seen: dict[str, set] = {}
    for program in programs[:wave]:
        for access in program.loads:
            seen.setdefault(access.param, set()).add(access.key)
    return {param: len(keys) for param, keys in seen.items()}
