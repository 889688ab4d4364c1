"""A kernel file run as a learner runs it, for `--from-run`: `python FILE` first (its module-level
code and its `__main__` block), then its test functions, then its benchmarks, until the launch
tritonscope waits for ends the process (capture.StopAtLaunch).

Run in the traced program as `python file_run.py LOG FILE [ARGS...]`, beside the capture hook,
so it imports only the standard library and the contract (never tritonscope, maybe not installed
there). Each step goes on past what stops it on a simulated GPU: a value read (the simulated GPU
raises it here instead of ending the program), an assert on a result, a GPU library that is not
there. Its module-level statements (and those of its `if` blocks, `__main__`'s too) run one at
a time, so a statement that fails costs only itself: Triton's tutorials check a result
(`torch.allclose`, a print) between their launches. Then each `test_*` function runs with the
smallest sizes its `pytest.mark.parametrize` offers, once for each of its other choices (modes,
dtypes, providers), and each `triton.testing.perf_report` benchmark with its smallest x value,
once per line (its plots and tables, which need values, are not drawn).

LOG gets one JSON line per step (what ran, and what stopped it), for tritonscope's message when
no step launched the kernel; and, as it happens, one line per statement or case that failed and was
gone past (`skipped`), since a launch reached ends the process before its step's line is written.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import itertools
import json
import os
import sys
import types

try:  # in tritonscope's own process (the tests import it)
    from ..capture_hook import tritonscope_contract as contract
except ImportError:  # run by its path in the traced program, whose path has the hook's folder
    import tritonscope_contract as contract  # type: ignore[import-not-found, no-redef]

MAX_CASES = 8  # of one test function or benchmark: its smallest sizes, once per other choice


def main(argv: list[str]) -> int:
    log, path = argv[1], os.path.abspath(argv[2])
    _raise_at_reads()
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    module = _as_main(path, argv[2:])
    if _run_statements(module, path, source, log):
        for function in _test_functions(module, path):
            _run_cases(function, function.__name__, _cases(_test_cases, function), log)
        for name, mark in _benchmarks(module):
            for benchmark in _listed(mark.benchmarks):
                _run_cases(mark.fn, name, _cases(_benchmark_cases, benchmark), log)
    return 0


def _cases(make, thing) -> list[dict]:
    """The cases MAKE reads off THING; one call with no arguments where they cannot be read (marks
    or a benchmark of a shape this file does not know): the call then says what it lacks."""
    try:
        return make(thing)
    except Exception:  # noqa: BLE001 - foreign objects: what they hold is theirs
        return [{}]


def _raise_at_reads() -> None:
    """The simulated GPU (loaded by the capture hook) raises at a value read instead of ending the
    program: the step that read goes no further, the next one runs."""
    stop = sys.modules.get(f"{contract.SIMULATED_PACKAGE}.stop")
    if stop is not None:
        stop.raise_on_read()


def _as_main(path: str, argv: list[str]) -> types.ModuleType:
    """A fresh `__main__` module for FILE, seen as `python FILE ARGS` sees it."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    _driver.append(sys.modules["__main__"])  # this file's own module stays alive
    sys.modules["__main__"] = module
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(path)
    return module


_driver: list[types.ModuleType] = []


def _run_statements(module: types.ModuleType, path: str, source: str, log: str) -> bool:
    """FILE's statements one at a time, those of its `if` blocks too (`if __name__ == "__main__":`);
    False when it exits."""
    tree = ast.parse(source, path)
    run = _Statements(module.__dict__, path, _future_flags(tree), log)
    exited = run.block(tree.body)
    _write(log, {"step": "__main__", "failures": run.failures, **({"exited_at": exited} if exited else {})})
    return exited is None


class _Statements:
    """Runs statements one at a time in a module's namespace, each failure costing only its statement.
    An `if` is entered: its test is evaluated, then its chosen branch's statements one at a time, so
    that `if __name__ == "__main__" and enabled(...):` or `if is_cuda():` blocks split like the rest."""

    def __init__(self, namespace: dict, path: str, flags: int, log: str):
        self.namespace, self.path, self.flags, self.log = namespace, path, flags, log
        self.failures: list[dict] = []

    def block(self, body: list[ast.stmt]) -> int | None:
        """BODY's statements; the line of the one that exited the program, else None."""
        for statement in body:
            try:
                if isinstance(statement, ast.If):
                    chosen = statement.body if self._evaluate(statement.test) else statement.orelse
                    exited = self.block(chosen)
                    if exited:
                        return exited
                    continue
                exec(self._compiled(ast.Module([statement], type_ignores=[]), "exec"), self.namespace)
            except SystemExit:
                return statement.lineno
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - the next statement runs, as far as it can (pytest.skip too)
                self.failures.append(_failure(exc, self.path, statement.lineno))
                _write(self.log, {"skipped": {**self.failures[-1], "statement": statement.lineno}})
                self._unset(statement)
        return None

    def _unset(self, statement: ast.stmt) -> None:
        """The names a failed assignment would have bound, as None where unbound: Triton's tutorials make
        a GPU library's handle (`cublas = nvidia.cublas.CublasLt(...)`, else None) and test it later
        (`if cublas is not None:`), which a simulated GPU, with no library behind it, then skips."""
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        for name in (t.id for t in targets if isinstance(t, ast.Name)):
            self.namespace.setdefault(name, None)

    def _evaluate(self, test: ast.expr):
        return eval(self._compiled(ast.Expression(test), "eval"), self.namespace)

    def _compiled(self, tree: ast.Module | ast.Expression, mode: str):
        return compile(ast.fix_missing_locations(tree), self.path, mode, flags=self.flags, dont_inherit=True)


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(getattr(__future__, alias.name, None), "compiler_flag", 0)
    return flags


def _failure(exc: BaseException, path: str, line: int) -> dict:
    """What stopped a step: the exception, at FILE's innermost line in its traceback."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    text = " ".join(str(exc).split())[:200]
    return {"line": line, "error": f"{type(exc).__name__}: {text}" if text else type(exc).__name__}


def _test_functions(module: types.ModuleType, path: str) -> list:
    """FILE's own `test_*` functions, in the order the file defines them."""
    found = [
        value
        for name, value in vars(module).items()
        if name.startswith("test") and isinstance(value, types.FunctionType) and value.__code__.co_filename == path
    ]
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


def _test_cases(function) -> list[dict]:
    """Keyword arguments for FUNCTION from its `pytest.mark.parametrize` marks: of a mark whose values
    are all numbers (sizes) the smallest, of the others every value."""
    choices = []
    for mark in getattr(function, "pytestmark", []):
        if getattr(mark, "name", "") != "parametrize" or len(mark.args) < 2:
            continue
        names, values = mark.args[0], list(mark.args[1])
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = [_row(value, len(names)) for value in values]
        if rows and all(_is_size(v) for row in rows for v in row):
            rows = [min(rows, key=_volume)]
        choices.append([dict(zip(names, row, strict=True)) for row in rows])
    return [_merged(combination) for combination in itertools.product(*choices)][:MAX_CASES]


def _row(value, width: int) -> tuple:
    """The values of one case: a `pytest.param(...)`'s (always a tuple), else the case itself."""
    if type(value).__name__ == "ParameterSet":
        return tuple(value.values)
    return tuple(value) if width > 1 else (value,)


def _is_size(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _volume(row: tuple) -> float:
    volume = 1.0
    for value in row:
        volume *= abs(value) or 1
    return volume


def _merged(dicts) -> dict:
    merged: dict = {}
    for one in dicts:
        merged.update(one)
    return merged


def _benchmarks(module: types.ModuleType) -> list:
    """FILE's `triton.testing.perf_report` benchmarks (Mark objects), in the order it defines them."""
    marks = [
        (name, value)
        for name, value in vars(module).items()
        if type(value).__name__ == "Mark" and hasattr(value, "fn") and hasattr(value, "benchmarks")
    ]
    return sorted(marks, key=lambda item: getattr(getattr(item[1].fn, "__code__", None), "co_firstlineno", 0))


def _listed(benchmarks) -> list:
    return list(benchmarks) if isinstance(benchmarks, (list, tuple)) else [benchmarks]


def _benchmark_cases(benchmark) -> list[dict]:
    """A benchmark's smallest x value, once per line (provider), with its fixed arguments, as
    triton.testing's Mark._run calls the function."""
    names = list(benchmark.x_names)
    rows = [tuple(x) if isinstance(x, (list, tuple)) else tuple(x for _ in names) for x in benchmark.x_vals]
    sizes = [row for row in rows if all(_is_size(v) for v in row)]
    smallest = min(sizes, key=_volume) if sizes else (rows[0] if rows else ())
    x_args = dict(zip(names, smallest, strict=False))  # no x value: the function says what it lacks
    lines = list(benchmark.line_vals)
    return [{**x_args, benchmark.line_arg: line, **benchmark.args} for line in lines][:MAX_CASES]


def _run_cases(function, name: str, cases: list[dict], log: str) -> None:
    """FUNCTION called with each case in turn; a case that fails costs only itself."""
    code = getattr(function, "__code__", None)
    line = getattr(code, "co_firstlineno", 0)
    failures: list[dict] = []
    for case in cases:
        try:
            function(**case)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - the next case runs (pytest.skip, sys.exit, a fixture it lacks)
            failures.append({"case": _shown(case), **_failure(exc, getattr(code, "co_filename", ""), line)})
            _write(log, {"skipped": {**failures[-1], "function": name}})
    _write(log, {"step": name, "line": line, "cases": len(cases), "failures": failures})


def _shown(case: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in case.items())[:200]


def _write(log: str, record: dict) -> None:
    """One JSON line, written with a single append (the program may have threads of its own)."""
    line = json.dumps(record, default=str) + "\n"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
