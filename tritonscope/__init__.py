"""tritonscope: see what the Triton compiler does to a GPU kernel.

`import tritonscope as ts` stays cheap (the command line imports this package too): the Python API
(api/: ts.dump, ts.explain, ...) is imported on first use of one of its names.
"""

__version__ = "0.1.0"

_API = frozenset(
    {
        "dump", "explain", "diff", "passes", "fit", "layout", "grid", "launched", "capture", "trace",
        "load_ipython_extension", "Result", "Compiled", "Capture", "Trace", "Dump", "Explain", "Diff",
        "Passes", "Fit", "Layout", "Grid",
    }
)  # fmt: skip


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module 'tritonscope' has no attribute {name!r}")
    import importlib  # by name: the package's modules import it for its version, and it is no module of theirs

    return getattr(importlib.import_module("tritonscope.api"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
