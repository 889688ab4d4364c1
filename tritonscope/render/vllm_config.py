"""`fit --rank --emit-config vllm`: the fastest config for each batch size, as vLLM's fused-MoE tuning
writes it (vllm/model_executor/layers/fused_moe/configs/: `{"M": {"BLOCK_SIZE_M": 64, ...,
"num_warps": 4, "num_stages": 3}}`, one object per batch size M, read by `get_moe_configs` and
`try_get_optimal_moe_config`, which take the config of the nearest M). The batch sizes are the values
of the size argument fit varied first (`--vary M=1,16,64`); each gets the config `fit --rank`
estimates fastest on the one target, among those that fit it: an autotune config, or the values of
the other --vary (vLLM's kernel has no autotune configs), with the tile sizes and options given once.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import UsageError
from ..core.model import VLLM_TILES
from ..results.fit import FitResult, KernelFit

_DROPPED = ("num_ctas",)  # Triton's default, every config's: vLLM's configs leave it out
_ORDER = (*VLLM_TILES, "num_warps", "num_stages")  # vLLM's files'


class VllmConfigRenderer:
    def __init__(self, size: str | None = None, fixed: dict[str, Any] | None = None):
        self.size = size  # the varied argument whose values are the batch sizes (M)
        self.fixed = fixed or {}  # the tile sizes and options given once (-c BLOCK_SIZE_K=64, -w 4)

    def render(self, result: FitResult) -> str:
        if len(result.kernels) != 1:
            raise UsageError("--emit-config writes one kernel's configs: name the kernel with -k")
        (k,) = result.kernels
        if len(k.targets) != 1:
            raise UsageError(f"--emit-config writes the configs of one GPU: give one target (--targets {k.targets[0]})")
        if not result.ranked:
            raise UsageError("--emit-config picks each size's fastest config: give --rank")
        size = self.size or _size_name(k)
        if size not in k.sizes:  # a constexpr varied first: its values are no batch sizes
            raise UsageError(
                f"--emit-config vllm: the first --vary ({size}) keys the file by batch size, so it is an argument of "
                f"{k.kernel} that a launch's size gives (--vary M=1,16,64,256), not a constexpr; "
                f"give {size}'s values as a later --vary"
            )
        found = best_per_size(k, size, self.fixed)
        lacking = [name for name in _ORDER if any(name not in config for config in found.values())]
        if lacking:  # vLLM reads config["BLOCK_SIZE_M"]: a file without it fails there (h20a: liger's BLOCK_N)
            named = ", ".join(sorted({n for config in found.values() for n in config}))
            raise UsageError(
                f"--emit-config vllm: {k.kernel}'s configs have no {', '.join(lacking)}, which vLLM's fused-MoE "
                f"configs give (its configs name {named}); vLLM would not read the file",
                hint="for another kernel, --emit-prune FILE.py --keep N writes a pruner that keeps its fastest",
            )
        return json.dumps(found, indent=4) + "\n"


def _size_name(k: KernelFit) -> str:
    raise UsageError(
        f"--emit-config vllm needs the batch sizes: vary {k.kernel}'s size argument (--vary M=1,16,64,256)"
    )


def best_per_size(k: KernelFit, size: str, fixed: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """{batch size: the fastest fitting config's values, after FIXED}, the sizes in increasing order."""
    (target,) = k.targets
    column = k.column(target)
    sizes = sorted({row.values[size] for row in k.rows if size in row.values})
    found: dict[str, dict[str, Any]] = {}
    for value in sizes:
        mine = [i for i in k.ranked(target) if k.rows[i].values.get(size) == value]
        if not mine:
            reasons = {
                column[i].estimate_note or column[i].reason for i, r in enumerate(k.rows) if r.values.get(size) == value
            }
            said = sorted(r for r in reasons if r)  # one config's reason, the others' counted (they repeat it)
            more = f" (and {len(said) - 1} more configs, likewise)" if len(said) > 1 else ""
            raise UsageError(f"--emit-config: no config of {k.kernel} with {size}={value} has an estimate on {target}: "
                             f"{said[0] if said else 'none'}{more}")  # fmt: skip
        best = k.rows[mine[0]].values
        chosen = {**(fixed or {}), **best}
        names = sorted(chosen, key=lambda n: _ORDER.index(n) if n in _ORDER else len(_ORDER))
        found[str(value)] = {name: chosen[name] for name in names if name != size and name not in _DROPPED}
    return found
