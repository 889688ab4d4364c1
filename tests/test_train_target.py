"""`trace --target` of a training step: backward passes (eager, through a custom autograd.Function
calling Triton kernels, and torch.compile's AOTAutograd backward) and optimizer steps run on the
simulated GPU of a CPU-only torch, in a child process on this CPU, and the capture is held against
one made with `trace` on a real H100 (tests/data/trace_h100/train_program, torch 2.11.0, Triton
3.6.0). Under the fixture's torch release the two captures must agree whole; under another,
Inductor writes other kernel source, so what is held is what does not depend on torch's release:
the user's kernels (compiles, PTX and launches), and every kernel whose body is the same text."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import triton
from capture_fidelity import compare, compiles, launches
from cli_process import tritonscope

torch = pytest.importorskip("torch")  # the smoke runs of other releases install no torch
if torch.version.cuda is not None or torch.version.hip is not None:
    pytest.skip("a backward pass is simulated with a CPU-only build of torch", allow_module_level=True)

HERE = Path(__file__).parent
FIXTURE = HERE / "data" / "trace_h100" / "train_program"
PROGRAM = HERE / "kernels" / "fidelity" / "train_program.py"
VERSIONS = json.loads((HERE / "data" / "trace_h100" / "versions.json").read_text())
USER_KERNELS = {"silu_forward_kernel", "silu_backward_kernel"}


@pytest.fixture(scope="module")
def capture(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim") / "train_program"
    result = tritonscope("trace", "--target", "sm90", "-o", out, "--", sys.executable, PROGRAM)
    assert "fidelity train program: done" in result.stdout + result.stderr  # the program's own output
    return out


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _shapes(record: dict) -> list:
    return [a.get("shape", a.get("value")) for a in record["args"]]


def test_the_triton_backward_kernel_launches_as_the_program_decides(capture):
    backward = [r for r in _records(capture / "launches.jsonl") if r["name"] == "silu_backward_kernel"]
    # eager: 48 x 768 activations, BLOCK 512 -> 72 programs; inside torch.compile: 32 x 768 -> 48
    assert sorted((r["grid"], _shapes(r)) for r in backward) == [
        ([48, 1, 1], [[32, 768], [32, 768], [32, 768], 24576, 512]),
        ([72, 1, 1], [[48, 768], [48, 768], [48, 768], 36864, 512]),
    ]
    eager = next(r for r in backward if r["grid"][0] == 72)
    assert eager["call_site"]["function"] == "backward" and eager["call_site"]["file"] == str(PROGRAM)


def test_inductor_backward_kernels_are_compiled_and_launched(capture):
    names = {r["name"] for r in _records(capture / "kernels.jsonl")}
    backward = {n for n in names if n.startswith("triton_") and "backward" in n}
    assert {"gelu_gelu_backward", "native_layer_norm_backward"} <= {
        part for n in backward for part in ("gelu_gelu_backward", "native_layer_norm_backward") if part in n
    }, backward
    launched = {r["name"] for r in _records(capture / "launches.jsonl")}
    assert backward <= launched


def test_cache_list_shows_the_backward_kernels(capture):
    listing = tritonscope("cache", "list", capture, env={"COLUMNS": "80"}).stdout
    # every line fits, but for a path longer than a line, which is kept whole (to be copied)
    assert all(
        len(line) <= 80 or any("/" in word and len(word) > 70 for word in line.split()) for line in listing.splitlines()
    )
    assert "silu_backward_kernel" in listing
    assert "launches 1x grid 72x1x1: f32[48,768] f32[48,768] f32[48,768]" in listing
    assert any("_backward_" in line and line.startswith("triton_") for line in listing.splitlines())


def _body(source: str) -> str:
    """A kernel's text from its def on: Inductor's decorator spells its own release's settings."""
    return source[source.index("def ") :] if "def " in source else source


def _same_text_ptx(gpu: dict, simulated: dict) -> list[tuple[str, bool]]:
    """(name, same PTX) for each GPU compile whose kernel body and specialization the capture has."""
    by_text: dict = {}
    for key, records in simulated.items():
        for record in records:
            by_text.setdefault((_body(record["source"]), key[1:]), set()).add(record["ptx"])
    found = []
    for key, records in gpu.items():
        for record in records:
            text = (_body(record["source"]), key[1:])
            if text in by_text:
                found.append((key[0], record["ptx"] in by_text[text]))
    return found


@pytest.mark.skipif(triton.__version__ != VERSIONS["triton"], reason="the H100 fixture's Triton release")
def test_a_training_step_compiles_and_launches_as_on_the_h100(capture):
    gpu, simulated = compiles(FIXTURE), compiles(capture)
    assert sum(map(len, gpu.values())) == sum(map(len, simulated.values())) == 27
    if torch.__version__.split("+")[0] == VERSIONS["torch"].split("+")[0]:
        figures = compare(FIXTURE, capture)
        assert figures["matched"] == figures["identical_ptx"] == len(gpu), figures
        assert not figures["launches_only_gpu"] and not figures["launches_only_simulated"], figures
        return
    same_text = _same_text_ptx(gpu, simulated)
    assert USER_KERNELS <= {name for name, _ in same_text}
    assert all(same for _, same in same_text), [name for name, same in same_text if not same]
    others = {r["name"] for rs in gpu.values() for r in rs} - USER_KERNELS
    assert launches(FIXTURE, others) == launches(capture, others)  # the user's kernels' launches


OPTIMIZERS = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
x = torch.randn(32, 64, device="cuda")
for name, flags in [("SGD", {"foreach": False}), ("SGD", {"foreach": True, "momentum": 0.9}),
                    ("SGD", {"fused": True}), ("AdamW", {"foreach": False}), ("AdamW", {"foreach": True}),
                    ("AdamW", {"fused": True}), ("Adagrad", {"fused": True})]:
    optimizer = getattr(torch.optim, name)(model.parameters(), lr=0.1, **flags)
    model(x).pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()
    print("stepped", name, sorted(flags))
print("shapes", [tuple(p.shape) for p in model.parameters()], model[0].weight.grad)
with torch.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x).float().pow(2).mean()
loss.backward()
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
(grad,) = torch.autograd.grad(model(x.requires_grad_()).pow(2).sum(), x, create_graph=True)
grad.sum().backward()
print("autocast, clipping, double backward:", tuple(norm.shape), tuple(x.grad.shape))
"""


def _said(tmp_path: Path, name: str, text: str) -> str:
    """What the program NAME (TEXT) and `trace --target sm90` of it wrote; the capture is tmp_path/out."""
    program = tmp_path / name
    program.write_text(text)
    result = tritonscope("trace", "--target", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    return result.stdout + result.stderr


def test_optimizer_steps_run_with_foreach_and_fused_off_or_on(tmp_path):
    said = _said(tmp_path, "optimizers.py", OPTIMIZERS)
    assert said.count("stepped ") == 7, said
    assert "stepped AdamW ['fused']" in said and "stepped SGD ['fused']" in said
    assert "shapes [(128, 64), (128,), (10, 128), (10,)] None" in said  # zero_grad set the grads to None
    assert "autocast, clipping, double backward: () (32, 64)" in said


def test_a_grad_scaler_step_stops_where_it_reads_whether_the_gradients_were_finite(tmp_path):
    program = tmp_path / "scaler.py"
    program.write_text(
        "import torch\nmodel = torch.nn.Linear(64, 10).cuda()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nscaler = torch.amp.GradScaler('cuda')\n"
        "with torch.autocast('cuda', dtype=torch.float16):\n"
        "    loss = model(torch.randn(32, 64, device='cuda')).float().sum()\n"
        "scaler.scale(loss).backward()\nscaler.step(optimizer)\nprint('not reached')\n"
    )
    result = tritonscope(
        "trace", "--target", "sm90", "--values", "stop", "-o", tmp_path / "out", "--", sys.executable, program, expect=2
    )
    assert f"stopped at {program}:8: the program asked for .item() (in " in result.stderr
    assert "torch/amp/grad_scaler.py:" in result.stderr and "not reached" not in result.stdout


def test_a_tensor_printed_through_generated_code_stops_at_the_program_line(tmp_path):
    """A dataclass's __repr__ is code made with exec ("<string>"), called from the standard library:
    the line named is the program's (torch's own dataclasses, formatted while torch.compile builds a
    training graph, are passed by the same rule)."""
    program = tmp_path / "holder.py"
    program.write_text(
        "import dataclasses, torch\n\n@dataclasses.dataclass\nclass Holder:\n    t: torch.Tensor\n\n"
        "holder = Holder(torch.zeros(4, device='cuda'))\ntext = repr(holder)\nprint('not reached')\n"
    )
    result = tritonscope(
        "trace", "--target", "sm90", "--values", "stop", "-o", tmp_path / "out", "--", sys.executable, program, expect=2
    )
    assert f"stopped at {program}:8: the program asked for printing a tensor" in result.stderr
    assert "not reached" not in result.stdout


COMPILED_STEP = {"triton_for_fused_0", "triton_for_fused_1"}  # Adam's step, as Inductor names it


def _folded_constants(capture: Path, name: str) -> set[str]:
    """The floating-point constants of a kernel's source: those of Adam's step that Inductor folded
    (1 - beta1 written as 0.09999999999999998, say) were computed, not typed."""
    (record,) = [r for rs in compiles(capture).values() for r in rs if r["name"] == name]
    return set(re.findall(r"tl\.full\(\[1\], ([-+\d.e]*[.e][-+\d.e]*),", record["source"]))


def test_a_compiled_optimizer_step_compiles_and_launches_as_on_the_h100(capture):
    """torch.compile of Adam's `step()`: torch._dynamo initialises its state and Inductor folds its
    constants by computing them, which the simulated GPU does on the host; the kernels are
    launched as on the H100, with the same folded constants."""
    others = {r["name"] for rs in compiles(FIXTURE).values() for r in rs} - COMPILED_STEP
    assert launches(capture, others) == launches(FIXTURE, others)
    assert {key[0] for key in launches(capture, others)} == COMPILED_STEP
    folded = _folded_constants(FIXTURE, "triton_for_fused_1")
    assert {"0.09999999999999998", "0.0010000000000000009"} <= folded
    assert _folded_constants(capture, "triton_for_fused_1") == folded


def test_torch_compile_of_optimizer_step_runs_quietly(tmp_path):
    """`torch.compile(optimizer.step)` called at module level, AdamW: its kernels are captured, the
    program goes on, and torch's C++ warning about fake tensors' data pointers (its guards read
    them) is not written to the program's stderr."""
    said = _said(
        tmp_path,
        "compiled_step.py",
        "import torch\nmodel = torch.nn.Linear(64, 10).cuda()\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "model(torch.randn(32, 64, device='cuda')).sum().backward()\n"
        "step = torch.compile(optimizer.step)\nstep()\nprint('stepped', len(optimizer.state))\n",
    )
    assert "stepped 2" in said
    assert "data pointer of FakeTensor" not in said
    names = {r["name"] for r in _records(tmp_path / "out" / "launches.jsonl")}
    assert names and all(name.startswith("triton_for_fused_") for name in names), names


COMPILED_OPTIMIZERS = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
x = torch.randn(32, 64, device="cuda")
for name, flags in [("SGD", {"momentum": 0.9}), ("Adam", {"amsgrad": True}), ("AdamW", {"lr": torch.tensor(0.01)}),
                    ("Adagrad", {}), ("RMSprop", {"momentum": 0.5}), ("Adam", {"capturable": True}),
                    ("NAdam", {}), ("Adamax", {})]:
    optimizer = getattr(torch.optim, name)(model.parameters(), **flags)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
    model(x).pow(2).mean().backward()
    torch._dynamo.reset()

    @torch.compile
    def step():
        optimizer.step()

    step()
    step()
    scheduler.step()
    optimizer.zero_grad()
    print("stepped", name, sorted(flags), flush=True)
"""


def test_compiled_optimizer_steps_of_every_kind_run_with_a_learning_rate_schedule(tmp_path):
    """Eight optimizers' steps compiled and taken twice, with a StepLR schedule; AdamW's learning
    rate a host tensor (as compiled optimizers take one to change it without recompiling), which
    Inductor's generated code reads back: torch's fake mode knows its value."""
    said = _said(tmp_path, "compiled_optimizers.py", COMPILED_OPTIMIZERS)
    assert said.count("stepped ") == 8, said
    assert "stepped AdamW ['lr']" in said and "stepped Adam ['capturable']" in said
    compiled = _records(tmp_path / "out" / "kernels.jsonl")
    assert len(compiled) >= 8 and all(r["name"].startswith("triton_") for r in compiled)
