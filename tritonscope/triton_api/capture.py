"""What runs inside a program traced by `tritonscope trace`: launch recording and kernel globals.

The traced program's sitecustomize (capture_hook/) loads this file by its path, so it imports
only the standard library, Triton (torch only through a tensor it is given) and the contract beside
the hook (capture_hook/tritonscope_contract.py), never the rest of tritonscope. Nothing here may
break or slow the traced program: every step is guarded, and after a kernel's first N launches a
launch costs one dictionary look-up.

How launches are seen, in every release from 3.5 to 3.9 (read in their runtime/jit.py and
compiler/compiler.py): `JITFunction.run` calls `kernel.launch_metadata(grid, stream,
*bound_args.values())` before each launch, with every parameter's value, constexprs included;
torch.compile's launcher calls `CompiledKernel.launch_metadata((g0, g1, g2), stream, *args)`
too, but only while a launch-enter hook is set (without one it burns None into its launcher,
and its static CUDA launcher, which never calls it, refuses kernels while one is set). So the
recorder wraps `CompiledKernel.launch_metadata` and adds a no-op launch-enter hook.
`knobs.runtime.launch_enter_hook` itself only receives the kernel's name, function and stream.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import sys
import textwrap
import time
from types import FrameType

try:  # in tritonscope's own process
    from ..capture_hook import tritonscope_contract as contract
except ImportError:  # loaded by its path in the traced program, whose path has the hook's folder
    import tritonscope_contract as contract  # type: ignore[import-not-found, no-redef]

SMALL_INTEGER_TENSOR = 1 << 20  # integer tensors up to this many elements get their min and max recorded
MAX_ITEMS = 64  # of a tuple argument


def append_line(path: str, record: dict) -> None:
    """One JSON line, written with a single append: lines of several processes never interleave."""
    line = json.dumps(record, default=str) + "\n"
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)


def _is_tensor(value) -> bool:
    return all(hasattr(value, a) for a in ("data_ptr", "shape", "stride", "dtype", "device"))


def _value_range(tensor) -> dict:
    """min and max of a small integer tensor (index tensors), so that a replay can make in-range
    values; nothing while a CUDA graph is being captured (reading would break the capture)."""
    torch = sys.modules.get("torch")
    dtype = tensor.dtype
    if torch is None or dtype.is_floating_point or dtype.is_complex or not 0 < tensor.numel() <= SMALL_INTEGER_TENSOR:
        return {}
    if "Fake" in type(tensor).__name__:
        return {}  # a simulated GPU's tensor holds no values (and its torch may not answer the next question)
    if tensor.is_cuda and torch.cuda.is_current_stream_capturing():
        return {}
    try:
        return {"min": int(tensor.min().item()), "max": int(tensor.max().item())}
    except Exception:  # noqa: BLE001 - a dtype without min/max: the range is only a help
        return {}


def describe_tensor(tensor) -> dict:
    return {
        "kind": "tensor",
        "shape": [int(n) for n in tensor.shape],
        "stride": [int(s) for s in tensor.stride()],
        "dtype": str(tensor.dtype),
        "device": str(tensor.device),
        "storage_offset": int(tensor.storage_offset()),
        **_value_range(tensor),
    }


def describe(value) -> dict:
    """One launch argument as plain JSON data: enough to make an argument like it again."""
    if _is_tensor(value):
        return describe_tensor(value)
    kind = type(value).__name__
    if isinstance(value, bool) or value is None:
        return {"kind": "bool", "value": value} if value is not None else {"kind": "none"}
    if isinstance(value, int):
        return {"kind": "int", "value": int(value)}
    if isinstance(value, float):
        return {"kind": "float", "value": repr(float(value))}  # 'nan' and 'inf' are not JSON numbers
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if isinstance(value, (tuple, list)):
        return {"kind": "tuple", "items": [describe(v) for v in list(value)[:MAX_ITEMS]]}
    if kind == "constexpr" and hasattr(value, "value"):
        return describe(value.value)
    if kind == "TensorDescriptor" and _is_tensor(getattr(value, "base", None)):
        fields = {f: [int(n) for n in getattr(value, f)] for f in ("shape", "strides", "block_shape")}
        return {"kind": "descriptor", "base": describe_tensor(value.base), **fields}
    module = type(value).__module__ or ""
    if kind == "dtype" and module.startswith("triton"):
        return {"kind": "tl_dtype", "value": str(value)}
    if kind == "dtype" and module.startswith("torch"):
        return {"kind": "torch_dtype", "value": str(value)}
    return {"kind": "other", "type": f"{module}.{kind}", "repr": repr(value)[:200]}


def launch_record(kernel, grid, args, index: int) -> dict:
    """A launch of a CompiledKernel: its hash and name, the grid (three numbers), every argument,
    and the program's line that launched it."""
    grid = [int(g) for g in tuple(grid)[:3]]
    fn = getattr(getattr(kernel, "src", None), "fn", None)
    names = list(getattr(fn, "arg_names", []) or [])
    return {
        "hash": kernel.hash,
        "name": kernel.name,
        "launch": index,
        "grid": grid + [1] * (3 - len(grid)),
        "params": names if len(names) == len(args) else None,
        "args": [describe(a) for a in args],
        "pid": os.getpid(),
        "time": time.time(),  # orders launches against compiles and marks (a mark's compiles after it)
        "call_site": call_site(),
    }


def _library_folders() -> tuple[str, ...]:
    """The folders of the packages a launch (or a mark the hook notices) passes through on its way
    from the program's line: this file's, the hook's, Triton's and torch's."""
    folders = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(contract.__file__))]
    for name in ("triton", "torch", "functools"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            folders.append(os.path.dirname(os.path.abspath(file)))
    return tuple(folder + os.sep for folder in folders)


def call_site() -> dict | None:
    """The innermost frame outside Triton, torch and this file: the program's line that launched."""
    libraries = _library_folders()
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith("<") and not os.path.abspath(file).startswith(libraries):
            return {"file": file, "line": frame.f_lineno, "function": frame.f_code.co_name}
        frame = frame.f_back
    return None


def write_mark(log: str, name: str, via: str, depth: int = 1) -> None:
    """One mark the program passed (`tritonscope.mark("warmup")`, or $TRITONSCOPE_MARK set), with the
    time every compile and launch record also carries, and the program's line that marked it."""
    frame: FrameType | None = sys._getframe(depth)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_library_folders()):
        frame = frame.f_back
    where = {"file": frame.f_code.co_filename, "line": frame.f_lineno} if frame is not None else None
    record = {"mark": name, "time": time.time(), "pid": os.getpid(), "via": via, "call_site": where}
    append_line(log, record)


class MarkWatch:
    """Notices a program that marks a point by setting $TRITONSCOPE_MARK (it cannot import tritonscope):
    as `os.environ` is set (its line the mark's), and checked again at each compile and launch (for
    os.putenv). A value the process started with (inherited from its parent) is no new mark. Noticed
    only at the next Triton compile or launch, a torch.compile frame compiled first was dated before
    it, and the gate passed it (h20b)."""

    def __init__(self, log: str | None):
        self.log, self.seen = log, os.environ.get(contract.ENV_MARK)
        if log:
            _watch_environ(self)

    def __call__(self) -> None:
        value = os.environ.get(contract.ENV_MARK)
        if value != self.seen:
            self.seen = value
            if value and self.log:
                write_mark(self.log, value, "environment", depth=2)


def _watch_environ(watch: MarkWatch) -> None:
    """`os.environ[...] = value` (and update, setdefault) calls WATCH once the mark's variable is set."""
    base = type(os.environ)

    class Watched(base):  # type: ignore[valid-type, misc]
        def __setitem__(self, key, value) -> None:
            base.__setitem__(self, key, value)
            if key == contract.ENV_MARK:
                try:
                    watch()
                except Exception:  # noqa: BLE001 - capturing must never break the traced program
                    pass

    try:
        os.environ.__class__ = Watched
    except TypeError:  # an environ replaced by something else: noticed at compiles and launches
        pass


class Recorder:
    """Appends each compiled kernel's first `limit` launches (in this process) to `log`. An autotuner
    timing its candidates launches each many times: one such launch per compile is recorded, marked
    `"timing": true`, and not counted, so the launch the program asks for after the tuning (of the
    config the autotuner kept) is recorded too, and tells which one that was."""

    def __init__(self, log: str, limit: int, marks: MarkWatch | None = None):
        self.log, self.limit, self.marks = log, limit, marks
        self.counts: dict[str, int] = {}
        self.timed: set[str] = set()

    def __call__(self, kernel, grid, args) -> None:
        if self.marks is not None:
            self.marks()
        key = getattr(kernel, "hash", None)
        seen = self.counts.get(key, 0) if key is not None else 0
        if key is None or seen >= self.limit:
            return
        if _benchmarking():
            if key not in self.timed:
                self.timed.add(key)
                append_line(self.log, {**launch_record(kernel, grid, args, seen), "timing": True})
            return
        self.counts[key] = seen + 1
        append_line(self.log, launch_record(kernel, grid, args, seen))


def wrap_launch_metadata(on_launch) -> None:
    """Shim: every launch of every release from 3.5 on passes through CompiledKernel.launch_metadata."""
    from triton.compiler.compiler import CompiledKernel  # type: ignore[import-untyped]

    original = CompiledKernel.launch_metadata

    @functools.wraps(original)  # keeps the original as __wrapped__
    def launch_metadata(self, grid, stream, *args):
        try:
            on_launch(self, grid, args)
        except Exception:  # noqa: BLE001 - recording must never break the traced program
            pass
        return original(self, grid, stream, *args)

    CompiledKernel.launch_metadata = launch_metadata


def _no_op_launch_hook(metadata) -> None:
    return None


def ensure_launch_enter_hook() -> None:
    """Shim: a launch-enter hook, so that torch.compile's launcher calls launch_metadata.

    From 3.5 on the knob is a HookChain (empty by default, and never None): add to it. An
    older knob holds one callable or None: set it only when it is None."""
    from triton import knobs  # type: ignore[import-untyped]

    hook = knobs.runtime.launch_enter_hook
    if hasattr(hook, "add"):
        hook.add(_no_op_launch_hook)
    elif hook is None:
        knobs.runtime.launch_enter_hook = _no_op_launch_hook


# torch.compile's autotuner times its candidates through these (the simulated GPU's answers included).
_INDUCTOR_TIMING = {"benchmark_all_configs", "benchmark_gpu", "_benchmark_gpu"}


def _benchmarking() -> bool:
    """Whether this launch is an autotuner timing its configs (Triton's Autotuner._bench, torch.compile's
    benchmark_all_configs), not one the program asked for. A program's own benchmark (a
    triton.testing.do_bench of its own) launches for real and counts."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_name in _INDUCTOR_TIMING or (code.co_name == "_bench" and code.co_filename.endswith("autotuner.py")):
            return True
        frame = frame.f_back
    return False


class StopAtLaunch:
    """Records launches, and ends the program once the `launch`-th launch (from 1) of the kernel named
    `name` (any kernel when empty) defined in `file` (any file when empty) is written: what
    `--from-run` needs is that launch's compile and record, nothing the program does after it."""

    def __init__(self, recorder: Recorder, want: dict):
        self.recorder, self.want, self.seen = recorder, want, 0

    def __call__(self, kernel, grid, args) -> None:
        if self._wanted(kernel):
            self.seen += 1
            if self.seen >= int(self.want.get("launch", 1)):
                index = self.recorder.counts.get(kernel.hash, 0)
                append_line(self.recorder.log, {**launch_record(kernel, grid, args, index), "stop": True})
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(contract.LAUNCH_REACHED_EXIT)
        self.recorder(kernel, grid, args)

    def _wanted(self, kernel) -> bool:
        if _benchmarking():
            return False  # an autotuner timing its configs: the program's own launch comes after
        name, file = self.want.get("name"), self.want.get("file")
        fn = getattr(getattr(getattr(kernel, "src", None), "fn", None), "fn", None)
        defined_in = getattr(getattr(fn, "__code__", None), "co_filename", None)
        if name and kernel.name != name:
            return False
        return not file or (defined_in is not None and os.path.realpath(defined_in) == os.path.realpath(file))


def install(log: str, limit: int, marks: MarkWatch | None = None) -> None:
    stop = os.environ.get(contract.ENV_STOP_AT_LAUNCH)
    if limit <= 0 and not stop:
        return
    recorder = Recorder(log, limit, marks)
    wrap_launch_metadata(StopAtLaunch(recorder, json.loads(stop)) if stop else recorder)
    ensure_launch_enter_hook()


def kernel_globals(function) -> dict:
    """The globals a kernel's body names, each as what a standalone script needs to make it again:
    a module to import, an object to import from a module, or a plain value (a constant)."""
    try:
        tree = ast.parse(textwrap.dedent(_source_of(function)))
    except (OSError, TypeError, SyntaxError):
        return {}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    namespace = getattr(function, "__globals__", {})
    found = {}
    for name in sorted(names):
        if name in namespace:
            found[name] = _global(namespace[name])
    return found


def _source_of(function) -> str:
    import inspect

    return inspect.getsource(function)


def _global(value) -> dict:
    if type(value).__name__ == "module":
        return {"module": value.__name__}
    inner = getattr(value, "fn", value)  # a JITFunction names its Python function
    module, name = getattr(inner, "__module__", None), getattr(inner, "__qualname__", None)
    if module and name and module != "__main__" and "<" not in name:
        return {"from": module, "name": name}
    if type(value).__name__ == "constexpr":
        value = getattr(value, "value", value)
        if isinstance(value, (bool, int, float, str, type(None))):
            return {"constexpr": repr(value)}
    if isinstance(value, (bool, int, float, str, type(None))):
        return {"value": repr(value)}
    return {"unknown": f"{type(value).__module__}.{type(value).__name__}"}
