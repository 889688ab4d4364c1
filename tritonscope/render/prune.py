"""`fit --emit-prune FILE`: the matrix of one kernel written as a small Python module whose
`prune_configs`, given to `@triton.autotune(prune_configs_by={"early_config_prune": ...})`, keeps
exactly the configs fit found to fit the GPU a launch runs on. The module needs Triton, not tritonscope."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..core.errors import UsageError
from ..core.targets import named
from ..results.fit import FitResult, KernelFit

_PLAIN = (bool, int, float, str, type(None))  # values written as Python literals; others are not compared

_FUNCTIONS = '''

def device_target():
    """The target of the GPU this process launches on, by its capability: sm90 for an H100 (h200 for an
    H200, where the table has it), gfx942 for an MI300X."""
    from triton.runtime import driver

    target = driver.active.get_current_target()
    if target.backend != "cuda":
        return str(target.arch).split(":")[0]
    if target.arch == 90 and "h200" in FITS and "H200" in _device_name():
        return "h200"
    return f"sm{target.arch}"


def _device_name():
    try:
        import torch

        return torch.cuda.get_device_name()
    except Exception:  # noqa: BLE001 - no torch, or no name: the capability alone
        return ""


def device_shared_limit():
    """The shared memory (LDS) one block may use on this GPU, as Triton reads it (max_shared_mem)."""
    from triton.runtime import driver

    device = driver.active.get_current_device()
    return driver.active.utils.get_device_properties(device)["max_shared_mem"]


def fitting(configs, target, shared_limit=None, named_args=None):
    """The configs (triton.Config) that fit `target`; with KEEP, its KEEP fastest of them (FASTEST), among
    the rows of the launch's SIZES (`named_args`). For a target FITS lacks: those whose shared memory,
    on the nearest NVIDIA target below it, is within `shared_limit`; all of them where neither is known."""
    rows = _of_this_size(named_args)
    fastest = [i for i in FASTEST.get(target, []) if i in rows]
    if KEEP and fastest:
        chosen = [CONFIGS[i] for i in fastest[:KEEP]]
    elif target in FITS:
        chosen = [CONFIGS[i] for i in FITS[target] if i in rows]
    else:
        nearest = _nearest(target)
        if nearest is None or shared_limit is None:
            return list(configs)
        chosen = [CONFIGS[i] for i, need in enumerate(SHARED[nearest]) if need is not None and need <= shared_limit]
    return [config for config in configs if any(_matches(config, row) for row in chosen)]


def prune_configs(configs, named_args, **kwargs):
    """early_config_prune: the configs that fit the GPU this launch runs on."""
    target = device_target()
    kept = fitting(configs, target, None if target in FITS else device_shared_limit(), named_args)
    if not kept:
        raise RuntimeError(
            f"no autotune config of {KERNEL} fits {target}: each needs more than it has (tritonscope fit "
            "shows why); add a smaller config"
        )
    return kept


def _matches(config, row):
    """A row of CONFIGS is this config: its values, but for the launch's SIZES, which no config sets."""
    values = config.all_kwargs()
    return all(name in values and values[name] == value for name, value in row.items() if name not in SIZES)


def _of_this_size(named_args):
    """The rows of CONFIGS for the launch's values of SIZES; a size the matrix lacks takes the rows of
    the nearest one it has (as vLLM takes the config of the nearest M), not every size's rows ranked
    together, where the smallest size's fastest would win at any size."""
    every = set(range(len(CONFIGS)))
    given = {name: named_args[name] for name in SIZES if named_args and _number(named_args.get(name))}
    sizes = {tuple(row.get(n) for n in given) for row in CONFIGS}
    sizes = [values for values in sizes if all(_number(v) for v in values)]
    if not given or not sizes:
        return every
    nearest = min(sizes, key=lambda values: sum(abs(v - g) for v, g in zip(values, given.values())))
    return {i for i, row in enumerate(CONFIGS) if tuple(row.get(n) for n in given) == nearest}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _nearest(target):
    """The NVIDIA target of SHARED with the highest capability at or below `target`'s (sm86 for an sm87)."""
    if not target.startswith("sm") or not target[2:].isdigit():
        return None
    known = [name for name in SHARED if name.startswith("sm") and int(name[2:]) <= int(target[2:])]
    return max(known, key=lambda name: int(name[2:]), default=None)
'''


class PruneRenderer:
    def __init__(self, module: str | None = None, keep: int | None = None):
        self.module = module  # the name the written file is imported by (--emit-prune's file's stem)
        self.keep = keep  # --keep N: the N fastest of those that fit (fit --rank's estimates)

    def render(self, result: FitResult) -> str:
        if len({k.kernel for k in result.kernels}) != 1:
            raise UsageError("--emit-prune writes one kernel's pruner: name the kernel with -k")
        k = result.kernels[0]  # a capture's kernel launched at several specializations: the first's matrix
        module = self.module or f"{k.kernel.strip('_')}_fit"
        header = _header(k, result, module)
        if len(result.kernels) > 1:
            header += f"# The first of the {len(result.kernels)} specializations the capture compiled it with.\n"
        return header + _tables(k) + _ranking(k, self.keep) + _FUNCTIONS


def _ranking(k: KernelFit, keep: int | None) -> str:
    """KEEP and FASTEST: per target, the configs that fit, fastest first by fit --rank's estimates."""
    lines = [
        "",
        "# KEEP (--keep): how many of the fastest configs that fit a target are kept (0: all that fit).",
        f"KEEP = {keep or 0}",
    ]
    lines += [
        "",
        "# For each target: the configs that fit, fastest first (fit --rank's estimated launch time).",
        "FASTEST = {",
    ]
    for target in k.targets:
        order = k.ranked(target)
        times = ", ".join(f"#{i} {k.column(target)[i].estimate.kernel_us:.1f} us" for i in order[:3])  # type: ignore[union-attr]
        lines.append(f"    {target!r}: {list(order)},  # {times}" if order else f"    {target!r}: [],")
    return "\n".join([*lines, "}", ""])


def _header(k: KernelFit, result: FitResult, module: str) -> str:
    return (
        f'"""The autotune configs of {k.kernel} that fit each GPU: a pruner for @triton.autotune.\n\n'
        f"Written by tritonscope {__version__} (`tritonscope fit`) from {k.file}, compiled with Triton "
        f"{result.triton_version}\nfor the kernel specialized as: {k.specialization or 'recorded'}\n"
        "The shared memory a config needs depends on that specialization (the element types above all): run\n"
        "fit again when it changes.\n\n"
        f"    from {module} import prune_configs\n\n"
        '    @triton.autotune(configs=..., key=[...], prune_configs_by={"early_config_prune": prune_configs})\n'
        '"""\n\n'
        f"KERNEL = {k.kernel!r}\n"
    )


def _tables(k: KernelFit) -> str:
    lines = ["", "# The launch's sizes the matrix was made at (--vary): its rows' values that no config sets."]
    lines += [f"SIZES = {list(k.sizes)!r}", ""]
    lines += ["# The configs fit compiled, by what tells them apart (a triton.Config's kwargs and options)."]
    lines.append("CONFIGS = [")
    lines += [f"    {_row(row.values)},  # {index}" for index, row in enumerate(k.rows)]
    lines += ["]", "", "# For each target: the configs (indices into CONFIGS) that fit it.", "FITS = {"]
    lines += [f"    {target!r}: {list(k.fitting(target))},  # {_described(k, target)}" for target in k.targets]
    lines += ["}", "", "# The shared memory (bytes) each config's launch asks on each target, which Triton holds"]
    lines += ["# to the device's limit (the driver's reserved KiB left out); None: it did not compile."]
    lines += ["SHARED = {"]
    for target in k.targets:
        needs = [cell.figures.get("launch_shared") for cell in k.column(target)]  # held to the device's limit
        lines.append(f"    {target!r}: {needs},")
    return "\n".join([*lines, "}", ""])


def _row(values: dict[str, Any]) -> str:
    plain = {name: value for name, value in values.items() if isinstance(value, _PLAIN)}
    return "{" + ", ".join(f"{name!r}: {value!r}" for name, value in plain.items()) + "}"


def _described(k: KernelFit, target: str) -> str:
    known = named(target)
    if known is None:
        return target
    limit = known.shared_limit
    words = known.vendor.words.shared
    held = (
        f"{limit // 1024} KiB of {words} per block"
        if limit is not None
        else f"{words} limit unknown: kept all that compile"
    )
    return f"{known.description}: {held}"
