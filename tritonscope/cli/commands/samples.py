from __future__ import annotations

from ..options import JsonOpt
from ..runner import command


@command()
def samples(json_out: JsonOpt = False):
    """List the bundled sample kernels (use them as sample:NAME).

    Example: tritonscope samples
    """
    from ...app.catalog import samples as find_samples

    return find_samples()
