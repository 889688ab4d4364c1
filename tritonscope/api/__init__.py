"""The Python API, tritonscope's fourth front end (beside the command line, the explorer and the
agent server): the same typed requests, the same app functions, the same frozen results, from a
kernel object as well as a path, with rich views in Jupyter.

    import tritonscope as ts
    ts.dump(add_kernel, BLOCK_SIZE=1024, target="sm90")      # a @triton.jit function, even one of a cell
    ts.explain("sample:vector_add", args={"n_elements": 4099})
    %load_ext tritonscope                                      # then: %tritonscope dump add_kernel -c BLOCK_SIZE=1024

Every compile runs in the session's warm worker (session.py), never in this process. docs/api.md
documents every function, result attribute and the magic.
"""

from . import session as _session

_session.start_early()

from .capture import Capture, capture, launched, trace  # noqa: E402
from .functions import diff, dump, explain, fit, grid, layout, passes  # noqa: E402
from .magic import load_ipython_extension  # noqa: E402
from .results import Compiled, Diff, Dump, Explain, Fit, Grid, Layout, Passes, Result, Trace  # noqa: E402

__all__ = [
    "Capture",
    "Compiled",
    "Diff",
    "Dump",
    "Explain",
    "Fit",
    "Grid",
    "Layout",
    "Passes",
    "Result",
    "Trace",
    "capture",
    "diff",
    "dump",
    "explain",
    "fit",
    "grid",
    "launched",
    "layout",
    "load_ipython_extension",
    "passes",
    "trace",
]
