"""What the simulated GPU of `trace --target` answers where torch or a program asks the device:
host tensors stay real, value reads answered with --values (on the host, or a stand-in), memory figures, attention and
convolution kernels picked as torch picks them on the target, CUDA graphs, and the program's own
streams and children. Each runs a real program in a child process; one trace serves every assert on
it (a module's fixtures run them, several at once), so the file costs six traces, not one a test."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from cli_process import check, tritonscope, tritonscope_together

torch = pytest.importorskip("torch")

READS = """import sys, torch
sys.path.insert(0, sys.argv[1])
x = torch.ones(4, device="cuda") * 3
host = torch.empty(4)
host.copy_(x)
print("host", host.tolist())
print("item", x.sum().item())
if x.sum() > 0:
    print("branch taken")
import mylib
mylib.read(x)
print("done")
"""
READ_LINES = (5, 7, 8, 11)  # the copy into a host tensor, .item(), the branch, the library's .item()

# One program asks the simulated GPU what a model asks it: a host tensor's values (timm spaces its
# stochastic depth with torch.linspace(...).item() on the host), memory figures, the attention
# kernel torch picks (fp32 with a mask, then bf16), a channels-last convolution's layout, its own
# streams, events and RNG state, and with the argument `compile`, a function compiled with
# mode="reduce-overhead" (CUDA graphs).
PROBE = """import sys, torch
rates = [x.item() for x in torch.linspace(0, 0.1, 3)]
y = torch.tensor(rates).to('cuda')
print('host', rates, type(y).__name__, y.device, tuple(y.shape))
print('memory', torch.cuda.mem_get_info(), torch.cuda.memory.mem_get_info(0), torch.cuda.memory_reserved(),
      torch.cuda.get_device_properties(0).total_memory)
# a training script's summary at its end, or its peak read by name: KeyError, the program stopped
print('stats', torch.cuda.memory_stats()['allocated_bytes.all.peak'], 'fake tensors' in torch.cuda.memory_summary())
q = torch.randn(4, 4, 32, 32, device='cuda')
m = torch.ones(4, 1, 32, 32, dtype=torch.bool, device='cuda')
h = q.to(torch.bfloat16)
print('sdpa', torch._fused_sdp_choice(q, q, q, m), torch._fused_sdp_choice(h, h, h))
x = torch.randn(2, 64, 8, 8, device='cuda').to(memory_format=torch.channels_last)
c = torch.nn.Conv2d(64, 64, 3, padding=1).cuda().to(memory_format=torch.channels_last)
print('conv', c(x).stride())
side, done = torch.cuda.Stream(), torch.cuda.Event(enable_timing=True)
with torch.cuda.stream(side):
    z = torch.ones(8, device='cuda') + 1
done.record(side)
torch.cuda.current_stream().wait_event(done)
torch.cuda.synchronize()
torch.cuda.manual_seed(0)
state = torch.cuda.get_rng_state()
torch.cuda.set_rng_state(state)
print('streams', tuple(z.shape), done.query(), tuple(state.shape), state.dtype, state.device)
if sys.argv[1:] == ['compile']:
    f = torch.compile(lambda x: torch.sin(x) * 2, mode='reduce-overhead')
    x = torch.randn(1024, device='cuda')
    for _ in range(3):
        out = f(x)
    print('reduce-overhead', tuple(out.shape))
    # a host tensor moved into a graph of CUDA graphs: Inductor keeps it in pinned host memory, which it
    # allocates past the dispatcher (`Pinned memory requires CUDA`, with no GPU)
    moved = torch.compile(lambda x, pos: x * (pos + 1).to(x.device, non_blocking=True), mode='reduce-overhead')
    for _ in range(2):
        shifted = moved(torch.ones(4, device='cuda'), torch.tensor([3]))
    print('pinned', shifted.tolist())
    folded = torch.compile(lambda x: torch.where(x > 0, torch.tensor(0.0, device=x.device), x) + 1)
    print('lifted', folded(torch.tensor([-2.0, 3.0], device='cuda')).tolist())

    def kept(x):  # a view of the lifted constant is used too: the folding leaves both
        c = torch.tensor(2.0, device=x.device)
        return x * c, x + c.view(1)

    print('kept', [t.tolist() for t in torch.compile(kept)(torch.tensor([1.0, 5.0], device='cuda'))])
"""


def _program(folder: Path, text: str, name: str = "program.py") -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    """An installed library (under a site-packages folder) whose function reads a device value."""
    package = tmp_path_factory.mktemp("lib") / "site-packages" / "mylib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def read(x):\n    return x.sum().item()\n")
    return package


@pytest.fixture(scope="module")
def reads(tmp_path_factory, library):
    """READS traced on sm90 with --values zero, 2.5 (its alias --on-read), stop and host (the default):
    answer -> (program, process, capture)."""
    folder = tmp_path_factory.mktemp("reads")
    program = _program(folder, READS)
    answers = {"zero": ["--values", "zero"], "2.5": ["--on-read", "2.5"], "stop": ["--values", "stop"], "host": []}
    commands = [
        ("trace", "-t", "sm90", *flags, "-o", folder / given, "--", sys.executable, program, library.parent)
        for given, flags in answers.items()
    ]
    done = tritonscope_together(*commands)
    return {given: (program, run, folder / given) for given, run in zip(answers, done, strict=True)}


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """PROBE traced on sm90 (with its compile) and sm80: target -> (process, capture)."""
    folder = tmp_path_factory.mktemp("probe")
    program = _program(folder, PROBE)
    commands = [
        ("trace", "-t", "sm90", "-o", folder / "sm90", "--", sys.executable, program, "compile"),
        ("trace", "-t", "sm80", "-o", folder / "sm80", "--", sys.executable, program),
    ]
    done = tritonscope_together(*commands)
    return {target: (check(run), folder / target) for target, run in zip(("sm90", "sm80"), done, strict=True)}


@pytest.mark.parametrize(("given", "value"), [("zero", 0), ("2.5", 2.5)])
def test_on_read_answers_each_read_with_the_value_and_logs_it(reads, given, value):
    program, result, out = reads[given]
    check(result)
    assert f"host {[float(value)] * 4}" in result.stdout and f"item {float(value)}" in result.stdout
    assert ("branch taken" in result.stdout) == bool(value) and "done" in result.stdout
    logged = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    host = [value] * 4
    expected = [host, float(value), bool(value), float(value)]  # the copy, .item(), the branch, mylib's .item()
    assert [(r["where"], r["answered"], r["mode"]) for r in logged] == [
        (f"{program}:{n}", shown, value) for n, shown in zip(READ_LINES, expected, strict=True)
    ]
    assert logged[0]["asked"].startswith("a copy of a device tensor into a host tensor")
    flat = " ".join(result.stderr.split())
    assert f"answered 4 value reads with {'0' if value == 0 else given} (--values), the first at {program}:5" in flat


def test_by_default_each_read_gets_the_value_computed_on_the_host(reads):
    """x = ones * 3: the copy gives 3s, the sum 12, the branch is taken, the library reads 12."""
    program, result, out = reads["host"]
    check(result)
    assert "host [3.0, 3.0, 3.0, 3.0]" in result.stdout and "item 12.0" in result.stdout
    assert "branch taken" in result.stdout and "done" in result.stdout
    logged = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    assert [(r["answered"], r["mode"]) for r in logged] == [([3.0] * 4, "host"), (12.0, "host"), (True, "host")] + [
        (12.0, "host")
    ]
    assert "answered 4 value reads on the host (--values)" in " ".join(result.stderr.split())


def test_with_values_stop_the_first_read_stops_and_says_how_to_go_on(reads):
    program, result, _ = reads["stop"]
    check(result, expect=2)
    assert f"stopped at {program}:5: the program asked for a copy of a device tensor" in result.stderr
    flat = " ".join(result.stderr.split())
    assert "--values host (the default) computes it on the host" in flat and "host" not in result.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--on-read", "zero"], "--values zero: on a real GPU a read gets the real value"),
        (["--host-memory", "8GiB"], "--host-memory 8GiB: on a real GPU values take no host memory"),
        (["-t", "sm90", "--values", "value"], "--values expects host, stop, zero or a number such as 1; got 'value'"),
        (["-t", "sm90", "--on-read", "nan"], "--values expects host, stop, zero or a finite number"),
        (["-t", "sm90", "--host-memory", "lots"], "--host-memory expects a size such as 8GiB, 512MiB or 16G"),
    ],
)
def test_on_read_is_refused_without_a_target_or_a_number(tmp_path, args, said):
    out = tmp_path / "out"
    result = tritonscope("trace", *args, "-o", out, "--", sys.executable, "-c", "1", expect=2)
    assert said in result.stderr and not out.exists()


def test_host_tensors_keep_their_values_and_device_ones_are_fake(probes):
    """timm spaces its stochastic depth with torch.linspace(...).item() on the host: a real value."""
    result, _ = probes["sm90"]
    assert "host [0.0, 0.05000000074505806, 0.10000000149011612] FakeTensor cuda:0 (3,)" in result.stdout


def test_memory_figures_are_the_targets(probes):
    for target, name in (("sm90", "H100"), ("sm80", "A100")):
        result, out = probes[target]
        total = json.loads((out / "simulated.json").read_text())["total_memory"]
        assert f"memory ({total}, {total}) ({total}, {total}) 0 {total}" in result.stdout, name
        assert "stats 0 True" in result.stdout, name
        # the program's own read of a figure is said once to be a stand-in (a peak of 0 read as measured: h19b)
        assert result.stderr.count("torch.cuda.mem_get_info() on the simulated GPU: fake tensors take no") == 1
    assert probes["sm90"][1] != probes["sm80"][1]


def test_reduce_overhead_compiles_with_cuda_graphs_skipped(probes):
    result, out = probes["sm90"]
    assert "reduce-overhead (1024,)" in result.stdout and "pinned [4.0, 4.0, 4.0, 4.0]" in result.stdout
    names = {json.loads(line)["name"] for line in (out / "kernels.jsonl").read_text().splitlines()}
    assert any(n.startswith("triton_poi_fused_mul_sin") for n in names), names


def test_a_constant_built_on_the_device_is_lifted_there_as_on_a_gpu(probes):
    """torch.tensor(0.0, device=x.device) in a compiled function: a GPU lifts it on the device, and
    Inductor folds it and names the kernel after the lift; the simulated GPU, which builds it on the
    host, gives that name too (not `_to_copy`, the move), with the value folded into the kernel. A
    constant the folding leaves (a view of it is used too) is moved to the device as before."""
    result, out = probes["sm90"]
    assert "lifted [-1.0, 1.0]" in result.stdout and "kept [[2.0, 10.0], [3.0, 7.0]]" in result.stdout, result.stdout
    kernels = {k["name"]: k for k in map(json.loads, (out / "kernels.jsonl").read_text().splitlines())}
    folded = kernels["triton_poi_fused_add_gt_lift_fresh_where_0"]
    assert [t for t in folded["signature"].values() if t.startswith("*")] == ["*fp32", "*fp32"], folded
    assert not any("_to_copy_add_gt" in name for name in kernels), sorted(kernels)
    assert any(name.startswith("triton_poi_fused__to_copy_add_lift_fresh_view") for name in kernels), kernels


def test_attention_and_convolution_pick_the_targets_kernels(probes):
    """On an H100 with torch's cuDNN: fp32 with a mask goes to memory-efficient attention, bf16 to
    cuDNN attention; an A100 prefers flash attention where it can; a channels-last convolution's
    output is channels-last (cuDNN's layout)."""
    h100, a100 = probes["sm90"][0].stdout, probes["sm80"][0].stdout
    assert "sdpa 2 3" in h100 and "sdpa 2 1" in a100
    assert "conv (4096, 1, 512, 64)" in h100


def test_streams_events_and_rng_state_answer_as_on_a_gpu(probes):
    """Work on a side stream, an event recorded and waited on, a seed and the generator's state (a
    host byte tensor, as torch's CUDA generator gives) go through with nothing to order."""
    result, _ = probes["sm90"]
    assert "streams (8,) True (16,) torch.uint8 cpu" in result.stdout, result.stdout


def test_the_programs_stdout_stays_its_own(probes):
    result, _ = probes["sm90"]
    assert "host [" in result.stdout and "host [" not in result.stderr
    said = re.findall(r"captured (\d+) (?:compiled kernels?|compiles of \d+ kernels?) ", result.stderr)
    assert len(said) == 1 and int(said[0]) > 0 and "captured" not in result.stdout, result.stderr


def test_a_child_the_program_leaves_running_ends_with_the_trace(tmp_path):
    marker = tmp_path / "child.pid"
    program = _program(
        tmp_path,
        f"import os, time\npid = os.fork()\nif pid == 0:\n    open({str(marker)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(120)\n    os._exit(0)\nwhile not os.path.exists("
        f"{str(marker)!r}):\n    time.sleep(0.01)\nprint('parent done')\n",
    )
    tritonscope("trace", "-o", tmp_path / "out", "--", sys.executable, program)
    child = int(marker.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
        time.sleep(0.05)  # a zombie is reaped by init shortly after
    stat = Path(f"/proc/{child}/stat")
    alive = stat.exists() and stat.read_text().rpartition(")")[2].split()[0] != "Z"  # not a zombie
    assert not alive, f"the program's child {child} outlived the trace"


def test_a_read_in_an_installed_library_names_the_programs_line_and_the_librarys(reads, library):
    """timm spaced its stochastic depth with `.item()`: a read inside an installed library is
    placed at the program's line that called into it, then the library's own line."""
    program, result, out = reads["zero"]
    last = json.loads((out / "reads.jsonl").read_text().splitlines()[-1])
    assert last["where"] == f"{program}:11", last
    assert f"(in {library / '__init__.py'}:2)" in last["asked"], last
