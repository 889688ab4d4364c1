"""The launch a whole launch's time is estimated for: its grid, from `--grid` (an expression of the
arguments and constexprs, core/launch_grid.py), else the captured launch (`DIR/:NAME`, `--from-run`),
else the kernel file's `grid(meta)` hook; its values, the variant's arguments and the captured
launch's. `explain` and each `fit` cell (in its worker) ask here."""

from __future__ import annotations

from typing import Any

from ..analysis import launch_time
from ..analysis.launch_time import LaunchEstimate
from ..analysis.line_time import TimeEstimate
from ..core import launch_grid
from ..core.launch_grid import GridSpec
from ..core.model import Compilation, Variant

CAPTURED, HOOK = "the captured launch", "the file's grid(meta)"
NO_GRID = "the launch grid is not known: give --grid X[,Y[,Z]] (or define grid(meta) in the file) for the launch's time"


def meta(variant: Variant, launches: tuple[dict, ...] = ()) -> dict[str, Any]:
    """What a grid is computed from: the constexprs, then the integer arguments the launch gives (the
    variant's, then a recorded launch's)."""
    found = {**variant.constexprs}
    found.update((n, v) for n, v in variant.arguments.items() if isinstance(v, int) and not isinstance(v, bool))
    for launch in launches[:1]:
        for name, arg in zip(launch.get("params") or (), launch.get("args") or (), strict=False):
            if isinstance(arg, dict) and arg.get("kind") == "int" and isinstance(arg.get("value"), int):
                found[name] = arg["value"]
    return found


CUDA_GRID = (2**31 - 1, 65535)  # the most blocks along x, and along y or z


def grid_for(
    variant: Variant, spec: GridSpec | None, module: Any = None, launches: tuple[dict, ...] = ()
) -> tuple[tuple[int, ...], str] | str:
    """(the grid, where it came from), or why it is not known. A --grid that names an unknown value is
    the user's to fix (UsageError); a grid hook that fails is said."""
    found = _grid(variant, spec, module, launches)
    if isinstance(found, str) or variant.target_info is None or variant.target_info.backend != "cuda":
        return found
    sizes = launch_grid.three(found[0])
    if sizes[0] > CUDA_GRID[0] or max(sizes[1:]) > CUDA_GRID[1]:
        shown = ", ".join(f"{size:,}" for size in found[0])
        most = f"{CUDA_GRID[0]:,} x {CUDA_GRID[1]:,} x {CUDA_GRID[1]:,}"
        return f"a CUDA launch takes a grid of at most {most}, not ({shown}): Triton's launch would fail"
    return found


def _grid(
    variant: Variant, spec: GridSpec | None, module: Any, launches: tuple[dict, ...]
) -> tuple[tuple[int, ...], str] | str:
    values = {**_file_defaults(module), **meta(variant, launches)}
    if spec is not None:
        return spec.evaluate(values, [*variant.arguments, *variant.constexprs]), spec.given_by
    if launches and launches[0].get("grid"):
        return tuple(int(g) for g in launches[0]["grid"]), CAPTURED
    hook = getattr(module, "grid", None)
    if not callable(hook):
        return NO_GRID
    try:
        sizes = tuple(int(v) for v in hook(values))
    except Exception as exc:  # noqa: BLE001 - the file's own hook
        missing = f"no {exc} in its meta" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        return f"the file's grid(meta) gave no launch grid ({missing}): give --grid, or -a for the value"
    return (sizes, HOOK) if sizes and min(sizes) >= 1 else f"the file's grid(meta) gave {sizes}: give --grid"


def _file_defaults(module: Any) -> dict[str, Any]:
    """The integers a kernel file's `tritonscope_defaults` gives that are not the kernel's own arguments
    (a row count the grid hook reads: docs/kernel-files.md)."""
    defaults = getattr(module, "tritonscope_defaults", None)
    if not isinstance(defaults, dict):
        return {}
    return {k: v for k, v in defaults.items() if isinstance(v, int) and not isinstance(v, bool)}


def axes(grid: tuple[tuple[int, ...], str] | str) -> tuple[int, int, int] | None:
    """A grid `grid_for` found, in three axes (the per-line estimate's: a persistent kernel's loop over
    `tl.num_programs` runs by it); None where there is none."""
    return None if isinstance(grid, str) else launch_grid.three(grid[0])


def estimate(
    c: Compilation, grid: tuple[tuple[int, ...], str] | str, per_warp: TimeEstimate | None = None
) -> tuple[LaunchEstimate | None, str | None]:
    """(the launch's time for the grid `grid_for` found, None) or (None, why there is none)."""
    if isinstance(grid, str):
        return None, grid
    found = launch_time.estimate(c, grid[0], grid[1], per_warp)
    if found is not None:
        return found, None
    return None, _why_not(c)


def _why_not(c: Compilation) -> str:
    target = c.variant.target_info
    if target.speeds is None:
        return f"no launch time for {target.name}: the targets table has no figures for its GPUs (docs/targets.md)"
    if not c.resources.occupancy.blocks_per_sm:
        return "no launch time: no block fits on an SM"
    return "no launch time: the per-warp model reads the SASS, which is not there"
