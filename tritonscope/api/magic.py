"""`%tritonscope`, the line magic (after `%load_ext tritonscope`): a command with the command line's
syntax, parsed by the command line's own parser (its typer commands, as click reads them), run through
the Python API, so that the result is shown in the notebook.

    %tritonscope dump simple_kernel -c BLOCK_SIZE=1024 --stage ttgir,ptx
    %tritonscope explain sample:vector_add -a n_elements=4099 -t sm90

FILE is looked up in the notebook's namespace first (a kernel defined in a cell, or an attribute of a
module the notebook imported: `mod.kernel`), else read as the command line reads it (a path,
`sample:NAME`, `pkg.module:kernel`, `DIR/:NAME`). Flags that write files or draw for a terminal
(--out, --json, --watch, ...) belong to the command line and are refused with that said.
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
from collections.abc import Callable
from typing import Any

from ..core import forms
from ..core.errors import TritonscopeError, UsageError
from ..core.values import format_value
from . import functions
from .requests import said

# The commands the magic runs, and each one's own flags (by typer's parameter names) as the API
# function's keywords; the variant flags are common to all (_VARIANT).
_COMMANDS: dict[str, tuple[Callable[..., Any], dict[str, str]]] = {
    "dump": (functions.dump, {"stage": "stages", "line": "line", "lines": "lines"}),
    "explain": (functions.explain, {"what_if": "what_if"}),
    "diff": (functions.diff, {"vary": "vary", "configs": "configs", "stage": "stages"}),
    "passes": (functions.passes, {"show": "show", "vary": "vary"}),
    "fit": (functions.fit, {"targets": "targets", "vary": "vary", "budget": "budgets", "rank": "rank", "grid": "grid"}),
    "layout": (functions.layout, {"value": "value", "line": "line", "shape": "shape"}),
    "grid": (functions.grid, {"grid_size": "grid_size", "wave": "wave"}),
}
_VARIANT = {
    "kernel": "kernel_name",
    "constexpr": "constexprs",
    "arg": "args",
    "dtype": "dtype",
    "target": "target",
    "num_warps": "num_warps",
    "num_stages": "num_stages",
    "num_ctas": "num_ctas",
    "maxnreg": "maxnreg",
    "config": "config",
    "no_specialize": "no_specialize",
    "triton": "triton",
    "timeout": "timeout",
}
_IGNORED = {"no_pager", "debug", "file", "source"}  # FILE (`--from` for layout) is the kernel
_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext tritonscope`: registers the `%tritonscope` line magic."""

    def tritonscope(line: str) -> Any:
        return run(line, ipython.user_ns)

    tritonscope.__doc__ = __doc__
    ipython.register_magic_function(tritonscope, "line", "tritonscope")


def run(line: str, namespace: dict[str, Any]) -> Any:
    """The result of one magic line; a tritonscope error as IPython's UsageError (said without a traceback)."""
    from IPython.core.error import UsageError as Said

    try:
        function, keywords, kernel = parsed(line, namespace)
        result = function(kernel, **keywords)
        result.in_flags = True
        return result
    except TritonscopeError as exc:
        # the API function said it in its keywords' terms already: the magic's are the flags
        raise Said(str(said(getattr(exc, "as_given", exc), flags=True))) from None
    except _Helped:
        return None


class _Helped(Exception):  # noqa: N818 - not a failure: --help was printed
    pass


def parsed(line: str, namespace: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any], Any]:
    """(the API function, its keywords, the kernel) a magic line asks for."""
    words = shlex.split(line)
    if not words or words[0] not in _COMMANDS:
        raise UsageError(
            f"%tritonscope runs {', '.join(_COMMANDS)}; e.g. %tritonscope dump my_kernel -c BLOCK_SIZE=1024"
        )
    name, rest = words[0], words[1:]
    command = _click_command(name)
    try:
        params = command.make_context(f"%tritonscope {name}", rest).params
    except Exception as exc:  # noqa: BLE001 - click's errors, as typer vendors click (0.28) or not (before)
        if type(exc).__name__ == "Exit":  # --help, printed
            raise _Helped() from None
        if not hasattr(exc, "format_message"):
            raise
        raise UsageError(f"%tritonscope {name}: {exc.format_message()}") from None
    function, own = _COMMANDS[name]
    defaults = {p.name: p.default for p in command.params}
    given = {k: v for k, v in params.items() if v not in (defaults.get(k), None, (), [])}
    refused = sorted(k for k in given if k not in own and k not in _VARIANT and k not in _IGNORED)
    if name == "layout" and "text" in refused and given.get("text") in namespace:
        kernel = given["text"]
        raise UsageError(f"%tritonscope layout: the first word is a layout's text; give the kernel {kernel} with "
                         f"--from: %tritonscope layout --from {kernel} ...")  # fmt: skip
    if refused:
        spelled = {p.name: (p.opts or [p.name])[0] for p in command.params}
        flags = ", ".join(spelled[k] for k in refused)
        file = params.get("source") if name == "layout" else params.get("file")
        shell = _shell_line(line, file, namespace)  # None: a kernel of the notebook's cells, no shell sees it
        why = "; ".join(dict.fromkeys(_IN_A_NOTEBOOK.get(k, "") for k in refused if _IN_A_NOTEBOOK.get(k)))
        instead = why if shell is None else f"run `!tritonscope {shell}`" + (f" ({why})" if why else "")
        verb = "is" if len(refused) == 1 else "are"
        raise UsageError(f"%tritonscope {name}: {flags} {verb} the command line's: {instead or 'leave it out'}")
    file = params.get("source") if name == "layout" else params.get("file")
    return function, _keywords(given, own), _kernel(file, namespace)


# What a notebook has in place of a flag of the command line's the magic refuses.
_IN_A_NOTEBOOK = {
    "json_out": "the result's .to_json() is the --json document",
    "out": "the view is the cell's output, saved with the notebook",
    "watch": "run the cell again after an edit",
    "annotate": "the view links each line of every stage to its Python line",
    "side_by_side": "the view shows the stages side by side",
}


def _click_command(name: str) -> Any:
    import typer.main

    from .. import cli

    return typer.main.get_command(cli.app).commands[name]  # type: ignore[attr-defined]


def _keywords(given: dict[str, Any], own: dict[str, str]) -> dict[str, Any]:
    """The API's keywords for the flags given: NAME=VALUE items as {name: text}, which the API types by
    the command line's rules; --vary items as {name: [values]}, each value as its text."""
    keywords: dict[str, Any] = {}
    for flag, value in given.items():
        keyword = own.get(flag) or _VARIANT.get(flag)
        if keyword is None:
            continue
        if flag in ("constexpr", "arg"):
            value = {n: format_value(v) for n, v in forms.assignments(list(value), f"--{flag}")}
        elif flag == "vary":
            value = {n: [format_value(v) for v in values] for n, values in forms.axes(list(value))}
        elif flag == "target" and isinstance(value, (list, tuple)):  # -t is repeatable: fit takes several
            if len(value) > 1 and "targets" in own.values():
                keyword, value = "targets", list(value)
            elif len(value) > 1:
                from ..cli.options import target_of

                target_of(list(value), several=False)  # refused in the command line's words
            else:
                value = value[0]
        elif flag in ("targets", "grid_size") and isinstance(value, str):
            value = [word.strip() for word in value.split(",") if word.strip()]
            value = [int(w) for w in value] if flag == "grid_size" else value
        keywords[keyword] = list(value) if isinstance(value, tuple) else value
    return keywords


def _shell_line(line: str, file: Any, namespace: dict[str, Any]) -> str | None:
    """The magic's line as a shell runs it: a kernel the notebook names (`kernels.row_sum`, imported
    from kernels.py) as its file and -k NAME; None for one defined in a cell, which no shell sees."""
    found = _named(file, namespace) if isinstance(file, str) else None
    if found is None:
        return line
    function = getattr(found, "fn", found)
    if getattr(function, "__module__", "__main__") == "__main__":  # a cell's: the notebook is __main__
        return None
    try:
        path = inspect.getsourcefile(function)
    except TypeError:  # a built-in
        path = None
    if not path or not os.path.isfile(path):
        return None
    relative = os.path.relpath(path)
    shown = path if relative.startswith("..") else relative
    words = shlex.split(line)
    words[words.index(file)] = shown
    if "-k" not in words and "--kernel" not in words:
        words[words.index(shown) + 1 : words.index(shown) + 1] = ["-k", function.__name__]
    return shlex.join(words)


def _named(file: str, namespace: dict[str, Any]) -> Any:
    """The object a notebook name (`my_kernel`, `mod.my_kernel`) stands for, or None."""
    if not _NAME.fullmatch(file):
        return None
    head, *attributes = file.split(".")
    found = namespace.get(head)
    for attribute in attributes:
        found = getattr(found, attribute, None)
    return None if found is None or isinstance(found, str) else found


def _kernel(file: str | None, namespace: dict[str, Any]) -> Any:
    """FILE as a name of the notebook (`my_kernel`, `mod.my_kernel`), else as the command line reads it."""
    if file is None:
        raise UsageError("give the kernel: a name of this notebook, a file, sample:NAME or DIR/:NAME")
    found = _named(file, namespace)
    if found is not None:
        return found
    if _NAME.fullmatch(file) and "." not in file and file not in namespace and not os.path.exists(file):
        raise UsageError(f"{file}: no name {file} in this notebook, and no file of that name")
    return file
