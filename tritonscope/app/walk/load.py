"""Loads a kernel file (a path, a sample, a module: core/source.py) and describes the Triton kernels in it;
a kernel defined in a notebook's cells is made again from its definitions (triton_api/cell_module.py).

The file is foreign code: run as a fresh module, anything it raises becomes a KernelFileError naming its line.
"""

from __future__ import annotations

import ast
import contextlib
import faulthandler
import functools
import importlib.util
import inspect
import os
import signal
import sys
import textwrap
import threading
from dataclasses import dataclass, replace
from itertools import count
from pathlib import Path
from typing import Any

from ...analysis.infer import infer_kinds
from ...core import fileio, kernel_import, samples
from ...core.errors import KernelFileError, Terminated, TritonscopeError, UsageError
from ...core.limits import time_limit
from ...core.model import AutotuneConfig, KernelSpec, Param, ParamKind
from ...core.pysource import called_functions, returns_value
from ...core.source import CachedKernel, CaptureFolder, CellKernel, ModuleReference, SampleKernel, Source, no_such_file
from ...core.source import parse as parse_source
from ...core.stages import Language
from ...core.targets import Target
from ...triton_api import kernels as triton_kernels
from ...triton_api.kernels import plain_value
from . import packages, simulated_import
from .import_failure import Exited, import_failure
from .packages import Version, helper_files, versions
from .simulated_import import can_simulate, continue_after, simulated, stops_simulated_import

DEFAULTS_NAME = "tritonscope_defaults"
# What torch and Triton say when a file asks for a GPU at import on a machine without one.
_module_ids = count()
_NO_FILE = "give a Python file with Triton kernels, or a bundled sample: sample:NAME (`tritonscope samples` lists them)"


@dataclass
class LoadedKernel:
    spec: KernelSpec
    jit: Any  # the triton JITFunction
    wrapper: Any  # the object the file defines: the JITFunction, or the outermost wrapper
    wrappers: tuple[Any, ...] = ()  # autotune, heuristics or a library's own, outermost first


@dataclass
class LoadedFile:
    path: Path
    module: Any
    kernels: list[LoadedKernel]
    defaults: dict[str, Any]  # the file's `tritonscope_defaults`
    notices: tuple[str, ...] = ()  # how it was imported, when not plainly (app/walk/simulated_import.py)
    simulated: bool = False  # imported against a simulated GPU: what it asked of the GPU is the target's

    def pick(self, name: str | None) -> LoadedKernel:
        """The kernel called `name`, or the file's only kernel when no name is given."""
        if name is not None:
            for kernel in self.kernels:
                if kernel.spec.name == name:
                    return _launchable(kernel, self.path)
            raise UsageError(f"no kernel named '{name}' in {self.path.name}. Kernels: {self._names()}")
        candidates = [k for k in self.kernels if not k.spec.is_helper]
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            helpers = ", ".join(k.spec.name for k in self.kernels)
            raise UsageError(
                f"{self.path.name} has no kernel to compile, only @triton.jit helpers that kernels call: {helpers}",
                hint="compile a kernel that calls them (tritonscope list FILE shows each helper's callers)",
            )
        raise UsageError(f"{self.path.name} has {len(candidates)} kernels: {self._names()}. Choose one with -k NAME.")

    def _names(self) -> str:
        return ", ".join(k.spec.name for k in self.kernels if not k.spec.is_helper)


def kernel_path(source: Source) -> Path:
    """The Python file a source names, or why there is none to load."""
    if isinstance(source, SampleKernel):
        # Resolved like any file: another release's worker reaches the samples through a link to
        # this package, and the kernels' code names the file behind the link.
        return samples.sample_path(source.name).resolve()
    if isinstance(source, CachedKernel):
        raise KernelFileError(
            f"{source} is a compiled kernel from a cache: dump, compare and report read it, but this command "
            f"compiles, and needs the kernel's source file"
        )
    if isinstance(source, CaptureFolder):
        from ...captures.folder import capture_given

        raise capture_given(source)
    if isinstance(source, CellKernel):
        raise KernelFileError(f"{source.name} is defined in a notebook's cell, and no file holds it")
    path = Path(source.path)
    if isinstance(source, ModuleReference):
        return path
    if not path.exists():
        raise no_such_file(str(source), _NO_FILE)
    if path.is_dir():
        raise KernelFileError(f"{source} is a directory; give a Python file with Triton kernels")
    if path.suffix != ".py":
        raise KernelFileError(f"{source} is not a Python file (expected a .py file with @triton.jit kernels)")
    return path


def load_file(source: Source | str, target: Target | None = None) -> LoadedFile:
    """The kernels of a file, executed once per process for each version of the file: a sweep
    worker compiling many variants, or a command that loads twice, pays the import once. TARGET is
    the GPU a file that asks for one gets, where none is visible (app/walk/simulated_import.py); None:
    what `--target auto` compiles for. A str is parsed as a FILE argument is (core/source.py)."""
    parsed = parse_source(source) if isinstance(source, str) else source
    if isinstance(parsed, CellKernel):
        return _cells(parsed, target)
    path = kernel_path(parsed)
    module = parsed.module if isinstance(parsed, ModuleReference) else None  # imported by the name given
    stat = path.stat()
    return _load(path, module, stat.st_mtime_ns, stat.st_size, target, versions(helper_files(path, module)))


_executed: dict[Path, Version] = {}  # each helper file as the module it is now in sys.modules was run from


def _forget_changed(helpers: tuple[Version, ...]) -> None:
    """The modules of helper files changed since they were run dropped from sys.modules: the kernel
    file's import runs them again (Python would hand over the module as it was)."""
    changed = {helper[0] for helper in helpers if _executed.get(helper[0], helper) != helper}
    if changed:
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if file and Path(file).resolve() in changed:
                sys.modules.pop(name, None)
    _executed.update((helper[0], helper) for helper in helpers)


@functools.lru_cache(maxsize=16)
def _load(
    path: Path, module_name: str | None, mtime_ns: int, size: int, target: Target | None, helpers: tuple = ()
) -> LoadedFile:
    """HELPERS: the versions of the files the kernel file imports (a changed one is a new load)."""
    _forget_changed(helpers)
    source = _source(path)
    plain_failure: KernelFileError | None = None
    name = module_name or packages.module_name(path)
    gate = simulated_import.gpu_gate(source)
    # A package's module whose kernels sit under a GPU check goes straight to the simulated GPU: run
    # twice, it would register its torch.library operators twice (its package's import ran it once).
    at_once = name is not None and gate is not None and can_simulate()
    try:
        module, notices = _execute(path, name, source, simulating=False) if not at_once else (None, ())
        kernels = _find_kernels(module, _in_file(path)) if not at_once else []
    except KernelFileError as exc:
        if not can_simulate():
            raise
        plain_failure, kernels = exc, []
    simulating = not kernels and can_simulate()
    if simulating:  # it asked for a GPU, or defines its kernels only where there is one
        with simulated(target) as device:
            module, notices = _execute(path, name, source, simulating=True)
            kernels = _find_kernels(module, _in_file(path))
        said = f"imported against a simulated {device['name']} ({device['target']}): no GPU is visible here"
        notices = (said, *notices)
    if not kernels and plain_failure is not None:
        raise plain_failure  # the simulated GPU did not help: the file's own failure is the news
    if not kernels:
        raise simulated_import.no_kernels(path, gate)
    defaults = getattr(module, DEFAULTS_NAME, {})
    if not isinstance(defaults, dict):
        raise KernelFileError(f"{path}: {DEFAULTS_NAME} must be a dict of parameter names to values")
    return LoadedFile(path, module, kernels, dict(defaults), notices, simulating)


@functools.lru_cache(maxsize=16)
def _cells(source: CellKernel, target: Target | None = None) -> LoadedFile:
    """A kernel of a notebook's cells (or of a run's file, `--from-run`), its definitions run again once
    per process for each version of their text; each kernel is described with its own cell's file name.
    Definitions that ask for a GPU (tutorials' autotune configs) get a simulated one, as a file's import."""
    from ...triton_api.cell_module import module_of

    notices: tuple[str, ...] = ()
    try:
        module = module_of(source)
    except KernelFileError:
        if not can_simulate():
            raise
        with simulated(target) as device:
            module = module_of(source)
        notices = (f"defined against a simulated {device['name']} ({device['target']}): no GPU is visible here",)
    kernels = _find_kernels(module, lambda file: file if file in source.files else None)
    return LoadedFile(Path(source.given), module, kernels, {}, notices, bool(notices))


def _source(path: Path) -> str:
    try:
        source = fileio.read_input_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelFileError(f"cannot read {path}: {exc}") from exc
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        caret = f"\n    {' ' * (exc.offset - 1)}^" if exc.offset and exc.text and exc.offset <= len(exc.text) else ""
        text = f"\n    {exc.text.rstrip()}{caret}" if exc.text else ""
        raise KernelFileError(f"{where}: syntax error: {exc.msg}{text}") from exc
    return source


def _execute(path: Path, package: str | None, source: str, simulating: bool) -> tuple[Any, tuple[str, ...]]:
    """The file run as a module: by its dotted name PACKAGE (app/walk/packages.py), or as a fresh module
    when it is a lone file (None); with a line saying where its import stopped, if it did (under the
    simulated GPU: app/walk/simulated_import.py)."""
    name = package or f"tritonscope_kernelfile_{next(_module_ids)}_{path.stem}"
    # A file inside a package is imported as part of it (its `from .utils import x` then works),
    # from the folder holding the package; a lone file from its own folder, as when run as a script.
    folder = str(packages.root(path, package))
    sys.path.insert(0, folder)
    # Reading a kernel writes nothing beside it: no __pycache__ in the user's folder (or a package's)
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        with time_limit(f"importing {path}"), _exits_reported(path), _process_kept(), kernel_import.running(path):
            return _import(path, name, package is not None, source, simulating)
    except BaseException as exc:  # noqa: BLE001 - foreign code can raise anything, even SystemExit
        sys.modules.pop(name, None)
        if isinstance(exc, (KeyboardInterrupt, TritonscopeError, Terminated)):
            raise
        raise import_failure(exc, path) from exc
    finally:
        sys.path.remove(folder)
        sys.dont_write_bytecode = writes_bytecode


def _import(path: Path, name: str, in_package: bool, source: str, simulating: bool) -> tuple[Any, tuple[str, ...]]:
    """The module of the file: a package's module by its dotted name, else a fresh module."""
    if in_package:
        sys.modules.pop(name, None)  # a changed file is imported again, not taken from before
        module = importlib.import_module(name)
        if Path(getattr(module, "__file__", "") or "").resolve() != path:
            raise KernelFileError(
                f"{path}: importing it as {name} found {module.__file__} instead (another package of that name "
                f"comes first on the path)"
            )
        return module, ()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # under the simulated GPU, the import stops there
        if not (simulating and stops_simulated_import(exc)):
            raise
        return module, (continue_after(module, path, source, exc),)
    return module, ()


@contextlib.contextmanager
def _exits_reported(path: Path):
    """While the file is imported, os._exit(N) and os.abort() raise instead of ending tritonscope
    silently (with the file's exit code): the file's import is then reported as what it did."""
    original_exit, original_abort = os._exit, os.abort

    def exit_instead(code=0):
        raise Exited(f"os._exit({code})")

    def abort_instead():
        raise Exited("os.abort()")

    os._exit, os.abort = exit_instead, abort_instead
    try:
        yield
    finally:
        os._exit, os.abort = original_exit, original_abort


_STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _process_kept():
    """What a kernel file's import may do to this process, undone or said: a crash (a segfault in
    a C extension it calls) prints where the file was (faulthandler: Python's own stack, the file's
    line in it) rather than ending tritonscope without a word; the signal handlers it sets (SIGINT
    ignored) are put back, so that Ctrl-C and SIGTERM still stop tritonscope after it."""
    main = threading.current_thread() is threading.main_thread()
    handlers = {signum: signal.getsignal(signum) for signum in _STOPPING} if main else {}
    tracing = faulthandler.is_enabled()  # already (python -X faulthandler): left as it is
    with contextlib.suppress(OSError, ValueError, AttributeError, RuntimeError, TypeError):  # no descriptor 2
        faulthandler.enable(file=sys.__stderr__) if not tracing else None
    try:
        yield
    finally:
        if not tracing:
            faulthandler.disable()
        for signum, handler in handlers.items():
            if handler is not None and signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)


def _in_file(path: Path):
    return lambda file: str(path) if Path(file).resolve() == path else None


def _find_kernels(module: Any, defined_in) -> list[LoadedKernel]:
    """The kernels of a module that `defined_in(code's file)` says it defines (the file to describe them
    with; None: imported from elsewhere)."""
    found: dict[int, tuple[Any, Any, list[Any]]] = {}
    files: dict[int, str] = {}
    imported: dict[str, Any] = {}  # helpers from elsewhere (`from .utils import *`): read for what they load
    for obj in _module_objects(module):
        unwrapped = triton_kernels.unwrap(obj)
        if unwrapped is None:
            continue
        jit, wrappers = unwrapped
        file = defined_in(jit.fn.__code__.co_filename)
        if file is None:
            imported.setdefault(jit.__name__, jit)
            continue
        files[id(jit)] = file
        # Keep the outermost wrapper when the file also names the inner function.
        if id(jit) not in found or len(wrappers) > len(found[id(jit)][2]):
            found[id(jit)] = (jit, obj, wrappers)

    trees = {jit.__name__: _function_ast(jit) for jit, _, _ in found.values()}
    helpers = {name: tree for name, jit in imported.items() if name not in trees and (tree := _helper_ast(jit))}
    inferred = infer_kinds({**helpers, **trees})
    callers: dict[str, list[str]] = {name: [] for name in trees}
    for name, tree in trees.items():
        for callee in sorted(called_functions(tree, set(trees) - {name})):
            callers[callee].append(name)
    kernels = []
    for jit, obj, wrappers in found.values():
        spec = replace(_describe(jit, wrappers, inferred[jit.__name__]), file=files[id(jit)])
        role = _role(tuple(callers[jit.__name__]), returns_value(trees[jit.__name__]))
        kernels.append(LoadedKernel(replace(spec, **role), jit, obj, tuple(wrappers)))
    return sorted(kernels, key=lambda k: k.spec.line)


def _module_objects(module: Any) -> list[Any]:
    """The module's objects, then those of the classes it defines (a kernel kept as a class's static
    method, `K.k`, which Triton launches as any other), each class's after the module's own."""
    objects = list(vars(module).values())
    classes = [o for o in objects if isinstance(o, type) and o.__module__ == getattr(module, "__name__", None)]
    return objects + [getattr(cls, name, None) for cls in classes for name in vars(cls)]  # a staticmethod's function


def _helper_ast(jit: Any):
    """An imported helper's function, or None where its source cannot be read."""
    try:
        return _function_ast(jit)
    except (SyntaxError, StopIteration, AttributeError):  # its source is not a plain function
        return None


def _role(called_by: tuple[str, ...], returns: bool) -> dict[str, Any]:
    return {"called_by": called_by, "returns_value": returns, "is_helper": bool(called_by) or returns}


def _launchable(kernel: LoadedKernel, path: Path) -> LoadedKernel:
    """The kernel itself, unless it is a helper Triton cannot compile on its own (one that returns a
    value): that would fail deep in Triton's pass manager, so say what it is and what to pick instead."""
    spec = kernel.spec
    if not spec.returns_value:
        return kernel
    callers = ", ".join(spec.called_by)
    seen = f"it is called by {callers}" if callers else f"no @triton.jit function of {path.name} calls it"
    hint = f"pick a kernel that calls it: -k {spec.called_by[0]}" if callers else "pick a kernel that calls it"
    raise UsageError(
        f"{spec.name} (line {spec.line}) is a @triton.jit helper: it returns a value, so Triton compiles it "
        f"only inlined into a kernel that calls it; {seen}",
        hint=hint,
    )


def _function_ast(jit: Any) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(jit.src))
    return next(node for node in tree.body if isinstance(node, ast.FunctionDef))


def _describe(jit: Any, wrappers: list[Any], inferred) -> KernelSpec:
    lines, first_line = inspect.getsourcelines(jit.fn)
    def_offset = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    params = tuple(_describe_param(p, inferred) for p in jit.params)
    configs: tuple[AutotuneConfig, ...] = ()
    heuristics: tuple[str, ...] = ()
    for wrapper in wrappers:
        found = triton_kernels.autotune_configs(wrapper)
        if found is not None:
            configs = tuple(_describe_config(i, c) for i, c in enumerate(found))
        heuristics += tuple(triton_kernels.heuristics(wrapper))
    return KernelSpec(
        name=jit.__name__,
        file=jit.fn.__code__.co_filename,
        line=first_line + def_offset,
        first_line=first_line,
        source="".join(lines),
        params=params,
        autotune_configs=configs,
        heuristics=heuristics,
        language=Language.GLUON if triton_kernels.is_gluon(jit) else Language.TRITON,
        do_not_specialize=tuple(p.name for p in jit.params if p.do_not_specialize),
        do_not_specialize_on_alignment=tuple(p.name for p in jit.params if p.do_not_specialize_on_alignment),
    )


def _describe_param(param: Any, inferred) -> Param:
    name = param.name
    default = param.default if param.has_default else None
    common = {"default": plain_value(default), "has_default": param.has_default}
    if param.is_constexpr:
        return Param(name, ParamKind.CONSTEXPR, None, "annotation", **common)
    if param.annotation_type:
        type_ = param.annotation_type
        return Param(name, _kind_of_type(type_), type_, "annotation", **common)
    if param.has_default and isinstance(default, (bool, int, float)):
        type_ = "u1" if isinstance(default, bool) else "fp32" if isinstance(default, float) else "i32"
        return Param(name, _kind_of_type(type_), type_, "default", **common)
    if name in inferred.pointers:
        pointee = "*i32" if name in inferred.indices else "*fp32"  # a table of indices holds integers
        return Param(name, ParamKind.POINTER, pointee, "branch" if name in inferred.in_branches else "body", **common)
    if name in inferred.floats:
        return Param(name, ParamKind.FLOAT, "fp32", "body", **common)
    return Param(name, ParamKind.INT, "i32", "assumed", **common)


def _kind_of_type(type_: str) -> ParamKind:
    if type_.startswith("*"):
        return ParamKind.POINTER
    if type_.startswith(("fp", "bf")):
        return ParamKind.FLOAT
    return ParamKind.INT


def _describe_config(index: int, config: Any) -> AutotuneConfig:
    return AutotuneConfig(
        index=index,
        constexprs={k: plain_value(v) for k, v in config.kwargs.items()},
        num_warps=config.num_warps,
        num_stages=config.num_stages,
        num_ctas=config.num_ctas,
        maxnreg=config.maxnreg,
    )
