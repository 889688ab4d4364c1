"""The code part of the standalone script `tritonscope reproduce` writes (app/reproduce.py adds the data).

Kept as text: the script runs without tritonscope, and this package imports Triton only in
triton_api/. It compiles the kernel with exactly the captured specialization
(triton.compile(ASTSource(fn, signature, constants, attrs)) with the captured options), makes
arguments like the captured ones, launches with the captured grid, and compares the hash of
the compiled assembly (PTX, or AMDGCN) with the one the capture holds.
"""

CODE = r'''
import ast
import hashlib
import importlib
import importlib.util
import linecache
import os
import sys

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.jit import JITFunction


def _imported():
    if IMPORT.get("module"):
        if IMPORT.get("root") and IMPORT["root"] not in sys.path:
            sys.path.insert(0, IMPORT["root"])
        module = importlib.import_module(IMPORT["module"])
        found = getattr(module, "__file__", None)
        if "file" not in IMPORT or (found and os.path.realpath(found) == os.path.realpath(IMPORT["file"])):
            return module
        # another file of that name was imported first, or is first on sys.path: the captured one, by path
    spec = importlib.util.spec_from_file_location("reproduced_kernel_module", IMPORT["file"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _global(how):
    if "module" in how:
        return importlib.import_module(how["module"])
    if "from" in how:
        value = importlib.import_module(how["from"])
        for part in how["name"].split("."):
            value = getattr(value, part)
        return value
    if "constexpr" in how:
        return triton.language.constexpr(ast.literal_eval(how["constexpr"]))
    return ast.literal_eval(how["value"])


def _from_source():
    """The embedded source, compiled under its original file name and line numbers (the PTX's
    line table names them), with the globals its body uses."""
    namespace = {"__name__": "reproduced_kernel_module", "triton": triton, "tl": triton.language}
    for name, how in GLOBALS.items():
        if "unknown" not in how:
            namespace[name] = _global(how)
    text = "\n" * (FIRST_LINE - 1) + SOURCE
    linecache.cache[SOURCE_FILE] = (len(text), None, text.splitlines(True), SOURCE_FILE)
    exec(compile(text, SOURCE_FILE, "exec"), namespace)
    kernel = namespace[KERNEL]
    return kernel if isinstance(kernel, JITFunction) else triton.jit(kernel)


def load_kernel():
    kernel = getattr(_imported(), KERNEL) if IMPORT else _from_source()
    while not isinstance(kernel, JITFunction):  # an autotuner or heuristics wrapper
        kernel = kernel.fn
    return kernel


def _tensor(d):
    dtype = getattr(torch, d["dtype"].removeprefix("torch."))
    shape, stride, offset = d["shape"], d["stride"], d.get("storage_offset", 0)
    size = offset + (1 + sum((n - 1) * s for n, s in zip(shape, stride)) if all(shape) else 0)
    if dtype.is_floating_point or dtype.is_complex:
        base = torch.randn(size, device="cuda", dtype=torch.float32).to(dtype)
    elif dtype == torch.bool:
        base = torch.randint(0, 2, (size,), device="cuda").bool()
    elif "min" in d:  # an integer tensor whose values were recorded: values in the same range
        base = torch.randint(d["min"], d["max"] + 1, (size,), device="cuda", dtype=torch.int64).to(dtype)
    else:  # an integer tensor too large to read at capture: zeros, in range for any index use
        base = torch.zeros(size, device="cuda", dtype=dtype)
    return torch.as_strided(base, shape, stride, offset)


def value(d):
    kind = d["kind"]
    if kind == "tensor":
        return _tensor(d)
    if kind == "descriptor":
        from triton.tools.tensor_descriptor import TensorDescriptor

        return TensorDescriptor(_tensor(d["base"]), d["shape"], d["strides"], d["block_shape"])
    if kind == "tuple":
        return tuple(value(item) for item in d["items"])
    if kind == "float":
        return float(d["value"])
    if kind == "tl_dtype":
        return triton.language.dtype(d["value"])
    if kind == "torch_dtype":
        return getattr(torch, d["value"].removeprefix("torch."))
    if kind == "none":
        return None
    if kind == "other":
        sys.exit(f"the capture could not describe an argument of type {d['type']} ({d['repr']})")
    return d["value"]


def _options():
    def plain(v):
        return tuple(plain(x) for x in v) if isinstance(v, list) else v

    return {k: plain(v) for k, v in OPTIONS.items()}


def compile_kernel():
    """(the compiled kernel, the sha256 of its assembly); needs no GPU."""
    constants = {path: value(d) for path, d in CONSTANTS.items()}
    kernel = load_kernel()
    source_class = ASTSource
    if getattr(kernel, "is_gluon", lambda: False)():  # @gluon.jit: its own source sets warps before the body
        from triton.experimental.gluon._runtime import GluonASTSource as source_class
    source = source_class(kernel, SIGNATURE, constants, ATTRS)
    # Compiled afresh: Triton's cache key leaves out the kernel file's path, which the PTX names
    # (.file), and the settings the traced program compiled with (its ptxas), which change the PTX.
    settings = {k: v for k, v in ENVIRONMENT.items() if not k.endswith("_PATH") or os.path.exists(v)}
    for name in ENVIRONMENT.keys() - settings.keys():
        print(f"note: the capture compiled with {name}={ENVIRONMENT[name]}, not on this machine: the PTX may differ")
    settings["TRITON_ALWAYS_COMPILE"] = "1"
    saved = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    try:
        compiled = triton.compile(source, target=GPUTarget(*TARGET), options=_options())
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
    assembly = compiled.asm[ASSEMBLY]
    return compiled, hashlib.sha256(assembly.encode() if isinstance(assembly, str) else assembly).hexdigest()


def prepare():
    """(compiled kernel, arguments, does the assembly hash match the captured one, its hash)."""
    compiled, digest = compile_kernel()
    torch.manual_seed(SEED)
    args = [value(d) for d in ARGS]
    return compiled, args, digest == ASSEMBLY_SHA256, digest


def main():
    if not torch.cuda.is_available():
        sys.exit("this reproducer launches the kernel and needs a GPU; torch sees none")
    compiled, args, matched, digest = prepare()
    if matched:
        print(f"{ASSEMBLY} hash matches the captured one: {digest}")
    else:
        print(f"{ASSEMBLY} hash DIFFERS: {digest}, captured {ASSEMBLY_SHA256}")
        print("  (another Triton release, or a kernel source that changed since the capture)")
    same_key = "the same as" if compiled.hash == CAPTURED_HASH else "not the same as (another installation)"
    print(f"Triton's cache key for this compile is {same_key} the captured one")
    launch = compiled[GRID]
    launch(*args)
    torch.cuda.synchronize()
    if "--once" in sys.argv[1:]:  # one launch, e.g. under a profiler (tritonscope profile DIR/:KERNEL)
        return 0 if matched else 1
    ms = triton.testing.do_bench(lambda: launch(*args), return_mode="median")
    print(f"{KERNEL} grid {GRID[0]}x{GRID[1]}x{GRID[2]}: {ms:.4f} ms (median, triton.testing.do_bench)")
    return 0 if matched else 1


if __name__ == "__main__":
    sys.exit(main())
'''
