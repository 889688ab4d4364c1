from __future__ import annotations

from ..app import command
from ..options import JsonOpt


@command()
def samples(json_out: JsonOpt = False):
    """List the bundled sample kernels (use them as sample:NAME).

    Example: tritonscope samples
    """
    from ...app.catalog import samples as find_samples

    return find_samples()
