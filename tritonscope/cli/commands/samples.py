from __future__ import annotations

from ..app import command, emit
from ..options import JsonOpt
from .render import terminal


@command()
def samples(json_out: JsonOpt = False):
    """List the bundled sample kernels (use them as sample:NAME).

    Example: tritonscope samples
    """
    from ...app.catalog import samples as find_samples
    from ...render.terminal.samples import SamplesView

    emit(terminal(SamplesView, json_out, "samples"), find_samples())
