"""Put on PYTHONPATH by `tritonscope trace`: logs every Triton compile of the traced program.

Python imports `sitecustomize` at start-up in the traced program and in every Python
process it starts (torch.compile's compile workers too). For each compile, Triton's
compilation listener gets the source and the specialization; one JSON line per compile
goes to the file named by $TRITONSCOPE_CAPTURE. Triton writes the artifacts themselves
into TRITON_CACHE_DIR. With $TRITONSCOPE_LAUNCHES set, each kernel's first launches (grid and
arguments) go there too, one JSON line each: tritonscope/triton_api/capture.py, loaded by path so
that the traced program needs no tritonscope on its path. The variables' names are
tritonscope_contract.py's, beside this file.
"""

import json
import os

import tritonscope_contract as contract  # type: ignore[import-not-found]  # beside this file, on the path

_loaded = {}


def _load(relative, name):
    """A module of tritonscope/ (a path below it), loaded once from its file: this folder is all of
    tritonscope that is on the traced program's path."""
    import importlib.util

    if name not in _loaded:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *relative.split("/"))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[name] = module
    return _loaded[name]


def _capture_module():
    """tritonscope/triton_api/capture.py: launch records, marks, kernel globals."""
    return _load("triton_api/capture.py", "_tritonscope_capture")


def _simulated_device():
    """tritonscope/triton_api/simulated/, loaded from its folder as a package of its own name."""
    import importlib.util
    import sys

    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "triton_api", "simulated")
    name = contract.SIMULATED_PACKAGE
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# Settings that change the code Triton makes but not its cache key: torch.compile, for one, points
# TRITON_PTXAS_PATH at the CUDA toolkit's ptxas, whose PTX version differs from Triton's own.
_CODEGEN_ENVIRONMENT = ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH", "TRITON_DEFAULT_FP_FUSION")


# What the launch chose beside the specialization: an autotuner's configs differ in these too.
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def _record(src, metadata):
    import time

    fn = getattr(src, "fn", None)
    record = {"hash": metadata.get("hash"), "name": metadata.get("name"), "time": time.time(), "pid": os.getpid()}
    record["options"] = {k: metadata[k] for k in _OPTIONS if isinstance(metadata.get(k), int)}
    record["environment"] = {k: os.environ[k] for k in _CODEGEN_ENVIRONMENT if k in os.environ}
    if fn is not None:
        import inspect

        base = getattr(fn, "fn", fn)
        try:
            lines, first = inspect.getsourcelines(base)
            record.update(file=base.__code__.co_filename, first_line=first, source="".join(lines))
        except (OSError, TypeError):
            record.update(source=getattr(fn, "src", ""))
        record["module"] = getattr(base, "__module__", None)
        try:  # what a standalone reproducer needs: the body's globals, the constants' typed values
            capture = _capture_module()
            record["globals"] = capture.kernel_globals(base)
            constants = dict(getattr(src, "constants", {}))
            record["constant_values"] = {str(k): capture.describe(v) for k, v in constants.items()}
        except Exception:  # noqa: BLE001 - only a help
            pass
        record["signature"] = {str(k): str(v) for k, v in dict(getattr(src, "signature", {})).items()}
        record["constants"] = {str(k): str(v) for k, v in dict(getattr(src, "constants", {})).items()}
        record["attrs"] = {str(k): v for k, v in dict(getattr(src, "attrs", {})).items()}
    return record


def _copy_artifacts(metadata, metadata_group):
    import shutil

    target = os.environ.get(contract.ENV_CAPTURE_CACHE)
    if not target or not metadata.get("hash"):
        return
    folder = os.path.join(target, str(metadata["hash"]))
    os.makedirs(folder, exist_ok=True)
    for name, path in dict(metadata_group).items():
        destination = os.path.join(folder, name)
        if os.path.exists(path) and not (os.path.exists(destination) and os.path.samefile(path, destination)):
            shutil.copyfile(path, destination)


def _install(log):
    try:
        from triton import knobs
    except Exception:  # noqa: BLE001 - a program without Triton: nothing to capture
        return
    previous = knobs.compilation.listener
    try:
        marks = _capture_module().MarkWatch(os.environ.get(contract.ENV_MARKS) or None)
    except Exception:  # noqa: BLE001 - capturing must never break the traced program
        marks = lambda: None  # noqa: E731

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        try:
            marks()
            _copy_artifacts(metadata, metadata_group)
            record = _record(src, metadata)
            try:  # Triton's own measure of the compile, in microseconds
                record["compile_us"] = times.ir_initialization + times.total_lowering + times.store_results
            except Exception:  # noqa: BLE001 - a release without them
                pass
            line = json.dumps(record, default=str) + "\n"
            descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, line.encode())  # one append: processes never interleave lines
            finally:
                os.close(descriptor)
        except Exception:  # noqa: BLE001 - capturing must never break the traced program
            pass
        if previous is not None:
            previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)

    knobs.compilation.listener = listener
    launches = os.environ.get(contract.ENV_LAUNCHES)
    if launches:
        try:
            limit = int(os.environ.get(contract.ENV_LAUNCH_LIMIT, contract.DEFAULT_LAUNCH_LIMIT))
            _capture_module().install(launches, limit, marks)
        except Exception:  # noqa: BLE001 - capturing must never break the traced program
            pass


def _record_torch_compiles(log):
    """torch.compile's frame compiles (triton_api/torch_compiles.py), once the program imports
    torch._dynamo: a program that never calls torch.compile pays nothing."""
    try:
        recorder = _load("triton_api/torch_compiles.py", "_tritonscope_torch_compiles")
        after_import = _load("triton_api/simulated/after_import.py", "_tritonscope_after_import").after_import
        append_line = _capture_module().append_line
        after_import("torch._dynamo.convert_frame", lambda module: recorder.install(module, log, append_line))
    except Exception:  # noqa: BLE001 - capturing must never break the traced program
        pass


def _without_simulated_gpu(missing):
    """trace --target in a Python that lacks torch (the simulated GPU is made of its fake tensors): the
    program is not run, since it would run with no GPU at all; tritonscope reads the record and says why."""
    import sys

    stopped = os.environ.get(contract.ENV_STOPPED)
    if stopped:
        record = os.path.join(os.path.dirname(stopped), contract.NO_SIMULATED_GPU)
        with open(record, "w") as out:
            json.dump({"missing": missing, "python": sys.executable}, out)
    os._exit(2)


def _set_up():
    if os.environ.get(contract.ENV_SIMULATED_DEVICE):
        # before the program runs: it must see the simulated GPU from its first line (trace --target)
        try:
            _simulated_device().activate_from_environment()
        except ModuleNotFoundError as exc:
            if (exc.name or "").partition(".")[0] != "torch":
                raise
            _without_simulated_gpu("torch")
    if os.environ.get(contract.ENV_CAPTURE):
        _install(os.environ[contract.ENV_CAPTURE])
    if os.environ.get(contract.ENV_TORCH_COMPILES):
        _record_torch_compiles(os.environ[contract.ENV_TORCH_COMPILES])


try:
    _set_up()
except KeyboardInterrupt:  # Ctrl-C while the hook imports torch: Python would print "Fatal Python error"
    os._exit(130)  # and a page of traceback; trace says Ctrl-C stopped the program
