"""What the simulated GPU of `trace --target` answers where torch or a program asks the device:
host tensors stay real, value reads answered with --on-read, memory figures, attention and
convolution kernels picked as torch picks them on the target, CUDA graphs, and the program's own
streams and children. Each runs a real program in a child process."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from cli_process import tritonscope

torch = pytest.importorskip("torch")

READS = """import torch
x = torch.ones(4, device="cuda") * 3
host = torch.empty(4)
host.copy_(x)
print("host", host.tolist())
print("item", x.sum().item())
if x.sum() > 0:
    print("branch taken")
print("done")
"""


def _program(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "program.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("given", "value"), [("zero", 0), ("2.5", 2.5)])
def test_on_read_answers_each_read_with_the_value_and_logs_it(tmp_path, given, value):
    program = _program(tmp_path, READS)
    out = tmp_path / "out"
    result = tritonscope("trace", "-t", "sm90", "--on-read", given, "-o", out, "--", sys.executable, program)
    assert f"host {[float(value)] * 4}" in result.stdout and f"item {float(value)}" in result.stdout
    assert ("branch taken" in result.stdout) == bool(value) and "done" in result.stdout
    reads = [json.loads(line) for line in (out / "reads.jsonl").read_text().splitlines()]
    assert [(r["where"], r["answered"]) for r in reads] == [(f"{program}:{n}", value) for n in (4, 6, 7)]
    assert reads[0]["asked"].startswith("a copy of a device tensor into a host tensor")
    flat = " ".join(result.stderr.split())
    assert f"answered 3 value read(s) with {'0' if value == 0 else given} (--on-read), the first at {program}:4" in flat


def test_without_on_read_the_first_read_stops_and_says_how_to_go_on(tmp_path):
    program = _program(tmp_path, READS)
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program, expect=2)
    assert f"stopped at {program}:4: the program asked for a copy of a device tensor" in result.stderr
    assert "--on-read zero" in result.stderr and "host" not in result.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--on-read", "zero"], "--on-read zero: on a real GPU a read gets the real value"),
        (["-t", "sm90", "--on-read", "value"], "--on-read expects stop, zero or a number such as 1; got 'value'"),
        (["-t", "sm90", "--on-read", "nan"], "--on-read expects stop, zero or a finite number"),
    ],
)
def test_on_read_is_refused_without_a_target_or_a_number(tmp_path, args, said):
    out = tmp_path / "out"
    result = tritonscope("trace", *args, "-o", out, "--", sys.executable, "-c", "1", expect=2)
    assert said in result.stderr and not out.exists()


def test_host_tensors_keep_their_values_and_device_ones_are_fake(tmp_path):
    """timm spaces its stochastic depth with torch.linspace(...).item() on the host: a real value."""
    program = _program(
        tmp_path,
        "import torch\nrates = [x.item() for x in torch.linspace(0, 0.1, 3)]\n"
        "y = torch.tensor(rates).to('cuda')\nprint(rates, type(y).__name__, y.device, tuple(y.shape))\n",
    )
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    assert "[0.0, 0.05000000074505806, 0.10000000149011612] FakeTensor cuda:0 (3,)" in result.stdout


def test_memory_figures_are_the_targets(tmp_path):
    program = _program(
        tmp_path,
        "import torch\nprint(torch.cuda.mem_get_info(), torch.cuda.memory.mem_get_info(0), "
        "torch.cuda.memory_reserved(), torch.cuda.get_device_properties(0).total_memory)\n",
    )
    for target, name in (("sm90", "H100"), ("sm80", "A100")):
        result = tritonscope("trace", "-t", target, "-o", tmp_path / target, "--", sys.executable, program)
        total = json.loads((tmp_path / target / "simulated.json").read_text())["total_memory"]
        assert f"({total}, {total}) ({total}, {total}) 0 {total}" in result.stdout, name


def test_reduce_overhead_compiles_with_cuda_graphs_skipped(tmp_path):
    program = _program(
        tmp_path,
        "import torch\nf = torch.compile(lambda x: torch.sin(x) * 2, mode='reduce-overhead')\n"
        "x = torch.randn(1024, device='cuda')\nfor _ in range(3):\n    y = f(x)\nprint('done', tuple(y.shape))\n",
    )
    out = tmp_path / "out"
    result = tritonscope("trace", "-t", "sm90", "-o", out, "--", sys.executable, program)
    assert "done (1024,)" in result.stdout
    names = {json.loads(line)["name"] for line in (out / "kernels.jsonl").read_text().splitlines()}
    assert any(n.startswith("triton_poi_fused_mul_sin") for n in names), names


def test_attention_and_convolution_pick_the_targets_kernels(tmp_path):
    """On an H100 with torch's cuDNN: fp32 with a mask goes to memory-efficient attention, bf16 to
    cuDNN attention; an A100 prefers flash attention where it can; a channels-last convolution's
    output is channels-last (cuDNN's layout)."""
    program = _program(
        tmp_path,
        "import torch\nq = torch.randn(4, 4, 32, 32, device='cuda')\n"
        "m = torch.ones(4, 1, 32, 32, dtype=torch.bool, device='cuda')\n"
        "h = q.to(torch.bfloat16)\n"
        "print('sdpa', torch._fused_sdp_choice(q, q, q, m), torch._fused_sdp_choice(h, h, h))\n"
        "x = torch.randn(2, 64, 8, 8, device='cuda').to(memory_format=torch.channels_last)\n"
        "c = torch.nn.Conv2d(64, 64, 3, padding=1).cuda().to(memory_format=torch.channels_last)\n"
        "print('conv', c(x).stride())\n",
    )
    h100 = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "h", "--", sys.executable, program).stdout
    a100 = tritonscope("trace", "-t", "sm80", "-o", tmp_path / "a", "--", sys.executable, program).stdout
    assert "sdpa 2 3" in h100 and "sdpa 2 1" in a100
    assert "conv (4096, 1, 512, 64)" in h100


def test_the_programs_stdout_stays_its_own(tmp_path):
    program = _program(tmp_path, "import torch\nprint('result', torch.zeros(2, device='cuda').shape)\n")
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    assert "result torch.Size([2])" in result.stdout and "result" not in result.stderr
    assert result.stderr.count("captured 0 compiled kernel(s)") == 1 and "captured" not in result.stdout


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


def test_a_read_in_an_installed_library_names_the_programs_line_and_the_librarys(tmp_path):
    """timm spaced its stochastic depth with `.item()`: the stop names the program's line that called
    into the library, then the library's own line."""
    library = tmp_path / "site-packages" / "mylib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("def read(x):\n    return x.sum().item()\n")
    program = _program(
        tmp_path,
        f"import sys, torch\nsys.path.insert(0, {str(library.parent)!r})\nimport mylib\n"
        "mylib.read(torch.ones(3, device='cuda'))\n",
    )
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program, expect=2)
    flat = " ".join(result.stderr.split())
    assert f"stopped at {program}:4: the program asked for .item() (in {library / '__init__.py'}:2)" in flat
