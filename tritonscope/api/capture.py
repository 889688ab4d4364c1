"""What this process launched, and whole programs traced: `ts.launched(kernel)`, `ts.capture()` and
`ts.trace(command)`.

`launched` and `capture` read what Triton itself kept of each compile in this process (the stages, the
binary, the metadata: triton_api/launched.py): nothing is compiled again. `capture` records the
kernels launched inside its block through Triton's launch hook, so it needs a GPU to launch them.
A simulated GPU replaces torch's and Triton's device before a program starts, which cannot be done
to a running notebook: with a target and no such GPU here, `capture` says so and names
`ts.trace(["python", "infer.py"], target="sm90")`, which runs the program in a process of its own.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..app import calls
from ..core import forms
from ..core.errors import TritonscopeError, UsageError
from ..core.targets import local_target
from ..isolate import task
from .requests import said, warn_caller
from .results import Dump, Trace
from .session import answer


def launched(kernel: Any, timeout: float = 300.0) -> list[Dump]:
    """Every variant of `kernel` this process has launched (what `kernel.cache` holds), each a result
    like `dump`'s, read from what Triton kept: nothing recompiled."""
    __tracebackhide__ = True
    from ..triton_api import launched as triton_launched

    try:
        found = [_dump(compiled, timeout) for compiled in triton_launched.compiled_kernels(kernel)]
    except TritonscopeError as exc:
        raise said(exc) from None
    if not found:  # an empty list alone reads as "it launched, and there is nothing to see"
        warn_caller(_launched_nothing(kernel))
    return found


def _launched_nothing(kernel: Any) -> str:
    from ..triton_api.launched import interpreted, kernel_name

    name = kernel_name(kernel) or getattr(kernel, "__name__", None) or "the kernel"
    if interpreted(kernel):  # it may well have run: the interpreter compiles nothing for Triton to keep
        return (
            f"{name} runs on Triton's interpreter (TRITON_INTERPRET=1), which compiles nothing: ts.dump({name}, "
            '...) compiles it for a target, and ts.trace(["python", "prog.py"], target="sm90") runs a program '
            "against a simulated GPU"
        )
    why = "there is no GPU here to launch it on" if local_target() is None else "it has not been launched yet"
    return (
        f"{name} has launched nothing in this process ({why}): ts.dump({name}, ...) compiles it for a "
        'target, and ts.trace(["python", "prog.py"], target="sm90") runs a program against a simulated GPU'
    )


def _dump(compiled: Any, timeout: float) -> Dump:
    from ..triton_api import launched as triton_launched
    from ..triton_api.cells import kernel_source

    jit = triton_launched.jit_of(compiled)
    source, name = kernel_source(jit) if jit is not None else (None, compiled.name)
    data = triton_launched.launched(compiled)
    return Dump(answer(task(calls.launched, source, name, data), timeout))


class Capture:
    """`with ts.capture() as cap:`: every kernel the block launches in this process, once each, in
    launch order; `cap.kernels` are their results, like `dump`'s."""

    def __init__(self, target: str | None = None, timeout: float = 300.0):
        self.target, self.timeout = target, timeout
        self.compiled: list[Any] = []
        self._recording: Any = None

    def __enter__(self) -> Capture:
        __tracebackhide__ = True
        try:
            _check_gpu(self.target)
        except TritonscopeError as exc:
            raise said(exc) from None
        from ..triton_api.launched import recording

        self._recording = recording()
        self.compiled = self._recording.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._recording.__exit__(*exc_info)

    @property
    def kernels(self) -> list[Dump]:
        __tracebackhide__ = True
        try:
            return [_dump(compiled, self.timeout) for compiled in self.compiled]
        except TritonscopeError as exc:
            raise said(exc) from None

    def __repr__(self) -> str:
        names = ", ".join(dict.fromkeys(c.name for c in self.compiled)) or "none yet"
        return f"<Capture of {len(self.compiled)} launched kernel variants: {names}>"


def capture(target: str | None = None, timeout: float = 300.0) -> Capture:
    """Records every kernel the block compiles and launches, in this process, through Triton's hooks:
    `with ts.capture() as cap: model(x)`, then `cap.kernels`. Needs the GPU it launches on; with a
    `target` this machine's GPU is not, the simulated one needs a process of its own: `ts.trace`."""
    return Capture(target, timeout)


def _check_gpu(target: str | None) -> None:
    local = local_target()
    wanted = forms.command_target(target).name if target is not None else None
    if local is not None and wanted in (None, local.name):
        return
    program = f'ts.trace(["python", "infer.py"], target="{wanted or "sm90"}")'
    here = f"this GPU is {local.name}" if local is not None else "no GPU is visible here"
    raise UsageError(
        f"capture{f' for {wanted}' if wanted else ''}: {here}, and a simulated GPU needs a process of its own "
        f"(it replaces torch's and Triton's device before the program starts); run the code as a program: {program}"
    )


def trace(
    command: Sequence[str] | str,
    target: str | None = None,
    out: str | Path | None = None,
    launches: int = 3,
    autotune: str | None = None,
    replace: bool = False,
    time_limit: float = 300.0,
) -> Trace:
    """Runs a program (`["python", "infer.py"]`, or a str a shell would split) and captures every
    kernel Triton compiles in it, torch.compile's too, into a folder (`out`, else a new temporary one,
    kept); with `target`, against a simulated GPU: no GPU needed. Its kernels are then
    `ts.dump(f"{t.folder}/:NAME")`."""
    __tracebackhide__ = True
    words = tuple(shlex.split(command) if isinstance(command, str) else command)  # a str: as a shell splits it
    try:
        if not words:
            raise UsageError('give the program to run, e.g. ["python", "infer.py"]')
        if not all(isinstance(w, str) for w in words):
            raise UsageError(f"command={command!r}: the program's words are str (['python', 'infer.py'])")
        if not time_limit > 0 or launches < 0:
            raise UsageError(
                f"time_limit={time_limit!r}, launches={launches!r}: a time limit over 0 s, launches 0 or more"
            )
        folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="tritonscope-trace-")) / "capture"
        simulated = forms.command_target(target) if target is not None else None
        rule = forms.autotune_rule(autotune) if autotune is not None else None
        call = task(calls.trace, words, str(folder), replace, launches, simulated, rule, time_limit)
        return Trace(answer(call, time_limit + 60.0, keep=False))
    except TritonscopeError as exc:
        raise said(exc, verbatim=(shlex.join(words), " ".join(words))) from None
