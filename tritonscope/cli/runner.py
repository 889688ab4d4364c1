"""The command line's frame: the typer app, global options, errors mapped to exit codes once,
the pager, and where output goes. Commands (one module each) only parse, call app/, emit.

Exit codes (core/status.py ExitStatus): 0 ok, 1 the kernel failed to compile, 2 bad usage,
input or environment, 3 a bug in tritonscope (traceback with --debug). 130 and 143 for Ctrl-C
and SIGTERM. A command returns its result (or cli/output.py's Output: the result, its view's
options, the files it names); the wrapper here writes the files, draws the result in the format
asked for (both through render/registry.py) and exits with the result's status.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import shutil
import signal
import subprocess
import sys
import traceback
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from .. import __version__
from ..core import fileio
from ..core.errors import TritonscopeError, UsageError
from ..core.status import ExitStatus
from . import help_text, status
from .messages import say
from .output import Output

if typing.TYPE_CHECKING:
    from ..render.registry import Format

app = typer.Typer(
    name="tritonscope",
    help="See what the Triton compiler does to a GPU kernel: every stage from Python to SASS, "
    "with registers, shared memory and occupancy. No GPU needed.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=help_text.Group,
)


@dataclass
class Environment:
    """What the commands read of the process: set once from global options and the terminal."""

    no_pager: bool = False
    debug: bool = False
    fmt: Format = "terminal"  # the format asked for (--json: "json"), while a command runs
    stdout: Any = None  # where results go; while a command runs, sys.stdout is stderr (a kernel's prints)

    @property
    def width(self) -> int:
        return shutil.get_terminal_size((80, 24)).columns

    @property
    def color(self) -> bool:
        if os.environ.get("NO_COLOR"):
            return False
        return bool(os.environ.get("FORCE_COLOR")) or (self.stdout or sys.stdout).isatty()


ENV = Environment()


NoPagerOpt = Annotated[bool, typer.Option("--no-pager", help="Never page long output on a terminal.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show Python tracebacks for errors.")]


def _version_callback(value: bool):
    if value:
        print(f"tritonscope {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version and exit.")
    ] = False,
    no_pager: NoPagerOpt = False,
    debug: DebugOpt = False,
):
    """See what the Triton compiler does to a GPU kernel."""
    ENV.no_pager, ENV.debug = no_pager, debug


@contextlib.contextmanager
def _executor(cluster: str | None):
    """--cluster names where isolate's executor runs tasks for this command only; the command's
    own code never looks (isolate.pool does). An address read from TRITONSCOPE_CLUSTER is named
    as that variable in every message about it: the user typed no --cluster."""
    from ..isolate import drive_cluster, use_cluster
    from .argtypes import cluster_address

    named = _cluster_named(cluster) if cluster else None
    try:
        if cluster and named:
            cluster_address(cluster, named)
            code = drive_cluster(cluster, ENV.stdout)  # Ray is driven by a child, which may end abruptly
            if code is not None:
                raise typer.Exit(code)
        use_cluster(cluster)
        yield
    except TritonscopeError as exc:
        if named and not named.startswith("--"):
            exc.message = exc.message.replace(f"--cluster {cluster}", named)
        raise
    finally:
        use_cluster(None)


CLUSTER_VARIABLE = "TRITONSCOPE_CLUSTER"


def _cluster_named(cluster: str) -> str:
    """How the user gave the cluster's address: `--cluster X`, or the variable it was read from."""
    typed = any(arg == "--cluster" or arg.startswith("--cluster=") for arg in sys.argv[1:])
    if typed or os.environ.get(CLUSTER_VARIABLE) != cluster:
        return f"--cluster {cluster}"
    return f"{CLUSTER_VARIABLE}={cluster} (from the environment)"


def command(name: str | None = None, parent: typer.Typer = app, **settings):
    """Registers a command with --no-pager and --debug added, and its failures turned into exit codes."""

    def register(function: Callable) -> Callable:
        own = typing.get_type_hints(function, include_extras=True)
        keyword = inspect.Parameter.KEYWORD_ONLY
        parameters = [
            p.replace(kind=keyword, annotation=own[p.name]) for p in inspect.signature(function).parameters.values()
        ]
        parameters += [
            inspect.Parameter("no_pager", keyword, annotation=NoPagerOpt, default=False),
            inspect.Parameter("debug", keyword, annotation=DebugOpt, default=False),
        ]

        @functools.wraps(function)
        def run(**values):
            ENV.no_pager |= values.pop("no_pager")
            ENV.debug |= values.pop("debug")
            ENV.stdout = sys.stdout
            ENV.fmt = "json" if values.get("json_out") else "terminal"
            fileio.new_run()
            with errors_reported(), contextlib.ExitStack() as limits:
                _check_stdout(ENV.stdout)
                ENV.stdout = _private_stdout(ENV.stdout, limits)
                if values.get("timeout") is not None:
                    limits.enter_context(_user_code_limit(values["timeout"]))
                limits.enter_context(_executor(values.get("cluster")))
                with status.shown():  # what runs, on a terminal, once it has run two seconds
                    returned = function(**values)
                _finish(returned, ENV.fmt)

        run.__signature__ = inspect.Signature(parameters)
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        del run.__wrapped__  # typer must read the new signature
        if hasattr(function, "context_settings"):  # variant_flags' `-- COMMAND...`
            settings["context_settings"] = {**function.context_settings, **settings.get("context_settings", {})}
        parent.command(name, cls=help_text.Command, **settings)(run)
        return function

    return register


def _finish(returned: Any, fmt: Format) -> None:
    """A command's output: its files written, its result drawn in the format asked for (both
    through render/registry.py), then its exit status."""
    if returned is None:
        return
    output = returned if isinstance(returned, Output) else Output(returned)
    if output.files:
        from .output import write

        write(output)
    if output.shown:
        from ..render.registry import renderer

        kind, fmt = type(output.result), output.fmt or fmt
        try:
            emit(renderer(kind, fmt, width=ENV.width, color=ENV.color, **output.options), output.result)
        except BrokenPipeError:  # the reader left (`| head`): the status is still the result's (a failed gate)
            _silence_stdout()
    if output.result.exit_status != ExitStatus.SUCCESS:
        raise typer.Exit(int(output.result.exit_status))


def preload(result_type: type) -> None:
    """Imports the renderer the command's result will be drawn with now, while other work runs (a
    sweep's workers compile), rather than after it."""
    from ..render.registry import renderer_class

    renderer_class(result_type, ENV.fmt)


@contextlib.contextmanager
def errors_reported():
    """Every failure as one clear message and an exit code; tracebacks only with --debug."""
    try:
        yield
    except TritonscopeError as exc:
        _traceback()
        say(f"error: {exc.message}", "bold red")
        if exc.hint:
            say(f"hint: {exc.hint}", "dim")
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort):
        raise
    except KeyboardInterrupt:
        raise typer.Exit(ExitStatus.INTERRUPTED) from None
    except BrokenPipeError:  # the reader went away (`| head`): what it wanted was written
        _silence_stdout()
        raise typer.Exit(ExitStatus.SUCCESS) from None
    except OSError as exc:  # the machine's problem: a full disk, a read-only folder, `ulimit -n`
        _traceback()
        from ..core.limits import open_files_limit

        limit = open_files_limit(exc)
        if limit is not None:
            say(f"error: {limit.message}", "bold red")
            say(f"hint: {limit.hint}", "dim")
            raise typer.Exit(limit.exit_code) from None
        where = f" {exc.filename}" if exc.filename else ""
        say(f"error: cannot use{where}: {exc.strerror or exc}", "bold red")
        raise typer.Exit(ExitStatus.USAGE) from None
    except Exception as exc:  # noqa: BLE001 - anything else is a tritonscope bug
        _traceback()
        say(f"internal error: {type(exc).__name__}: {exc}", "bold red")
        say("this is a bug in tritonscope; run again with --debug for the traceback", "dim")
        raise typer.Exit(ExitStatus.BUG) from None


def _user_code_limit(seconds: float):
    """--timeout also bounds the kernel file's own code in this process (its import, heuristics)."""
    from ..core.limits import user_code_limit
    from .argtypes import timeout

    return user_code_limit(timeout(seconds))


def _check_stdout(stream) -> None:
    """Output needs somewhere to go: a closed stdout is the caller's mistake, said once."""
    closed = UsageError("stdout is closed: there is nowhere to write the output", hint="run with stdout open")
    if stream is None or getattr(stream, "closed", False):
        raise closed
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # not a file (a test runner's buffer): writable
    try:
        os.fstat(descriptor)
    except OSError:
        raise closed from None


def _private_stdout(stream, stack: contextlib.ExitStack):
    """The results' own copy of stdout. While the command runs, file descriptor 1 and sys.stdout
    point at stderr instead: a kernel file that prints, writes to descriptor 1 itself (os.write, a C
    library, a child process) or closes it cannot mix anything into the output or take it away."""
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a file (a test runner's buffer)
        stack.enter_context(contextlib.redirect_stdout(sys.stderr))
        return stream
    stream.flush()
    private = os.dup(descriptor)
    os.set_inheritable(private, False)
    os.dup2(2, descriptor)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    results = stack.enter_context(os.fdopen(private, "w", encoding=encoding, errors="replace"))
    from ..core import fileio

    fileio.RESULTS_FD = private
    stack.enter_context(contextlib.redirect_stdout(os.fdopen(descriptor, "w", closefd=False, errors="replace")))
    return results


def _traceback() -> None:
    if ENV.debug:
        traceback.print_exc()


def _silence_stdout() -> None:
    """The results' stream (and sys.stdout) pointed at /dev/null once the reader left, so that what is
    still buffered goes nowhere at close rather than raising again (and masking the exit status)."""
    nowhere = os.open(os.devnull, os.O_WRONLY)
    for stream in {id(s): s for s in (ENV.stdout, sys.stdout) if s is not None}.values():
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(nowhere, stream.fileno())
    os.close(nowhere)


def emit(renderer: Any, result: Any) -> None:
    """A result out through its renderer: text to stdout (paged on a terminal), JSON as it is."""
    stdout = ENV.stdout or sys.stdout
    try:
        if not hasattr(renderer, "write"):
            stdout.write(renderer.render(result))
            stdout.flush()
            return
        if stdout.isatty() and not ENV.no_pager and shutil.which("less"):
            _paged(renderer, result)
            return
        renderer.write(result, stdout)
        stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk behind `> file`: the system's words lack what was written
        with contextlib.suppress(OSError, ValueError):  # what is left in its buffer goes nowhere at close
            nowhere = os.open(os.devnull, os.O_WRONLY)
            os.dup2(nowhere, stdout.fileno())
            os.close(nowhere)
        raise UsageError(f"cannot write the result to standard output: {exc.strerror or exc}") from None


def _paged(renderer: Any, result: Any) -> None:
    """Streams into `less` as the renderer draws, so the first screen shows at once; less quits
    at once when the output fits (-F), keeps colours (-R) and cuts long lines (-S)."""
    pager = subprocess.Popen(["less", "-RFXS"], stdin=subprocess.PIPE, text=True, errors="replace")
    try:
        renderer.write(result, pager.stdin)
        pager.stdin.close()
    except BrokenPipeError:  # the user quit the pager early
        pass
    finally:
        with contextlib.suppress(OSError):
            pager.stdin.close()
        pager.wait()


def _terminate(signum, frame):
    from ..core.errors import Terminated

    raise Terminated(128 + signum)  # unwinds like Ctrl-C: workers killed, staging folders removed


def _only_the_command_named(args: list[str]) -> None:
    """typer builds the options of every registered command on each run (a tenth of a second for
    twenty commands, in a run of `dump --json` that takes one and a half); a run naming a command
    builds that one alone. Without one (`--help`, a typo) every command stays, for typer's listing."""
    word = next((arg for arg in args if not arg.startswith("-")), None)
    commands = [c for c in app.registered_commands if _name_of(c) == word]
    groups = [g for g in app.registered_groups if g.name == word]
    if commands or groups:
        app.registered_commands, app.registered_groups = commands, groups


def _name_of(command) -> str:
    """A registered command's name as typer derives it: given, else its function's with dashes."""
    return command.name or getattr(command.callback, "__name__", "").replace("_", "-")


def main() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="replace")  # a kernel's non-ASCII text on an ASCII terminal
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _terminate)
    from ..core import scratch

    _only_the_command_named(sys.argv[1:])
    if os.environ.pop("TRITON_INTERPRET", "0") not in ("", "0"):  # else @triton.jit compiles nothing here
        say("note: TRITON_INTERPRET is set; tritonscope compiles with Triton's compiler, so it is unset here", "dim")
    try:
        with scratch.run_folder():  # ptxas's and pip's temporary files, removed however the run ends
            app()
    except SystemExit as end:
        driver = sys.modules.get("tritonscope.isolate.cluster")
        if driver is not None:  # --cluster: this may be the child that drives Ray (cluster.drive_in_child)
            driver.finished(end.code)
        raise
