"""Reading a value from the simulated GPU stops the program with one line, and the capture is kept.

A simulated GPU holds no values: `.item()`, printing a tensor, `.cpu()`, `.tolist()`, `.numpy()`
or a Python branch on a tensor's value cannot be answered. When the program's own code (not
torch's or Triton's, which read values of their own fake tensors legitimately) asks for one,
the process writes one line naming the program's file and line and what it asked, and exits
with STOPPED_EXIT at once: every compile and launch recorded so far is already on disk, each
written by a single append.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import types
from typing import Any

from . import printing, reads
from .after_import import after_import
from .pending_results import pending
from .shared import contract
from .where import located

STOPPED_EXIT = 75  # `trace` turns it into its documented exit code and message
_raising: list[bool] = []  # set by raise_on_read(): in tritonscope's own process, importing a kernel file


class DeviceValueRead(Exception):
    """The code asked the simulated GPU for a value (raised instead of ending the process)."""

    device_value_read = True  # what app/import_stop.py recognizes, without importing this module


def raise_on_read() -> None:
    """Raise DeviceValueRead at a value read instead of ending the process: an import of a kernel file
    in tritonscope's own process stops there, and the command goes on with what was defined."""
    _raising.append(True)


_ASKS = {
    "item": ".item()",
    "tolist": ".tolist()",
    "numpy": ".numpy()",
    "cpu": ".cpu()",
    "__repr__": "printing a tensor",
    "__str__": "printing a tensor",
    "__format__": "formatting a tensor",
    "__bool__": "a Python branch on a tensor's value",
    "__float__": "float() of a tensor",
    "__int__": "int() of a tensor",
    "__index__": "a tensor used as an index (range(), a list index)",
    "__array__": "a NumPy array of a tensor",
}


def _library_folders() -> tuple[str, ...]:
    import importlib.util

    folders = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # tritonscope
    for name in ("torch", "triton", "numpy", "functorch"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.append(os.path.dirname(list(spec.submodule_search_locations)[0]) + os.sep + name)
    return tuple(folders)


_STDLIB = os.path.dirname(os.__file__) + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the simulated GPU's own modules


def _passes_through(name: str) -> bool:
    """Code made with exec ("<string>": a dataclass's generated __repr__) or of the standard library
    asks for whoever called it: torch formats its own dataclasses holding fake tensors while
    torch.compile builds a training graph, and a program may print its own."""
    if name.startswith("<frozen"):
        return False
    return name.startswith("<") or (name.startswith(_STDLIB) and "site-packages" not in name)


def _generated(name: str) -> bool:
    """Code torch.compile wrote for the program (Inductor's output modules, in its cache folder:
    `trace` puts it in the capture's): it asks on behalf of the program line that called it."""
    folder = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not folder:
        return False
    return os.path.abspath(name).startswith(os.path.abspath(folder) + os.sep)


GENERATED = " (in the code torch.compile generated for it)"


_DISABLED = os.path.join("torch", "_dynamo", "eval_frame.py")


def _program_frame(folders: tuple[str, ...]):
    """(the frame of the program's own code that asked, and what to add to what it asked), or
    (None, "") when torch or Triton asked."""
    frame = sys._getframe(2)
    while frame.f_code.co_filename.endswith(_DISABLED) and frame.f_back is not None:
        frame = frame.f_back  # torch._dynamo.disable's wrapper around the read's (_not_compiled)
    asked = frame
    while _passes_through(frame.f_code.co_filename):
        if frame.f_back is None:
            return asked, ""  # the program itself is the exec'd text (python -c)
        frame = frame.f_back
    if _generated(frame.f_code.co_filename):
        return program_caller(frame.f_back, folders), GENERATED
    if _machinery(frame, folders) or frame.f_code.co_filename.startswith("<frozen"):
        return None, ""
    return frame, ""


# Parts of torch and Triton that a program calls to make its inputs and check its results, not the
# compiler's machinery: a read there is the program's (Triton's MXFP4Tensor, torch.testing).
_HELPERS = tuple(os.sep + os.path.join(*part) + os.sep for part in (("triton", "tools"), ("torch", "testing")))
# torch's own code a program calls, whose reads are the program's (GradScaler's finite check,
# `_check_tensor_all`, `x in t`): its reads of the program's tensors are answered as the program's.
_TORCH_LIBRARY = tuple(
    os.sep + os.path.join("torch", *part.split("/"))
    for part in ("amp/", "nn/", "optim/", "functional.py", "__init__.py", "_tensor.py", "_tensor_str.py", "random.py")
)


def _machinery(frame, folders: tuple[str, ...]) -> bool:
    """Whether FRAME is torch's, Triton's or tritonscope's own code (whose reads are never answered),
    not the program's nor a helper it called."""
    name = os.path.abspath(frame.f_code.co_filename)
    helper = any(part in name for part in _HELPERS) or any(name.endswith(p) or p + os.sep in name for p in _LIBRARY)
    return name.startswith(folders) and not helper


_LIBRARY = tuple(part.rstrip(os.sep) for part in _TORCH_LIBRARY)


def program_caller(frame=None, folders: tuple[str, ...] | None = None):
    """The innermost frame of the program's own code on the stack (from FRAME outwards, else from
    the caller's), or None."""
    folders = folders or _library_folders()
    frame = frame or sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (os.path.abspath(name).startswith(folders) or name.startswith("<") or _generated(name)):
            return frame
        frame = frame.f_back
    return None


def stop(frame, asked: str, exc: BaseException | None = None, reason: str | None = None) -> None:
    """One line on stderr, then exit at once (no clean-up that could hang on a fake device). REASON:
    why the host could not answer the read (else the run's mode stops at reads)."""
    where, asked = located(frame, asked)
    if _raising:
        why = f": {reason}" if reason else ", which this run does not compute"
        raise DeviceValueRead(f"{asked} needs values{why}")
    sys.stdout.flush()
    if os.environ.get(contract.ENV_DEBUG):
        _write_stack(exc)
    record = os.environ.get(contract.ENV_STOPPED)
    if record:  # for `trace`, which says it in its own words
        with open(record, "w") as handle:
            json.dump({"where": where, "asked": asked, **({"reason": reason} if reason else {})}, handle)
    else:
        why = reason or "the run stops at reads (--values stop)"
        sys.stderr.write(f"stopped at {where}: the program asked for {asked}; {why}\n")
        sys.stderr.flush()
    os._exit(STOPPED_EXIT)


def _write_stack(exc: BaseException | None) -> None:
    """The Python stack the stop was met in (the exception's, where one ended the program)."""
    import traceback

    if exc is not None:
        traceback.print_exception(exc)
    else:
        traceback.print_stack(sys._getframe(2))
    sys.stderr.flush()


def _wrap(original, asked: str, folders: tuple[str, ...]):
    @functools.wraps(original)  # keeps the original as __wrapped__
    def method(self, *args, **kwargs):
        # a device tensor is fake, and holds no value (nor a host tensor made from one)
        if reads.inside_an_answer() or not _read_of(self, asked):
            return original(self, *args, **kwargs)
        frame, where = _program_frame(folders)
        if frame is None:
            return original(self, *args, **kwargs)
        if where == GENERATED and asked == _ASKS["item"]:  # Inductor's `u0 = buf0.item()`: the graph's host run's
            made = pending("_local_scalar_dense")
            if made is not None:
                return made
        (value,) = _answered(frame, asked + where, [self])
        if asked in (_ASKS["__repr__"], _ASKS["__format__"]) and (self.dim() or asked == _ASKS["__repr__"]):
            return printing.printed(self, value)
        return original(value, *args, **kwargs)

    return method


def _read_of(tensor, asked: str) -> bool:
    """Whether asking TENSOR for ASKED reads a value the simulated GPU holds none of: a tensor of the
    program's own fake mode (not one of torch.compile's), not a host copy asked for `.cpu()`, not a
    one-element host tensor the fake mode knows."""
    if not _is_fake(tensor) or (asked == ".cpu()" and tensor.device.type == "cpu") or _known(tensor):
        return False
    from .torch_cuda import _mode

    return not _mode or getattr(tensor, "fake_mode", None) is _mode[0]


def _compare(original, asked: str, folders: tuple[str, ...]):
    """torch.allclose and torch.equal of device tensors: a read of both (on the host, or each holding
    N with --values N); with --values stop, a stop, as any read."""

    @functools.wraps(original)
    def compare(a, b, *args, **kwargs):
        unknown = [_is_fake(t) and not _known(t) for t in (a, b)]
        if any(unknown) and not reads.inside_an_answer():
            frame, where = _program_frame(folders)
            if frame is not None:
                values = iter(_answered(frame, asked + where, [t for t, u in zip((a, b), unknown, strict=True) if u]))
                a, b = (next(values) if u else t for t, u in zip((a, b), unknown, strict=True))
                a, b = (t.cpu() if hasattr(t, "cpu") else t for t in (a, b))
        return original(a, b, *args, **kwargs)

    return compare


_SCALAR_ASKS = tuple(_ASKS[name] for name in ("item", "__bool__", "__float__", "__int__", "__index__", "__format__"))


def _answered(frame, asked: str, tensors: list) -> list:
    """Host tensors for TENSORS under the run's --values (each read logged), or the program is
    stopped there: with --values stop, or where the host cannot answer (and says why)."""
    values, shown, given = _read(frame, asked, tensors)
    reads.record(*located(frame, asked), shown, given)
    return values


def _read(frame, asked: str, tensors: list) -> tuple[list, object, Any]:
    """_answered's host tensors, what the log shows of them and the mode, not yet logged."""
    if reads.mode() == "stop":
        stop(frame, asked)
    try:
        values, given = reads.answers(tensors)
    except reads.Unanswered as exc:
        stop(frame, asked, reason=str(exc))
        raise  # not reached: stop() ends the process or raises DeviceValueRead
    one = asked.startswith(_SCALAR_ASKS) and values[0].numel() == 1
    if len(values) == 1:
        shown = reads.shown(values[0].reshape(()) if one else values[0])
    else:
        shown = list(map(reads.shown, values))
    return values, shown, given


# Frames of torch's dispatch between a tensor method and the simulated GPU's mode.
_DISPATCH = tuple(
    os.sep + os.path.join("torch", *part.split("/"))
    for part in ("_ops.py", "_subclasses/", "utils/_python_dispatch.py", "utils/_stats.py", "_compile.py")
) + (os.sep + os.path.join("torch", "_dynamo", "eval_frame.py"),)


def _asking_past_dispatch(folders: tuple[str, ...]):
    """The frame that asked the program's mode for an operator (past the simulated GPU's and torch's
    dispatch), if the program's own code (or a helper it called), else None: torch's or Triton's."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith(_HERE) or _dispatching(frame)):
        frame = frame.f_back
    return None if frame is None or _machinery(frame, folders) else frame


def _dispatching(frame) -> bool:
    name = frame.f_code.co_filename
    return any(part in name for part in _DISPATCH) or _passes_through(name)


def _is_fake(tensor) -> bool:
    return "Fake" in type(tensor).__name__


def _known(tensor) -> bool:
    """A host tensor whose value torch's fake mode keeps: one element the program made from a
    Python number (`lr=torch.tensor(0.01)`, as compiled optimizers take it), or computed from such.
    The fake mode forgets the value when an operator writes the tensor; a GPU tensor's is not
    trusted, since a Triton kernel may write it unseen."""
    return tensor.device.type == "cpu" and getattr(tensor, "constant", None) is not None


def _data_dependent(exc: BaseException) -> bool:
    """A fake tensor refusing an operator whose result depends on values (torch.allclose, nonzero)."""
    return type(exc).__name__ in ("DataDependentOutputException", "DynamicOutputShapeException")


def _run_on_the_device(exc: BaseException) -> str | None:
    """The operator torch itself ran for real on the CUDA device (which a CPU-only torch has no
    kernels for), or None: a pass of torch.compile's that computes on the device and that the
    simulated GPU does not move to the host (inductor.py moves constant folding's)."""
    found = re.search(r"Could not run '([\w:.]+)' with arguments from the 'CUDA' backend", str(exc))
    return found.group(1) if found else None


def _non_ascii_name(exc: BaseException, tb) -> str | None:
    """Why ptxas refused a kernel, where it was the non-ASCII characters of the kernel file's name:
    Triton (3.6 here) writes the name into the PTX, in the comment of each `.loc` line, and the ptxas
    it bundles refuses them; a GPU run fails the same way. Triton 3.9 escapes them."""
    if "Unexpected non-ASCII character" not in str(exc):
        return None
    kernels = [k for f in _frames(tb) if (k := getattr(f.f_locals.get("self"), "fn", None)) is not None]
    helpers = [getattr(g, "fn", None) for k in kernels for g in getattr(k, "__globals__", {}).values()]
    files = (os.path.basename(getattr(getattr(k, "__code__", None), "co_filename", "")) for k in kernels + helpers)
    named = next((name for name in files if not name.isascii()), None)
    whose = f"the name of the file '{named}'" if named else "a file's name (the kernel's, or a helper's it calls)"
    return (
        f"ptxas refused {whose}: Triton writes it into the PTX, and its ptxas takes only ASCII characters; "
        "a GPU run fails the same way. Rename the file with ASCII characters, or use Triton 3.9, which "
        "escapes them"
    )


def _two_fake_modes(exc: BaseException) -> str | None:
    """Why torch failed where its own fake tensors met the simulated GPU's: AOTInductor
    (aoti_compile_and_package) compiles an exported program's fake inputs under a fake mode of its
    own, which the simulated device's tensors (fake tensors of the program's mode) cannot enter."""
    if not isinstance(exc, AssertionError) or "doesn't match mode" not in str(exc) or "fake mode" not in str(exc):
        return None
    return (
        "torch compiled under a fake-tensor mode of its own (AOTInductor's aoti_compile_and_package, or "
        "torch.export's fake inputs), which the simulated GPU's tensors cannot enter; a GPU run does not "
        "fail so. To see the kernels, compile the exported program with torch.compile(ep.module()) instead"
    )


def _stop_at_uncaught(folders: tuple[str, ...]) -> None:
    """A program that dies of a data-dependent operator (an `assert torch.allclose(...)`) was stopped
    for a value too, and one that dies of an operator run for real on the device was stopped for a
    computation: said at the program's own line, not as torch's traceback."""
    previous = sys.excepthook

    def hook(kind, exc, tb):
        frames = [
            f
            for f in _frames(tb)
            if not (os.path.abspath(f.f_code.co_filename).startswith(folders) or _passes_through(f.f_code.co_filename))
        ]
        operator = _run_on_the_device(exc)
        frame, generated = (frames[-1], "") if frames else (None, "")
        if frame is not None and _generated(frame.f_code.co_filename):  # Inductor's code: the program's call of it
            frame, generated = program_caller(frame.f_back, folders) or frame, GENERATED
        if frame is not None and _data_dependent(exc):
            stop(frame, f"{exc} (a result that depends on the tensors' values){generated}", exc)
        if frame is not None and operator:
            stop(frame, f"{operator} {contract.RUN_BY_TORCH}{generated}", exc)
        previous(kind, exc, tb)
        refused = _non_ascii_name(exc, tb) or _two_fake_modes(exc)
        if refused:  # after Triton's page of PTX (or torch's traceback), where it is read
            sys.stderr.write(f"tritonscope: {refused}\n")

    sys.excepthook = hook


def _frames(tb):
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


BACKWARD = (
    "a backward pass (.backward(), autograd.grad, or torch.compile of a step whose inputs require grad), "
    "for which torch's C++ autograd engine could not be given the simulated device here (torch's ROCm "
    "build, no C++ compiler such as g++ to build it with, or a kernel file imported by tritonscope itself)"
)


def _stop_backward(original):
    """Every backward pass, eager or traced by torch.compile, goes through this one function."""

    def run_backward(*args, **kwargs):
        stop(program_caller(), BACKWARD)
        return original(*args, **kwargs)

    run_backward.__wrapped__ = original
    return run_backward


def install(stop_backward: bool = True) -> None:
    """Wrap the value reads; with `stop_backward`, a backward pass stops too (where torch's autograd
    engine cannot be given the simulated device: an import in tritonscope's own process, torch's
    ROCm build, no C++ compiler)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor

    folders = _library_folders()
    from torch.autograd import graph

    # torch.autograd took its own name for _engine_run_backward at import
    if stop_backward and hasattr(graph, "_engine_run_backward"):
        graph._engine_run_backward = _stop_backward(graph._engine_run_backward)
        torch.autograd._engine_run_backward = graph._engine_run_backward
    wrapped: list[tuple[Any, str]] = []  # (owner, name) of each wrapper put in place of a read

    def put(owner: Any, name: str, wrapper: Any) -> None:
        setattr(owner, name, wrapper)
        wrapped.append((owner, name))

    for name, asked in _ASKS.items():
        for cls in (torch.Tensor, FakeTensor):  # FakeTensor has a tolist of its own
            original = cls.__dict__.get(name) if cls is FakeTensor else getattr(cls, name, None)
            if original is not None:
                put(cls, name, _wrap(original, asked, folders))
    for name in ("allclose", "equal"):
        put(torch, name, _compare(getattr(torch, name), f"torch.{name}()", folders))
        put(torch.Tensor, name, _compare(getattr(torch.Tensor, name), f".{name}()", folders))
    import torch.testing

    put(torch.testing, "assert_close", _compare(torch.testing.assert_close, "torch.testing.assert_close()", folders))
    _stop_at_uncaught(folders)
    # torch.compile must not compile these wrappers' frames (nor those they call) as the program's:
    # met at a graph break, they were `torch.compile method (stop.py)`, a compile after warmup that
    # no GPU run has. Run as torch._dynamo.disable runs a function, once torch.compile is imported.
    after_import("torch._dynamo.eval_frame", lambda module: _not_compiled(module, wrapped))


def _not_compiled(eval_frame, wrapped: list) -> None:
    for owner, name in wrapped:
        setattr(owner, name, eval_frame.DisableContext()(getattr(owner, name)))
