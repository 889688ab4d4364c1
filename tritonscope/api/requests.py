"""The Python API's keywords, declared once in core/inputs.py, and the request they make: the same
VariantRequest the command line's flags make (core/forms.py `request_of`), from a kernel object as
well as a path.

    ts.dump(kernel, BLOCK_SIZE=1024, args={"x_ptr": "*fp16"}, target="sm90")

`kernel` is a @triton.jit (or @gluon.jit) function, an autotune or heuristics wrapper of one, a file
path, `sample:NAME`, `pkg.module:kernel` or `DIR/:NAME`. Any keyword that is neither an input of the
table nor the function's own is a constexpr (`BLOCK_SIZE=1024`); `constexprs={...}` gives one whose
name is taken by a keyword.
"""

from __future__ import annotations

import copy
import difflib
import functools
import html
import inspect
import os
import re
import sys
import traceback
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core import forms, inputs
from ..core.errors import TritonscopeError, UsageError
from ..core.model import VariantRequest
from ..core.source import cell_label, cells_named

KERNEL = inputs.named("file").name_in(inputs.API)  # the first argument: the kernel, or where it is
CONSTEXPR_VALUES = "constexpr_values"  # `**constexpr_values`: BLOCK_SIZE=1024


def request(
    kernel: Any, values: dict[str, Any], constexprs: dict[str, Any], resolve_target: bool = True
) -> VariantRequest:
    """The request of a kernel (an object or where it is), the table's inputs by their API names, and
    the constexprs given as keywords; `target="auto"` resolved unless `resolve_target` is False (fit:
    auto is every default target)."""
    values = dict(values)
    given = values.pop("constexprs", None) or {}
    both = sorted(set(given) & set(constexprs))
    if both:
        raise UsageError(f"{', '.join(both)} given twice: as a keyword and in constexprs")
    values["constexprs"] = {**given, **constexprs} or None
    for name, value in (values["constexprs"] or {}).items():
        if hasattr(value, "data_ptr"):  # Triton failed inside its compiler (`'builtin_function...' .scalar`)
            raise UsageError(
                f"{name}={type(value).__name__}: a constexpr is a value known at compile time (a number, bool,"
                " str or dtype), not a tensor; give a tensor's type as an argument: args={'x_ptr': '*fp16'}"
            )
        _crossing(name, value)
    values[KERNEL] = _kernel(kernel, values)
    return forms.request_of(values, inputs.API, resolve_target=resolve_target)


def _crossing(name: str, value: Any) -> None:
    """A constexpr the compile's process can be given: one that cannot be pickled (a lambda, an object of
    a class a notebook cell defines) ended that process with "exited with code 1 without a result" or a
    raw PicklingError (h19d)."""
    import pickle

    if type(value).__module__ == "__main__":  # pickled by its class's name, which the other process lacks
        raise UsageError(
            f"{name}={value!r}: an object of a class the notebook (or script) defines, {type(value).__name__}, "
            "which the compile's process of its own does not have",
            hint="give a number, a bool, a string, a dtype, or a tuple of them",
        )
    try:
        pickle.loads(pickle.dumps(value))
    except Exception as exc:  # noqa: BLE001 - pickle raises many kinds for what it cannot carry
        raise UsageError(
            f"{name}={value!r}: the compile runs in a process of its own, which this value cannot be sent to "
            f"({type(exc).__name__}: {exc})",
            hint="give a number, a bool, a string, a dtype, or a tuple of them",
        ) from None


def _kernel(kernel: Any, values: dict[str, Any]) -> Any:
    """A path as text (parsed as the command line parses FILE); a kernel object as its source, its name
    put in `kernel_name` (triton_api/cells.py: a file and a name, or a cell's definitions)."""
    if isinstance(kernel, (str, os.PathLike)):
        return os.fspath(kernel)
    from ..triton_api.cells import edited_since, kernel_source  # a kernel object: Triton is imported already

    source, name = kernel_source(kernel)
    edited = edited_since(kernel)
    if edited:
        warn_caller(edited)
    named = inputs.named("kernel").name_in(inputs.API)
    if values.get(named) not in (None, name):
        raise UsageError(f"the kernel given is {name}; {named}={values[named]!r} names another")
    values[named] = name
    return source


def warn_caller(message: str) -> None:
    """A warning pointed at the user's line that called the API: the first frame outside tritonscope."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: types.FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)


def with_inputs(function: Callable | None = None, *, resolve_target: bool = True) -> Callable:
    """An API function made of `function(request, ...own keywords)`: it takes the kernel, the table's
    inputs as keywords, its own, and any other keyword as a constexpr; its signature says so (help(),
    Jupyter's shift-tab). With `resolve_target=False` the request keeps `target="auto"` (fit)."""
    if function is None:
        return functools.partial(with_inputs, resolve_target=resolve_target)
    table = inputs.signature(inputs.taken_by(inputs.API), inputs.API)
    hints = typing.get_type_hints(function)
    own = [p for p in inspect.signature(function).parameters.values() if p.name != "request"]
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        table[0].replace(kind=inspect.Parameter.POSITIONAL_ONLY, annotation=Any),
        *table[1:],
        *(p.replace(kind=keyword, annotation=hints.get(p.name, p.annotation)) for p in own),
        inspect.Parameter(CONSTEXPR_VALUES, inspect.Parameter.VAR_KEYWORD, annotation=Any),
    ]
    taken = {p.name for p in table[1:]}
    own_names = {p.name for p in own}
    annotations = {p.name: p.annotation for p in parameters}

    @functools.wraps(function)
    def api_function(kernel: Any, /, **keywords: Any) -> Any:
        __tracebackhide__ = True  # IPython shows the user's cell, not tritonscope's frames
        values = {name: keywords.pop(name) for name in list(keywords) if name in taken}
        mine = {name: keywords.pop(name) for name in list(keywords) if name in own_names}
        try:
            unaligned = unaligned_tensors(values.get("args"))
            values = {name: as_given(name, value, annotations[name]) for name, value in values.items()}
            mine = {name: as_given(name, value, annotations[name]) for name, value in mine.items()}
            made = request(kernel, values, keywords, resolve_target)
            return function(replace(made, unaligned=unaligned) if unaligned else made, **mine)
        except TritonscopeError as exc:
            raise said(exc, keywords, taken | own_names) from None

    api_function.__signature__ = inspect.Signature(parameters, return_annotation=hints.get("return"))  # type: ignore[attr-defined]
    api_function.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": hints.get("return")}
    del api_function.__wrapped__  # type: ignore[attr-defined]  # the signature made here is the one read
    return api_function


def as_given(name: str, value: Any, annotation: Any) -> Any:
    """A keyword's value checked against its type, so that a wrong one is refused in the user's terms
    (`line='4'`: expects an int) before it reaches code that assumes the type; a dtype given as torch's
    or Triton's object (`dtype=torch.float16`) and a tensor given as an argument (its pointer type)
    are taken as their names."""
    if name == "dtype" and value is not None and not isinstance(value, str):
        value = str(value)  # torch.float16, tl.float16: their names, which --dtype reads
    if name == "args" and isinstance(value, dict):
        value = {key: _pointer_type(key, v) for key, v in value.items()}
    wanted = _types(annotation)
    if wanted is None or any(_is(value, kind) for kind in wanted):
        return value
    said = " or ".join(dict.fromkeys(_TYPE_WORDS.get(kind, getattr(kind, "__name__", str(kind))) for kind in wanted))
    raise UsageError(f"{name}={value!r}: {name} takes {said}, not {type(value).__name__}")


_TYPE_WORDS = {str: "a string", int: "an int", float: "a number", bool: "True or False", type(None): "None"}
_TYPE_WORDS.update({dict: "a dict", list: "a list", tuple: "a tuple"})
_TYPE_WORDS.update({Sequence: "a list or tuple", Mapping: "a dict"})  # the generics' origins


def _types(annotation: Any) -> tuple[type, ...] | None:
    """The classes a keyword's annotation allows (a Union's members, a generic's origin); None where it
    allows anything or cannot be read as classes."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return None
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    members = typing.get_args(annotation) if union else (annotation,)
    found = []
    for member in members:
        kind = typing.get_origin(member) or member
        if kind is Any or not isinstance(kind, type):
            return None
        found.append(kind)
    return tuple(found)


def _is(value: Any, kind: type) -> bool:
    if kind is bool or isinstance(value, bool):  # True is no int here, nor 1 a bool
        return isinstance(value, bool) and kind in (bool, object)
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def unaligned_tensors(args: Any) -> tuple[str, ...]:
    """The arguments given as tensors whose data does not start 16 bytes aligned (a view, `x[1:]`):
    Triton's launcher gives them no alignment hint (`data_ptr() % 16`), so neither does their compile."""
    if not isinstance(args, dict):
        return ()
    found = []
    for name, value in args.items():
        if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
            try:
                address = value.data_ptr()
            except Exception:  # noqa: BLE001 - a meta or fake tensor has no address: a torch allocation's
                continue
            if address % 16:
                found.append(name)
    return tuple(found)


def _pointer_type(name: str, value: Any) -> Any:
    """A tensor given as an argument: the pointer type Triton's launcher gives it (`*fp16`). A numpy
    scalar is refused, as Triton's launcher refuses it (it was typed i32, a float32 given the
    divisibility hint: h19d)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "data_ptr"):
        return f"*{dtype}".replace("torch.", "")
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "shape", None) == ():
        raise UsageError(
            f"args {name}={value!r}: Triton's launcher refuses a numpy scalar (failed to specialize argument "
            f"of type {type(value).__module__}.{type(value).__name__})",
            hint=f"pass a Python number: {name}={value.item()!r}",
        )
    return value


def said(
    exc: TritonscopeError,
    keywords: Iterable[str] = (),
    known: Iterable[str] = (),
    flags: bool = False,
    verbatim: Iterable[str] = (),
) -> TritonscopeError:
    """The error in the API's terms (`flags`: the command line's, for the magic), its hint on a line of
    its own, a notebook cell named as IPython names it, shown by IPython with the user's own lines that
    called it and none of tritonscope's (its `_render_traceback_`). A constexpr the kernel lacks whose
    name is close to a keyword (num_warp) is said to be that keyword's typo."""
    hint = exc.hint
    for name in keywords:
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
        if close and f"'{name}'" in exc.message:
            hint = f"did you mean {close[0]}=? (a keyword that is not an input is a constexpr)"
    message = exc.message + (f"\nhint: {hint}" if hint else "")
    message = cells_named(message if flags else in_api_terms(message, known, verbatim))  # flags: the magic's
    again = copy.copy(exc)
    again.message, again.hint, again.args = message, None, (message,)
    again.as_given = getattr(exc, "as_given", exc)  # type: ignore[attr-defined]  # the magic says its flags
    again._render_traceback_ = lambda: [*_callers(again), f"{type(exc).__name__}: {message}"]  # type: ignore[attr-defined]
    return again


# Flags of the command line whose keyword in Python has another name (`--grid 4` is grid_size=4)
_KEYWORD_OF_FLAG = {
    "--grid": "grid_size",
    "--stage": "stages",
    "--force": "replace=True",
    "--out": "out",
    "--value": "value",  # ts.layout's
    "--line": "line",
}


def _as_args(match: re.Match) -> str:
    """`-a n=4096` as `args={'n': 4096}`, `-a x_ptr=*fp16` as `args={'x_ptr': '*fp16'}` (a colon after it kept)."""
    name, value, colon = match.groups()
    plain = re.fullmatch(r"-?[\d.]+(e-?\d+)?|None|True|False|VALUE|\.\.\.", value) or value.startswith(("'", '"'))
    return f"args={{'{name}': {value if plain else repr(value)}}}{colon}"


def _merged_args(match: re.Match) -> str:
    """`args={'a': 1} args={'b': 2}` (flags side by side) as `args={'a': 1, 'b': 2}`."""
    return "args={" + ", ".join(re.findall(r"args=\{([^{}]*)\}", match.group(0))) + "}"


def in_api_terms(text: str, keywords: Iterable[str] = (), verbatim: Iterable[str] = ()) -> str:
    """A message written for the command line in the API's terms: `-c BLOCK=...` as `BLOCK=...`,
    `-a n=VALUE` as `args={'n': VALUE}`, `--target sm90` as `target='sm90'`, a flag of one of the
    function's keywords as the keyword. The `verbatim` texts are left as they are (a traced program's
    own command line: its `-c` is python's)."""
    kept = [v for v in dict.fromkeys(verbatim) if v and v in text]
    for index, words in enumerate(kept):
        text = text.replace(words, f"\x00{index}\x00")
    text = _in_api_terms(text, keywords)
    for index, words in enumerate(kept):
        text = text.replace(f"\x00{index}\x00", words)
    return text


def _in_api_terms(text: str, keywords: Iterable[str]) -> str:
    known = set(keywords)
    text = re.sub(r"(?<![\w-])(?:-c|--constexpr) (\w+)=", r"\1=", text)
    text = re.sub(r"(?<![\w-])(?:-a|--arg) (\w+)=([^\s,;)]+?)(:?)(?=[\s,;)]|$)", _as_args, text)
    text = re.sub(r"args=\{[^{}]*\}(?: args=\{[^{}]*\})+", _merged_args, text)  # one dict, as a call takes it
    flags: dict[str, str] = dict(_KEYWORD_OF_FLAG)
    valued: set[str] = set()  # keywords that take a value: a flag of one said bare is `name=...`
    for i in inputs.taken_by(inputs.API):
        for flag in (i.flags, i.flag, i.short):
            if flag:
                flags[flag] = i.name_in(inputs.API)
        if i.type is not bool:
            valued.add(i.name_in(inputs.API))
    own = {f"--{name.replace('_', '-')}": name for name in known}  # the function's own keywords win (fit's grid)
    flags.update({flag: name for flag, name in own.items() if flag not in flags or flag in _KEYWORD_OF_FLAG})
    grid = 'grid="X, Y, Z"' if "grid" in known else "grid_size=(X, Y, Z)"  # fit's and explain's, grid's
    text = re.sub(r"(?<![\w/-])--grid X\[,Y\[,Z\]\]", grid, text)
    text = re.sub(  # --vary NAME=V1,V2: a dict of lists
        r"(?<![\w/-])--vary (\w+)=(\w[\w.]*(?:,\w[\w.]*)+)",
        lambda m: f"vary={{'{m.group(1)}': [{', '.join(m.group(2).split(','))}]}}",
        text,
    )
    text = re.sub(r"(?<![\w/-])(?:-t/--target|--target|-t) (sm\d+\w*|gfx\w+|h\d+|auto)\b", r"target='\1'", text)
    for flag in sorted(flags, key=len, reverse=True):  # -w/--num-warps before --num-warps
        name = flags[flag]
        # --line N, -w 8, --config -1
        text = re.sub(rf"(?<![\w/-]){re.escape(flag)} ([A-Z]+|-?\d[\d.]*)\b", rf"{name}=\1", text)
        bare = f"{name}=..." if name in valued else name
        text = re.sub(rf"(?<![\w/-]){re.escape(flag)}(?![\w-])(?! [\w'\"*])", bare, text)
        text = re.sub(rf"(?<![\w/-]){re.escape(flag)}(?![\w-])", name, text)
    return text


def in_api_html(drawn: str, keywords: Iterable[str] = ()) -> str:
    """A notebook view's words in the API's terms (in_api_terms): the text of its header, figures,
    findings and terminal views, line by line; neither its styles, its stages' code, its script, nor a
    command line (`reproduce`: from `tritonscope ` to the line's end). `keywords`: the function's own
    (fit's and explain's `grid`, where --grid is grid's `grid_size`)."""
    styles, closed, body = drawn.partition("</style>")
    head, columns, rest = body.partition('<div class="columns">')

    def words(match: re.Match) -> str:
        lines = html.unescape(match.group(1)).split("\n")
        said = []
        for line in lines:  # a command line, from `tritonscope ` to the line's end, kept as it is
            at = line.find("tritonscope ")
            said.append(in_api_terms(line, keywords) if at < 0 else in_api_terms(line[:at], keywords) + line[at:])
        return ">" + html.escape("\n".join(said)) + "<"

    return styles + closed + re.sub(r">([^<>]+)<", words, head) + columns + rest


def _callers(exc: BaseException) -> list[str]:
    """The lines an error came through that are the user's: neither tritonscope's nor IPython's own (a
    notebook's cell as IPython names it)."""
    ipython = getattr(sys.modules.get("IPython"), "__file__", None)
    theirs = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    theirs += [os.path.dirname(ipython)] if ipython else []
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if not any(os.path.abspath(f.filename).startswith(t) for t in theirs)]
    return [f"{cell_label(f.filename, f.lineno or 0)}: {(f.line or '').strip()}" for f in mine]
