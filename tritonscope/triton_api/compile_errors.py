"""Triton's failures as tritonscope's errors: a front-end error at the kernel's own line, a
cache folder that cannot be written or holds a corrupt file, and what MLIR, ptxas and LLVM raise.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import triton
from triton.compiler import CompilationError

from ..core.errors import CompileError, TritonscopeError, UsageError
from ..core.targets import Target
from .shims import has_stages_hook


def mapped(exc: Exception, kernel, target: Target, variant) -> TritonscopeError:
    """The error to raise for what triton.compile raised (for `variant`, a core.model.Variant)."""
    if isinstance(exc, CompilationError):
        return frontend_error(exc, kernel, _strings_read(variant))
    if isinstance(exc, OSError):  # Triton's cache folder: the machine's problem, not the kernel's
        return cache_folder_problem(exc)
    if "Could not create or locate cache dir" in str(exc):  # TRITON_CACHE_DIR set empty, say
        return UsageError(
            f"Triton has no cache folder to write (TRITON_CACHE_DIR={os.environ.get('TRITON_CACHE_DIR', '')!r})",
            hint="set TRITON_CACHE_DIR to a writable folder, or unset it (the default is ~/.triton/cache)",
        )
    if isinstance(exc, json.JSONDecodeError):
        return corrupt_cache_file(exc.msg)
    if "non-ASCII" in str(exc) and not kernel.spec.file.isascii() and not has_stages_hook():
        return UsageError(
            f"{kernel.spec.file}: the kernel file's path has non-ASCII characters, which ptxas rejects "
            f"(Triton writes the path into the PTX)",
            hint="move or rename the file to an ASCII path",
        )
    refusal = ptxas_refusal(exc)
    if refusal is not None:
        return CompileError(
            f"ptxas refused {kernel.spec.name} for {target.name}: {refusal}",
            hint="the kernel compiled up to PTX; change what ptxas names (e.g. raise --maxnreg) and run again",
        )
    return CompileError(
        f"Triton failed to compile {kernel.spec.name} for {target.name}: {type(exc).__name__}: {str(exc).strip()}"
    )


def ptxas_refusal(exc: BaseException) -> str | None:
    """ptxas's own first error line when ptxas refused the PTX (Triton's PTXASError, whose message
    wraps ptxas's stderr in its own words and a repro command), else None."""
    text = str(exc)
    if type(exc).__name__ != "PTXASError" and "`ptxas` stderr:" not in text:
        return None
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    said = [line for line in lines if re.match(r"ptxas\S*\s+(fatal|error)\s*:", line)]
    return said[0] if said else lines[0] if lines else type(exc).__name__


def cache_folder_problem(exc: OSError) -> UsageError:
    folder = triton.knobs.cache.dir
    where = f" ({exc.filename})" if exc.filename else ""
    return UsageError(
        f"Triton cannot write its cache folder {folder}: {exc.strerror or exc}{where}",
        hint="set TRITON_CACHE_DIR to a writable folder (the default is under HOME: ~/.triton/cache)",
    )


def corrupt_cache_file(why: str) -> UsageError:
    """Names the cache files Triton could not read back, so the user can delete them."""
    folder = Path(triton.knobs.cache.dir)
    corrupt = []
    for path in sorted(folder.rglob("*.json"))[:5000]:
        try:
            json.loads(path.read_text())
        except (ValueError, OSError):
            corrupt.append(str(path))
    names = ", ".join(corrupt[:3]) or str(folder)
    return UsageError(
        f"Triton's cache holds a corrupt file: {names} ({why})",
        hint=f"delete it, or the folder that holds it, and run again (Triton's cache: {folder})",
    )


def _strings_read(variant) -> str | None:
    """The constexprs given as strings, which a front-end error on a string where Triton wanted a number
    (`'str' object has no attribute`) names: values are not evaluated (`-c BLOCK=1<<10` is '1<<10')."""
    strings = [f"{name}={value!r}" for name, value in variant.constexprs.items() if isinstance(value, str)]
    if not strings:
        return None
    return (
        f"{', '.join(strings)} {'was' if len(strings) == 1 else 'were'} read as a string: "
        "a number is written as 256 (no expression is evaluated)"
    )


def frontend_error(exc: CompilationError, kernel, strings: str | None = None) -> CompileError:
    """Triton's front-end error as file:line of the kernel's own source, with that line shown; where
    it is a string's (`'str' object`), `strings` (the constexprs given as strings) as its hint."""
    chain = [exc]
    while isinstance(chain[-1].__cause__, CompilationError):
        chain.append(chain[-1].__cause__)
    innermost = chain[-1]
    cause = innermost.__cause__
    message = innermost.error_message or (f"{type(cause).__name__}: {cause}" if cause else "")
    if cause is not None and not str(cause).strip() and message.strip() == f"{type(cause).__name__}:":
        message = f"{type(cause).__name__} (a check inside Triton, which gives no reason)"
    # Triton stores some errors as their repr, e.g. NameError('x is not defined').
    message = re.sub(r"^(\w+Error)(?:Impl)?\((['\"])(.*)\2\)$", r"\1: \3", message.strip(), flags=re.DOTALL)
    located = [_locate(error, kernel) for error in reversed(chain)]
    inside = ""
    while len(located) > 1 and _in_triton(located[0].file):  # in Triton's own helper (tl.cdiv): the call is the user's
        helper = located.pop(0)
        inside = f" inside Triton's {helper.function} ({Path(helper.file).name}:{helper.line})"
    file, line, text, column, _ = located[0]
    pointer = f"\n    {' ' * column}^" if column is not None else ""
    called_from = "".join(f"\n  called from {at.file}:{at.line}: {at.text}" for at in located[1:])
    head = f"{file}:{line}: {kernel.spec.name} does not compile{inside}: {message.strip()}"
    return CompileError(
        f"{head}\n    {text}{pointer}{called_from}",
        hint=strings if "'str' object" in message else None,
        where=(file, line),
    )


class Location(NamedTuple):
    file: str
    line: int  # in the file
    text: str  # the source line, stripped
    column: int | None  # in the stripped line
    function: str


def _locate(error: CompilationError, kernel) -> Location:
    """Where a CompilationError's node is: in the kernel, a helper of its file, or one reached through
    a module (`tl.cdiv`, `helpers.f`)."""
    node_line = getattr(error.node, "lineno", 1)
    column = getattr(error.node, "col_offset", None)
    fn = next((c for c in _jit_functions(kernel) if c.src == error.src), kernel.jit)
    lines, first = inspect.getsourcelines(fn.fn)
    def_offset = next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
    index = def_offset + node_line - 1
    text = lines[index].rstrip("\n") if 0 <= index < len(lines) else ""
    if column is not None:
        # Triton counts columns in the dedented source; the line is shown stripped of its indent.
        def_indent = len(lines[def_offset]) - len(lines[def_offset].lstrip())
        column -= (len(text) - len(text.lstrip())) - def_indent
    return Location(fn.fn.__code__.co_filename, first + index, text.strip(), column, fn.fn.__name__)


def _jit_functions(kernel) -> Iterator:
    """The JIT functions a kernel can call: itself, its file's, and those of the modules its file
    imports (Triton's `tl` among them: tl.cdiv lives in triton.language.standard)."""
    from triton.runtime.jit import JITFunction

    yield kernel.jit
    names = kernel.jit.fn.__globals__
    yield from (v for v in names.values() if isinstance(v, JITFunction))
    modules = [v for v in names.values() if isinstance(v, types.ModuleType)]
    for module in [*modules, *(sys.modules[m] for m in _TRITON_LIBRARIES if m in sys.modules)]:
        yield from (v for v in vars(module).values() if isinstance(v, JITFunction))


_TRITON_LIBRARIES = ("triton.language.standard", "triton.language.math")


def _in_triton(file: str) -> bool:
    return Path(file).is_relative_to(Path(triton.__file__).parent)
