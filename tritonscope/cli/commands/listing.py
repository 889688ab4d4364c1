from __future__ import annotations

from ..options import FileArg, JsonOpt, TargetOpt, TimeoutOpt
from ..runner import command


@command("list")
def list_kernels(file: FileArg, target: TargetOpt = "auto", timeout: TimeoutOpt = 120.0, json_out: JsonOpt = False):
    """List the kernels in a file: parameters with their kinds and types, autotune configs, heuristics,
    and which @triton.jit functions are helpers (with the kernels that call them).

    A file that asks for a GPU at import (as Triton's tutorials do) is imported against a simulated
    GPU of the target where none is visible. A capture folder (or a Triton cache) lists its compiled
    kernels, as `cache list DIR/` does.

    Examples:

      tritonscope list my_kernels.py

      tritonscope list sample:matmul_autotune

      tritonscope list 01-vector-add.py -t sm100

      tritonscope list h100/               (a capture's kernels, each shown as h100/:NAME)
    """
    from ...app.catalog import list_kernels as find_kernels
    from .. import argtypes

    chosen = argtypes.target(target)  # an unknown --target is refused before the file is looked at
    return find_kernels(argtypes.source(file), chosen)
