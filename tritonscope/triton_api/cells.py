"""A kernel object as the Python API receives it, made a Source (core/source.py): a kernel defined in
a file is that file and its name; one defined in a notebook cell or a REPL, which has no file, is a
`CellKernel`, the plain data that crosses to the child process that compiles it, and so is one the
running script defines (imported again there, the script would run again).

A cell's kernel is read from Python's line cache (IPython keeps every cell there, under the cell's
own file name). What it needs is found as Triton's JIT finds it, by Triton's own `DependenciesFinder`
walking its body (the helper @triton.jit functions it calls, the global values it reads), plus what
its decorators and defaults name (autotune configs, heuristics, a function that makes the configs).
Each need crosses explicitly: a definition of a cell as its source with its cell's file name and
first line, a module by name, an object of a module by its module and name, any other value pickled.
A live tensor, or a value that cannot be pickled, is refused in one line naming the cell's line.
cell_module.py runs the definitions again in the child.
"""

from __future__ import annotations

import ast
import dis
import inspect
import linecache
import os
import pickle
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

from triton.runtime.jit import DependenciesFinder  # type: ignore[import-untyped]

from ..core.errors import UsageError
from ..core.source import CellKernel, CellPiece, CellValue, KernelFile, Source, cell_label
from . import kernels as triton_kernels

_LOADS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_FROM_DICT_OR_GLOBALS"})
_MISSING = object()


def kernel_source(kernel: Any) -> tuple[Source, str]:
    """(the source, the kernel's name) of a kernel object: a @triton.jit or @gluon.jit function, or an
    autotune, heuristics or library wrapper around one."""
    unwrapped = triton_kernels.unwrap(kernel)
    if unwrapped is None:
        launcher = _launched_kernel(kernel)
        if launcher is not None:  # `kernel[grid]`: Triton's launcher, a lambda holding the kernel
            raise UsageError(
                f"given {launcher}[grid], the kernel with its launch grid: Triton's launcher, not the kernel",
                hint=f"give the kernel itself: {launcher}, without [grid]",
            )
        raise UsageError(
            f"{_shown(kernel)} is not a Triton kernel",
            hint="give a @triton.jit function (or its @triton.autotune wrapper), a file path, sample:NAME or DIR/:NAME",
        )
    jit = unwrapped[0]
    file = jit.fn.__code__.co_filename
    if in_memory(file):
        return cell_kernel(kernel, jit), jit.__name__
    if in_running_script(jit.fn) and os.path.isfile(file):
        return cell_kernel(kernel, jit), jit.__name__
    if not os.path.isfile(file):
        raise UsageError(f"{jit.__name__}: its file {file} is not there any more", hint="define the kernel again")
    return KernelFile(file, os.path.realpath(file)), jit.__name__


def edited_since(kernel: Any) -> str | None:
    """What to say where a kernel object's file no longer holds the kernel's text as it was defined
    (an edit since the import): the compile reads the file as it is now, while the kernel object,
    the one Triton launches in this process, is the old text. None where it is unchanged."""
    unwrapped = triton_kernels.unwrap(kernel)
    if unwrapped is None or not isinstance(getattr(unwrapped[0], "src", None), str):
        return None
    jit = unwrapped[0]
    file = jit.fn.__code__.co_filename
    try:
        now = Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if _stripped(jit.src) in _stripped(now):  # line by line, ignoring indentation (a kernel in a class)
        return None
    module = getattr(jit.fn, "__module__", None) or Path(file).stem
    again = (
        "run the script again to launch the new text"
        if module == "__main__"
        else f"importlib.reload({module}) and import it again to launch the new text"
    )
    return (
        f"{jit.__name__}: {Path(file).name} has changed since it was imported; compiled from the file as it "
        f"is now, not as the kernel object this process would launch ({again})"
    )


def _stripped(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def in_memory(file: str) -> bool:
    """Whether a code's file is one only the line cache holds (a notebook cell, a REPL's input): its
    entry has no modification time, which IPython and Python's REPL give such sources."""
    entry: tuple = linecache.cache.get(file, ())
    return len(entry) == 4 and entry[1] is None


def in_running_script(fn: Any) -> bool:
    """Whether a function is defined by the script this process runs (`python script.py`, its module
    `__main__`): sent as its definitions, as a cell's are, since importing the script again in the
    process that compiles would run its top-level code again (its calls to the API among it)."""
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None)
    if getattr(fn, "__module__", None) != "__main__" or not isinstance(script, str):
        return False
    return os.path.realpath(script) == os.path.realpath(fn.__code__.co_filename)


def cell_kernel(kernel: Any, jit: Any) -> CellKernel:
    found = _Needs(jit.__name__)
    found.definition(kernel, jit.__name__)
    where = tuple(entry for entry in sys.path if entry)
    return CellKernel(jit.fn.__code__.co_filename, jit.__name__, tuple(found.pieces.values()), found.values(), where)


class _Needs:
    """The definitions and values one kernel needs, gathered depth first: a definition is listed after
    what it needs, so the child runs the configs' function before the decorator that calls it."""

    def __init__(self, kernel: str):
        self.kernel = kernel
        self.pieces: dict[int, CellPiece] = {}  # id(function) -> its piece, in the order to run them
        self._values: dict[str, CellValue] = {}
        self._started: set[int] = set()

    def values(self) -> tuple[CellValue, ...]:
        return tuple(self._values.values())

    def definition(self, obj: Any, name: str) -> None:
        """A function, @jit function or wrapper that a cell defines, bound to `name` in the notebook."""
        fn = _function_of(obj)
        key = id(fn)
        if key in self.pieces:
            piece = self.pieces[key]
            if name != piece.name and name not in piece.aliases:
                self.pieces[key] = CellPiece(
                    piece.name, piece.file, piece.first_line, piece.text, (*piece.aliases, name)
                )
            return
        if key in self._started:  # a function that calls itself, or two that call each other
            return
        self._started.add(key)
        lines, first = inspect.getsourcelines(fn)
        text, file = textwrap.dedent("".join(lines)), fn.__code__.co_filename
        jit = triton_kernels.unwrap(obj)
        scope = {**fn.__globals__, **inspect.getclosurevars(fn).nonlocals}
        needs = _outside_body(text, file, first, fn.__name__ if jit else None)
        if jit is not None:
            needs.update(_body_reads(jit[0], first + _def_offset(lines)))
        for needed, line in needs.items():
            self.name(needed, scope.get(needed, _MISSING), cell_label(file, line))
        aliases = (name,) if name != fn.__name__ else ()
        self.pieces[key] = CellPiece(fn.__name__, file, first, text, aliases)

    def name(self, name: str, value: Any, where: str) -> None:
        """One global name a definition reads, as it will be made in the child."""
        if value is _MISSING or name in self._values:
            return  # a builtin, or a name not defined: the child says so as Python would
        if isinstance(value, types.ModuleType):
            self._values[name] = CellValue(name, module=value.__name__, where=where)
        elif _defined_in_memory(value):
            self.definition(value, name)
        elif (found := _importable(value)) is not None:
            self._values[name] = CellValue(name, module=found[0], attribute=found[1], where=where)
        else:
            self._values[name] = CellValue(name, pickled=self._pickled(name, value, where), where=where)

    def _pickled(self, name: str, value: Any, where: str) -> bytes:
        kind = type(value).__name__
        if hasattr(value, "data_ptr"):
            raise UsageError(
                f"{where}: {self.kernel} reads {name}, a live {kind} of this session, which the process that "
                "compiles cannot have",
                hint=f"pass {name} to the kernel as an argument, or make it a constant (tl.constexpr)",
            )
        if type(value).__module__ == "__main__":
            raise UsageError(
                f"{where}: {self.kernel} reads {name}, a {kind} of a class defined in this session, which the "
                "process that compiles cannot make again",
                hint=f"define {kind} in a file and import it, or give {name} a plain value",
            )
        try:
            return pickle.dumps(value, protocol=4)
        except Exception as exc:  # noqa: BLE001 - any object's own pickling can fail in its own way
            raise UsageError(
                f"{where}: {self.kernel} reads {name}, a {kind} that cannot be sent to the process that "
                f"compiles ({type(exc).__name__}: {exc})",
                hint=f"give {name} a plain value (a number, a string, a tl.constexpr), or define it in a file",
            ) from None


def _function_of(obj: Any) -> types.FunctionType:
    unwrapped = triton_kernels.unwrap(obj)
    return unwrapped[0].fn if unwrapped is not None else obj


def _defined_in_memory(value: Any) -> bool:
    """A function, @jit function or wrapper whose code a cell holds, or the running script (not another
    file, not a builtin)."""
    try:
        fn = _function_of(value)
        code = fn.__code__
    except AttributeError:
        return False
    return isinstance(fn, types.FunctionType) and (in_memory(code.co_filename) or in_running_script(fn))


def _importable(value: Any) -> tuple[str, str] | None:
    """(module, qualified name) of an object its module holds under that name (a @jit function of a
    kernel file the notebook imported, triton.Config), where the module is already imported here."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or module == "__main__" or "<" in qualname:
        return None
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return (module, qualname) if found is value else None


def _def_offset(lines: list[str]) -> int:
    return next((i for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)


def _outside_body(text: str, file: str, first: int, body: str | None) -> dict[str, int]:
    """The global names a definition reads outside a @jit function's body (its decorators, defaults and
    annotations, a lambda of a heuristic), by Python's own scoping: the loads of the code compiled from
    it. `body` None: a plain function, whose body is included. Each with its line in the cell."""
    code = compile("\n" * (first - 1) + text, file, "exec")
    names: dict[str, int] = {}

    def walk(code: types.CodeType, top: bool) -> None:
        for instruction in dis.get_instructions(code):
            if instruction.opname in _LOADS and instruction.argval not in names:
                line = instruction.positions.lineno if instruction.positions else None
                names[instruction.argval] = line or code.co_firstlineno
        for inner in code.co_consts:
            if isinstance(inner, types.CodeType) and not (top and inner.co_name == body):
                walk(inner, False)

    walk(code, True)
    return names


class _Reads(DependenciesFinder):
    """Triton's own walk of a @jit function's body, noting each global (or closed-over) name it resolves
    to a value: the helpers it calls, the modules and constants it reads. Triton's rules decide which
    names are the function's own (its parameters and assignments)."""

    def __init__(self, jit: Any):
        nonlocals = inspect.getclosurevars(jit.fn).nonlocals
        name = getattr(jit, "_fn_name", jit.__name__)
        super().__init__(name=name, globals=jit.__globals__, nonlocals=nonlocals, src=jit.src)
        self.read: dict[str, int] = {}

    def visit_Name(self, node):  # noqa: N802 - ast.NodeVisitor's name
        value = super().visit_Name(node)
        if not isinstance(node.ctx, ast.Store) and value is not None and node.id not in self.read:
            self.read[node.id] = node.lineno
        return value


def _body_reads(jit: Any, def_line: int) -> dict[str, int]:
    """The names a @jit function's body reads, found as Triton finds them, with their lines in the cell."""
    reads = _Reads(jit)
    try:
        reads.visit(jit.parse())
    except (RuntimeError, TypeError) as exc:  # Triton refuses what it cannot compile (a Python function called)
        raise UsageError(f"{cell_label(jit.fn.__code__.co_filename, def_line)}: {jit.__name__}: {exc}") from None
    return {name: def_line + line - 1 for name, line in reads.read.items()}


def _launched_kernel(obj: Any) -> str | None:
    """The kernel's name where OBJ is `kernel[grid]` (a function closing over the kernel), else None."""
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        found = triton_kernels.unwrap(held)
        if found is not None:
            return found[0].__name__
    return None


def _shown(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."
