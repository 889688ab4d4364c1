"""Run code on a module right after it is imported, before the import that asked for it binds any
of its names: how the simulated GPU patches parts of torch.compile only in programs that import
them (importing them at start cost a program that never calls torch.compile a fifth of a second).
"""

from __future__ import annotations

import importlib.machinery
import sys


class _AfterImport:
    """Runs `then(module)` right after the module NAME's code has run, before the import that asked
    for it binds any of its names (`from torch._dynamo.testing import rand_strided` in Inductor)."""

    def __init__(self, name: str, then) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def exec_module(module) -> None:
                run(module)
                self.then(module)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def after_import(name: str, then) -> None:
    """`then(module)` now if NAME is imported, else as soon as it is."""
    if name in sys.modules:
        then(sys.modules[name])
    else:
        sys.meta_path.insert(0, _AfterImport(name, then))
