"""`tritonscope passes`: the compile again, in an isolated worker with Triton's IR dumps on.

The dumps go to the worker's C-level stderr, a file here; a compiler crash there cannot
take tritonscope down. The worker starts first, so its start-up overlaps checking the flags.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..analysis import passes as pipeline
from ..core.errors import CompileError, UsageError
from ..core.model import VariantRequest
from ..core.results import PassesResult
from ..isolate import Task, Workers
from ..triton_api.passes import DUMP_ENVIRONMENT, LLVM_DUMP_ENVIRONMENT
from .prepare import from_reference, prepare


def passes(request: VariantRequest, show: str | None, llvm: bool, timeout: float) -> PassesResult:
    variant, dump = capture_dump(from_reference(request), llvm, timeout)
    records = pipeline.build(dump)
    if not records:
        raise CompileError("the compiler printed no pass dumps (is MLIR_ENABLE_DUMP honoured by this Triton?)")
    llvm_records = tuple(pipeline.build_llvm(dump)) if llvm else None
    selected = tuple(pipeline.select(records, show)) if show is not None else None
    return PassesResult(variant, tuple(records), llvm_records, selected, _triton_version())


def capture_dump(request: VariantRequest, llvm: bool, timeout: float):
    """(the Variant, Triton's pass-by-pass IR dumps) of one compile in an isolated worker."""
    with tempfile.TemporaryDirectory(prefix="tritonscope-passes-") as folder:
        dump_file = Path(folder) / "dump.txt"
        env = {**DUMP_ENVIRONMENT, **(LLVM_DUMP_ENVIRONMENT if llvm else {}), "TRITON_CACHE_DIR": f"{folder}/cache"}
        with open(dump_file, "w") as stderr, Workers(timeout=timeout, env=env, stderr=stderr) as workers:
            workers.warm()
            variant = prepare(request).variant  # bad flags fail here, while the worker starts
            outcome = workers.run([Task("tritonscope.app.passes:capture", (request,))])[0]
        if not outcome.ok:
            if outcome.error.startswith("timed out"):
                raise CompileError(f"capturing the passes took longer than {timeout:g} s", hint="raise --timeout")
            outcome.unwrap()
        return variant, dump_file.read_text(errors="replace")


def capture(request: VariantRequest) -> None:
    """In the worker: the pipeline up to triton.compile, keeping the final LLVM-dialect module."""
    from ..triton_api.compiler import run_compiler
    from ..triton_api.passes import keep_final_module

    keep_final_module()
    prepared = prepare(request)
    run_compiler(prepared.kernel, prepared.variant, prepared.target)


def _triton_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        raise UsageError("Triton is not installed: pip install triton") from None
