"""Values on the simulated GPU, computed on the host when the program reads one (`trace --target`,
`--values host`, the default): each kind of read (tests/programs_values/) prints what the same
program prints run on the CPU without the simulated GPU; `generate()` gives the CPU's tokens; a
compiled training step prints its loss;
GradScaler skips the step whose gradients are not finite; a Triton kernel's output is computed by
Triton's interpreter; a program that reads nothing computes nothing on the host; a read over the
host-memory budget stops with its line."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import check, tritonscope, tritonscope_together

from tritonscope.capture_hook import tritonscope_contract as contract

pytest.importorskip("torch")

PROGRAMS = Path(__file__).parent / "programs_values"

TRITON_KERNEL = """import torch, triton, triton.language as tl
@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2 + i, mask=i < n)
x = torch.ones(100, device="cuda")
y = torch.empty_like(x)
double[(1,)](x, y, 100, BLOCK=128)
print("y", y[:4].tolist(), y.sum().item())
z = torch.empty_like(x)
double[(1,)](x_ptr=y, y_ptr=z, n=100, BLOCK=128)  # by name, as liger's launchers give every argument
print("z", z[:2].tolist())
"""

# What Triton's interpreter lacks, as Liger's kernels use it: a float argument (`eps.to(tl.float32)`),
# libdevice's rsqrt, tl.sum (a JIT function of triton.language, rewritten once and run again at the
# second launch); and a custom autograd Function whose backward (on torch's autograd thread) makes a
# device constant, as Liger's cross-entropy backward does.
INTERPRETER_GAPS = """import torch, triton, triton.language as tl
from triton.language.extra.libdevice import rsqrt
@triton.jit
def rms(x_ptr, y_ptr, eps, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    r = rsqrt(tl.sum(x * x, axis=0) / N + eps.to(tl.float32))
    tl.store(y_ptr + row * N + tl.arange(0, N), x * r)
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3
    @staticmethod
    def backward(ctx, g):
        return g * torch.tensor(3.0, device=g.device)
x = torch.arange(1.0, 65.0, device="cuda").reshape(2, 32)
for _ in range(2):
    y = torch.empty_like(x)
    rms[(2,)](x, y, 1e-6, N=32)
    print("rms", round(y[0, 1].item(), 5), round((x[0, 1] / x[0].pow(2).mean().add(1e-6).sqrt()).item(), 5))
w = torch.ones(4, device="cuda", requires_grad=True)
Scale.apply(w).sum().backward()
print("grad", w.grad.tolist())
"""

# A Triton kernel launched inside an operator: a torch.library.triton_op (wrap_triton) and a custom_op,
# called eagerly (its values read before torch.compile first imports Inductor) and in a compiled graph;
# and a DataLoader's pin-memory thread, where the program's (thread-local) mode is not active.
IN_OPERATORS = """import torch, triton, triton.language as tl
from torch.library import triton_op, wrap_triton
@triton.jit
def relu_sq(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.maximum(tl.load(x_ptr + i, mask=i < n), 0.0)
    tl.store(out_ptr + i, x * x, mask=i < n)
@triton_op("tsvalues::relu_sq", mutates_args={})
def as_triton_op(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(relu_sq)[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out
@torch.library.custom_op("tsvalues::relu_sq_custom", mutates_args=())
def as_custom_op(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    relu_sq[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out
@as_custom_op.register_fake
def _(x):
    return torch.empty_like(x)
x = torch.arange(-2.0, 4.0, device="cuda")
print("custom_op", as_custom_op(x).tolist())
print("triton_op", as_triton_op(x).tolist())
print("compiled", torch.compile(lambda t: as_triton_op(t) + as_custom_op(t))(x).tolist())
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.arange(8.0).view(4, 2)), batch_size=2, num_workers=2, pin_memory=True)
print("pinned", sum(b.cuda(non_blocking=True).sum().item() for (b,) in loader))
torch._dynamo.config.capture_dynamic_output_shape_ops = True
@torch.compile
def picked(t):
    return torch.nonzero(t > 1)
print("picked", picked(x).shape[0])
static_x = torch.zeros(4, device="cuda")
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_y = (static_x * 2 + 1).relu()
for step in (1.0, -3.0):
    static_x.copy_(torch.full((4,), step))
    graph.replay()
    print("replayed", static_y.tolist())
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record(); end.record()
print("elapsed", start.elapsed_time(end), start.elapsed_time(end))
"""

# Operators on device tensors and a compiled function, and no read of any value.
NO_READS = """import torch
x = torch.randn(64, 64).cuda()
f = torch.compile(lambda t: torch.relu(t @ t) + 1)
for _ in range(3):
    x = f(x) / 64
print("shape", tuple(x.shape))
"""


def _on_the_cpu(program: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DEV": "cpu"}
    return subprocess.run([sys.executable, program], capture_output=True, text=True, env=environment, timeout=600)


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """name -> (trace's process, capture): the programs traced on sm90, two at a time."""
    folder = tmp_path_factory.mktemp("values")
    (folder / "triton_kernel.py").write_text(TRITON_KERNEL)
    (folder / "no_reads.py").write_text(NO_READS)
    (folder / "interpreter_gaps.py").write_text(INTERPRETER_GAPS)
    (folder / "in_operators.py").write_text(IN_OPERATORS)
    programs = {
        "every_read": PROGRAMS / "every_read.py",
        "train_reads": PROGRAMS / "train_reads.py",
        "generate": PROGRAMS / "generate.py",
        "triton_kernel": folder / "triton_kernel.py",
        "no_reads": folder / "no_reads.py",
        "interpreter_gaps": folder / "interpreter_gaps.py",
        "in_operators": folder / "in_operators.py",
    }
    if importlib.util.find_spec("transformers") is None:  # the other releases' runs (tests/releases.py)
        del programs["generate"]
    runs = {}
    names = list(programs)
    for pair in (names[i : i + 2] for i in range(0, len(names), 2)):
        commands = [("trace", "-t", "sm90", "-o", folder / n, "--", sys.executable, programs[n]) for n in pair]
        runs.update(zip(pair, tritonscope_together(*commands), strict=True))
    return {name: (check(runs[name]), folder / name) for name in programs}


@pytest.mark.parametrize("program", ["every_read", "train_reads", "generate"])
def test_each_read_gets_the_value_the_program_has_on_the_cpu(traced, program):
    """item, float, int, an index, tolist, numpy, .cpu(), a copy into a host tensor, a branch,
    formatting, printing, in-place writes, nonzero, boolean indexing, masked_select, bincount, unique,
    isin().any(), allclose, equal, _check_tensor_all, `in`, copy.deepcopy (AveragedModel's), `.data`
    and `.data =` (vector_to_parameters), torch.save and torch.load, a generator on the device; a
    compiled step's loss printed each step,
    AdamW's updates, GradScaler's finite check and scale; generate()'s tokens, greedy and beam search,
    with the dynamic cache and with the static cache and a compiled forward."""
    if program == "generate":
        pytest.importorskip("transformers", reason="the README's test command installs transformers")
    result, _ = traced[program]
    on_the_cpu = _on_the_cpu(PROGRAMS / f"{program}.py")
    assert on_the_cpu.returncode == 0, on_the_cpu.stderr
    assert result.stdout.splitlines() == on_the_cpu.stdout.splitlines()
    assert len(result.stdout.splitlines()) >= 3


def test_each_read_is_logged_with_where_what_the_mode_and_the_value(traced):
    _, out = traced["every_read"]
    logged = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    program = str(PROGRAMS / "every_read.py")
    first = logged[0]
    assert first == {"where": f"{program}:20", "asked": ".item()", "mode": "host", "answered": 16.0}
    asked = {r["asked"].split(" (in ")[0] for r in logged}
    for kind in (".tolist()", "printing a tensor", "a Python branch on a tensor's value", "torch.allclose()"):
        assert kind in asked, asked
    shaped = [r for r in logged if r["asked"].startswith("aten.nonzero")]
    assert shaped and shaped[0]["answered"] == [[False, False, False, False], [False, False, True, True]] + [
        [True, True, True, True]
    ]
    assert shaped[0]["made"] == {"shape": [6, 2], "dtype": "int64"}  # the result the values shaped, not the mask
    assert all(r["mode"] == "host" for r in logged)


def test_torch_compile_compiles_the_programs_frames_only(traced):
    """A read in a compiled function is a graph break; the wrappers that answer it ran eagerly there and
    torch.compile compiled their frames as the program's (`torch.compile method (stop.py)`)."""
    _, out = traced["train_reads"]
    compiled = [json.loads(line) for line in (out / "torch_compiles.jsonl").read_text().splitlines()]
    assert {c["function"] for c in compiled} >= {"routed", "pick"}
    own = f"{os.sep}tritonscope{os.sep}"  # the package's folder (a release's venv is `tritonscope-releases-...`)
    assert not [c for c in compiled if own in c["file"]], compiled


def test_a_triton_kernels_output_is_computed_by_triton_s_interpreter(traced):
    result, out = traced["triton_kernel"]
    assert "y [2.0, 3.0, 4.0, 5.0] 5150.0" in result.stdout
    assert "z [4.0, 7.0]" in result.stdout  # y * 2 + i: the launch that names its arguments is computed too
    assert (out / "cache").is_dir() and "double" in result.stderr  # still compiled and captured


def test_what_the_interpreter_lacks_is_filled_in_and_a_backward_makes_device_constants(traced):
    result, _ = traced["interpreter_gaps"]
    rms = [line.split()[1:] for line in result.stdout.splitlines() if line.startswith("rms ")]
    assert len(rms) == 2 and all(mine == theirs for mine, theirs in rms), result.stdout + result.stderr
    assert "grad [3.0, 3.0, 3.0, 3.0]" in result.stdout


def test_a_kernel_launched_inside_an_operator_gets_its_values(traced):
    """The host ran the operator's body on its own tensors, and the kernel's launch there did nothing:
    the eager result was empty_like's memory, the compiled one zeros. And a libdevice import by the
    interpreted run was undone on triton.language.extra, so torch.compile's import of Inductor failed."""
    result, _ = traced["in_operators"]
    assert "custom_op [0.0, 0.0, 0.0, 1.0, 4.0, 9.0]" in result.stdout, result.stdout + result.stderr
    assert "triton_op [0.0, 0.0, 0.0, 1.0, 4.0, 9.0]" in result.stdout
    assert "compiled [0.0, 0.0, 0.0, 2.0, 8.0, 18.0]" in result.stdout
    assert "pinned 28.0" in result.stdout  # the pin-memory thread's pin_memory(): "Pinned memory requires CUDA"
    # a read in a compiled graph is the call's line, not the decorator's (where dynamo runs the graph)
    assert "picked 2" in result.stdout
    # a CUDA graph's replay computes from its static inputs as they are then (it kept the capture's values)
    assert "replayed [3.0, 3.0, 3.0, 3.0]" in result.stdout and "replayed [0.0, 0.0, 0.0, 0.0]" in result.stdout
    # an event's time is a stand-in, said once, not a figure to read as measured
    assert "elapsed 1.0 1.0" in result.stdout
    assert result.stderr.count("elapsed_time on the simulated GPU gives 1.0") == 1
    _, out = traced["in_operators"]
    logged = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    call = next(n for n, line in enumerate(IN_OPERATORS.splitlines(), 1) if line.startswith('print("picked"'))
    shaped = [r for r in logged if r["asked"].startswith("aten.nonzero in a compiled graph")]
    assert shaped and shaped[0]["where"].endswith(f"in_operators.py:{call}"), shaped


def test_a_program_that_reads_nothing_computes_nothing_on_the_host(traced):
    """The price of values for a program that never reads one: the operators are logged, none runs."""
    result, out = traced["no_reads"]
    assert "shape (64, 64)" in result.stdout
    summary = json.loads((out / "host_values.json").read_text())
    assert summary["recorded"] > 0 and summary["computed"] == 0, summary
    assert not (out / "reads.jsonl").exists()


def test_a_read_over_the_host_memory_budget_stops_with_its_line(tmp_path):
    program = PROGRAMS / "every_read.py"
    out = tmp_path / "out"
    budget = ("--host-memory", "64MiB")
    result = tritonscope("trace", "-t", "sm90", *budget, "-o", out, "--", sys.executable, program, expect=2)
    flat = " ".join(result.stderr.split())
    assert f"stopped at {program}:20: the program asked for .item(); computing it on the host takes more memory" in flat
    assert "than the budget of 0.1 GiB (--host-memory" in flat and "give a larger --host-memory" in flat
    assert result.stdout == "" and out.is_dir()


def test_a_kernel_too_slow_for_the_interpreter_stops_the_read_with_its_projection(tmp_path):
    """Triton's interpreter runs a program at a time: a launch projected past the limit is not run
    (contract.ENV_HOST_SECONDS, here 1 s), and the read says which kernel, its pace and the limit,
    instead of the trace seeming to hang."""
    program = tmp_path / "slow.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "@triton.jit\ndef twice(x_ptr, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) * 2)\n\n"
        "x = torch.ones(1 << 22, device='cuda')\ntwice[(x.numel() // 16,)](x, BLOCK=16)\n"
        "print(x.sum().item())\nprint('not reached')\n"
    )
    env = {contract.ENV_HOST_SECONDS: "1"}
    result = tritonscope(
        "trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program, env=env, expect=2
    )
    flat = " ".join(result.stderr.split())
    assert f"stopped at {program}:10: the program asked for .item()" in flat, flat
    assert "twice wrote it, and Triton's interpreter would take about" in flat
    assert "of 262,144 programs in" in flat and f"the limit is 1 s, {contract.ENV_HOST_SECONDS}" in flat
    assert "not reached" not in result.stdout and (tmp_path / "out" / "launches.jsonl").is_file()


def test_a_kernel_run_on_the_host_leaves_triton_language_as_it_found_it(tmp_path):
    """The interpreter patches triton.language for each JIT helper a kernel calls and never undoes
    it (here tl.core, seen by the helper's module): the program's next real compile must still work."""
    (tmp_path / "helpers.py").write_text(
        "import triton\nimport triton.language as tl\nfrom triton.language import core  # noqa: F401\n\n"
        "@triton.jit\ndef twice(x):\n    return x * 2\n"
    )
    program = tmp_path / "prog.py"
    program.write_text(
        "import torch, triton, triton.language as tl\nfrom helpers import twice\n\n"
        "@triton.jit\ndef first(x_ptr, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, twice(tl.load(x_ptr + o)))\n\n"
        "@triton.jit\ndef second(x_ptr, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + o, tl.load(x_ptr + o) + 1)\n\n"
        "x = torch.ones(64, device='cuda')\nfirst[(1,)](x, BLOCK=64)\nprint('sum', x.sum().item())\n"
        "second[(1,)](x, BLOCK=64)\nprint('sum', x.sum().item())\n"
    )
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program, cwd=tmp_path)
    assert "sum 128.0\nsum 192.0\n" in result.stdout
    assert "captured 2 compiled kernels" in result.stderr and "first, second" in result.stderr
