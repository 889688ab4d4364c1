from __future__ import annotations

from ..app import command
from ..options import FileArg, JsonOpt, TimeoutOpt


@command("list")
def list_kernels(file: FileArg, timeout: TimeoutOpt = 120.0, json_out: JsonOpt = False):
    """List the kernels in a file: parameters with their kinds and types, autotune configs, heuristics.

    Examples: tritonscope list my_kernels.py, tritonscope list sample:matmul_autotune
    """
    from ...app.catalog import list_kernels as find_kernels

    return find_kernels(file)
