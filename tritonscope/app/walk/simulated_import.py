"""Importing a kernel file that asks for a GPU, on a machine with none.

Triton's tutorials and many libraries ask for the device at module level
(`triton.runtime.driver.active.get_active_torch_device()`, `torch.cuda.get_device_capability()`)
or define their kernels only `if torch.cuda.is_available():`. Where no GPU is visible and a plain
import fails or finds no kernels, the file is imported again against the simulated GPU of the
target (triton_api/simulated/, the device `trace --target` gives a program): the device queries
get the target's answers, tensors take no memory, launches compile and run nothing.

Triton's tutorials launch a kernel at module level and print its result there; on the
simulated device that print cannot be answered, so the import stops at that statement. The
kernels defined so far are kept, and so are the ones defined after it: the definitions that
follow the stopping statement (def, class, import, assignments, if/try/with blocks) still
run, one statement at a time; its other statements (calls, loops: benchmarks, more prints)
are skipped, as they would read the device again. The import works in a folder of tritonscope's
own, removed after it: what the file writes into its working directory meanwhile (a benchmark's
results.html, its plots: figures of no real run) never lands among the user's files.
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.pysource import is_kernel_def
from ...core.quantities import count

if TYPE_CHECKING:
    from ...core.errors import KernelFileError
    from ...core.targets import Target

_DEFINITIONS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.If,
    ast.Try,
    ast.With,
)


def can_simulate() -> bool:
    """Whether an import may be retried against a simulated GPU: only where no GPU is visible (a real
    one answers for itself, and bench and profile need it real) and torch is installed."""
    import importlib.util

    from ...core.targets import local_target

    # The simulated GPU answers through torch (its fake tensors, torch.cuda): without torch installed
    # the plain import's own error stands.
    return local_target() is None and importlib.util.find_spec("torch") is not None


@contextlib.contextmanager
def simulated(target: Target | None) -> Iterator[dict]:
    """A context in which this process sees a simulated GPU of TARGET (None: what `--target auto`
    compiles for), working in a folder of its
    own (what the file writes there goes with it); yields the device's description."""
    from ...core.scratch import own_working_folder, working_in
    from ...core.targets import auto
    from ...triton_api import simulated as device

    with device.importing((target or auto()).simulated_device()) as described, own_working_folder() as folder:
        with working_in(folder):
            yield described


# What a module-level `if` asks when it defines kernels only where there is a GPU: torch's (and
# torchao's) has_triton(), torch.cuda.is_available(), a library's own HAS_GPU-like flag.
_GPU_CHECKS = {"has_triton", "is_available", "has_cuda", "has_gpu", "HAS_TRITON", "HAS_CUDA", "HAS_GPU"}


def gpu_gate(source: str) -> tuple[int, str] | None:
    """(line, text) of the first module-level `if` that asks for a GPU and defines a @triton.jit kernel
    in its body (torchao's `if has_triton():`), or None: such a file's kernels exist only on a GPU."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for statement in tree.body:
        if not isinstance(statement, ast.If):
            continue
        asked = {n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name)}
        asked |= {n.attr for n in ast.walk(statement.test) if isinstance(n, ast.Attribute)}
        if asked & _GPU_CHECKS and any(is_kernel_def(node) for node in ast.walk(ast.Module(statement.body, []))):
            return statement.lineno, ast.get_source_segment(source, statement.test) or ""
    return None


def no_kernels(path: Path, gate: tuple[int, str] | None) -> KernelFileError:
    """A file with no kernel: where they sit under a GPU check (`gpu_gate`), that check and its line."""
    from ...core.errors import KernelFileError

    if gate is None:
        return KernelFileError(f"{path}: no @triton.jit kernels found", hint="decorate a kernel with @triton.jit")
    return KernelFileError(
        f"{path}: its kernels are defined only under the GPU check at line {gate[0]} (`if {gate[1]}:`), "
        "false here: no GPU is visible",
        hint="with torch installed, tritonscope imports such a file against a simulated GPU; or run it on a GPU",
    )


def stops_simulated_import(exc: BaseException) -> bool:
    """Whether an exception raised at module level under the simulated GPU stops the import there (the
    kernels defined so far and after are kept) rather than failing it: a value read, and whatever a
    GPU library raises without its GPU (cuBLAS absent, a device-only operator). A missing module, a
    syntax error or an exit still fail the import, as they would on a GPU."""
    if isinstance(exc, (ImportError, SyntaxError)) or not isinstance(exc, Exception):
        return False
    return True


def line_in_file(exc: BaseException, path: Path) -> int | None:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path]
    return frames[-1].lineno if frames else None


def continue_after(module: Any, path: Path, source: str, exc: BaseException) -> str:
    """Runs the definitions after the statement that stopped the import; returns a line saying where
    it stopped and why."""
    tree = ast.parse(source, str(path))
    line = line_in_file(exc, path) or 0
    body = tree.body
    stopped = next((i for i, s in enumerate(body) if s.lineno <= line <= (s.end_lineno or s.lineno)), len(body))
    flags = _future_flags(tree)
    skipped = 0
    for statement in tree.body[stopped + 1 :]:
        if not isinstance(statement, _DEFINITIONS):
            skipped += 1
            continue
        code = compile(ast.Module([statement], type_ignores=[]), str(path), "exec", flags=flags, dont_inherit=True)
        try:
            exec(code, module.__dict__)
        except Exception:  # noqa: BLE001 - foreign code after the stop: keep what defines, skip the rest
            skipped += 1
    were = "was" if skipped == 1 else "were"
    after = f"; the definitions after it ran, {count(skipped, 'other statement')} {were} skipped" if skipped else ""
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    shown = f" ({text if len(text) <= 60 else text[:57] + '...'})" if text else ""  # cut visibly, not mid-code
    reason = str(exc) if getattr(type(exc), "device_value_read", False) else f"{type(exc).__name__}: {exc}"
    reason = reason.strip().rstrip(".")
    return f"the import of {path.name} stopped at line {line}{shown}: {reason}{after}"


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags
