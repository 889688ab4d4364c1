"""`trace --target`: real programs run against a simulated GPU in a child process, on this CPU, and
their captures held against captures made with `trace` on a real H100 (tests/data/trace_h100).

The fixtures were made with torch 2.11.0 and Triton 3.6.0. A plain Triton program must give the
same compiles, specialization, PTX and launches under any torch. A torch.compile program is held
whole when torch is the fixture's release; under another torch release, Inductor writes other
kernel source (other names, other loads), so what is held is what does not depend on torch's
release: every compile whose kernel body is the same text must have the same specialization and
PTX, the user kernel behind a triton_op called from torch.compile among them; every Inductor
kernel carries the H100's device properties; the numbers of kernels agree.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import triton
from capture_fidelity import compare, compiles
from cli_process import tritonscope, tritonscope_together

torch = pytest.importorskip("torch")  # the smoke runs of other releases install no torch

HERE = Path(__file__).parent
FIXTURES = HERE / "data" / "trace_h100"
PROGRAMS = HERE / "kernels" / "fidelity"
VERSIONS = json.loads((FIXTURES / "versions.json").read_text())
SAME_TRITON = triton.__version__ == VERSIONS["triton"]
needs_fixture_triton = pytest.mark.skipif(
    not SAME_TRITON, reason=f"the H100 fixtures were compiled by Triton {VERSIONS['triton']}"
)


def _trace(out: Path, program: Path, *extra: str, expect: int = 0):
    return tritonscope("trace", "--target", "sm90", "-o", out, *extra, "--", sys.executable, program, expect=expect)


@pytest.fixture(scope="module")
def triton_capture(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim") / "triton_program"
    result = _trace(out, PROGRAMS / "triton_program.py")
    # Triton 3.9's nanobind bindings report what is alive at exit, which the quick exit keeps alive
    assert "leaked" not in result.stderr, result.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def compile_capture(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim") / "compile_program"
    _trace(out, PROGRAMS / "compile_program.py")
    return out


@needs_fixture_triton
def test_a_plain_triton_program_compiles_and_launches_as_on_the_h100(triton_capture):
    figures = compare(FIXTURES / "triton_program", triton_capture)
    assert figures["gpu_compiles"] == figures["simulated_compiles"] == figures["matched"] == 12, figures
    assert figures["identical_ptx"] == 12, figures["ptx_differs"]
    assert not figures["launches_only_gpu"] and not figures["launches_only_simulated"], figures
    assert figures["launches_compared"] >= 8 and figures["autotuned"] == ["matmul_kernel"]


def test_specialization_follows_the_fake_pointers_and_values(triton_capture):
    records = [json.loads(line) for line in (triton_capture / "kernels.jsonl").read_text().splitlines()]
    adds = [r for r in records if r["name"] == "add_kernel"]
    # x (aligned, n % 16 == 0, stride 1 -> constant), x[1:] (misaligned, n = 8191), stride 2
    assert {r["attrs"]["(0,)"] == [] for r in adds} == {True, False}
    assert any(r["constants"].get("(4,)") == "1" for r in adds)  # the stride equal to 1 became a constant
    matmuls = [r for r in records if r["name"] == "matmul_kernel"]
    assert len(matmuls) == 4  # two configs, each with a bias and with None
    assert sum(r["constants"].get("(3,)") == "None" for r in matmuls) == 2
    assert any(
        r["signature"].get("in_desc", "").startswith("tensordesc") for r in records if r["name"] == "tma_copy_kernel"
    )
    assert "double_kernel" in {r["name"] for r in records}  # a triton_op called eagerly


def test_cache_list_says_the_capture_is_simulated_and_which_config_ran(triton_capture):
    listing = tritonscope("cache", "list", triton_capture, env={"COLUMNS": "80"}).stdout
    assert all(len(line) <= 80 for line in listing.splitlines())
    flat = " ".join(listing.split())  # lines wrapped at 80 columns
    assert "captured against a simulated NVIDIA H100 80GB HBM3 (sm90)" in flat
    assert "autotuned matmul_kernel (triton.autotune): 2 candidates compiled, launched BM: 64" in flat
    assert "how chosen: first config" in flat
    document = json.loads(tritonscope("cache", "list", triton_capture, "--json").stdout)
    assert document["simulated_device"]["multiprocessor_count"] == 132
    assert document["autotune"][0]["chosen"].startswith("BM: 64, BN: 64")
    shown = tritonscope("dump", f"{triton_capture}/:softmax_kernel", "--stage", "ptx").stdout
    assert ".target sm_90" in shown


def _body(source: str) -> str:
    """A kernel's text from its def on: Inductor's decorator spells its own release's settings."""
    return source[source.index("def ") :] if "def " in source else source


def test_a_torch_compile_program_compiles_as_on_the_h100(compile_capture):
    if not SAME_TRITON:
        pytest.skip(f"the H100 fixtures were compiled by Triton {VERSIONS['triton']}")
    fixture = FIXTURES / "compile_program"
    if torch.__version__.split("+")[0] == VERSIONS["torch"].split("+")[0]:
        figures = compare(fixture, compile_capture)
        assert figures["matched"] == figures["identical_ptx"] == figures["gpu_compiles"], figures
        assert not figures["launches_only_gpu"] and not figures["launches_only_simulated"], figures
        return
    gpu, simulated = compiles(fixture), compiles(compile_capture)
    assert sum(map(len, gpu.values())) == sum(map(len, simulated.values()))  # 7 compiles, 5 kernels
    by_body = {(_body(r["source"]), k[1:]): r["ptx"] for k, rs in simulated.items() for r in rs}
    same_text = [(k, r) for k, rs in gpu.items() for r in rs if (_body(r["source"]), k[1:]) in by_body]
    assert "square_kernel" in {k[0] for k, _ in same_text}  # the user's kernel, from a triton_op
    for key, record in same_text:
        assert by_body[(_body(record["source"]), key[1:])] == record["ptx"], key[0]
    device = re.compile(r"'device': DeviceProperties\([^)]*\)")
    gpu_devices = {device.search(r["source"]).group() for rs in gpu.values() for r in rs}
    assert gpu_devices == {device.search(r["source"]).group() for rs in simulated.values() for r in rs}


def test_a_captured_inductor_kernel_names_its_file_in_the_capture_not_the_staging_folder(compile_capture):
    """torch.compile wrote its kernels in the capture's hidden staging folder (`.NAME.new.PID.xxxx`),
    which their locations name; dump's header named that folder, gone once the capture is published."""
    name = json.loads(tritonscope("cache", "list", compile_capture, "--json").stdout)["kernels"][0]["name"]
    header = tritonscope("dump", f"{compile_capture}/:{name}", "--stage", "ttir").stdout  # 240 columns: one line
    shown = re.search(r"kernel +\S+ +\((/\S*\.py):\d+\)", header)
    assert shown and ".new." not in shown.group(1), header[:1500]
    assert Path(shown.group(1)).is_file() and Path(shown.group(1)).is_relative_to(compile_capture.resolve())
    # reproduce embeds its source, compiled under the staging name its PTX names, and says so: it said
    # the file in the capture, which is there, was not
    said = tritonscope("reproduce", f"{compile_capture}/:{name}", "-o", "-").stderr
    assert f"the capture (its PTX's line information names it): {shown.group(1)}" in said


def test_torch_compile_autotuning_is_answered_and_every_candidate_compiled(compile_capture):
    choices = [json.loads(line) for line in (compile_capture / "autotune.jsonl").read_text().splitlines()]
    assert choices and all(c["by"] == "torch.compile" for c in choices)
    names = [json.loads(line)["name"] for line in (compile_capture / "kernels.jsonl").read_text().splitlines()]
    for choice in choices:
        assert names.count(choice["kernel"]) == len(choice["candidates"]) >= 2
        assert choice["chosen"] == choice["candidates"][0]


STOPS = {
    "x.sum().item()": ".item()",
    "print(x)": "printing a tensor",
    "x.tolist()": ".tolist()",
    "if x.sum() > 0:\n    pass": "a Python branch on a tensor's value",
}


@pytest.mark.parametrize("statement", list(STOPS))
def test_a_value_read_stops_the_program_with_one_line_and_keeps_the_capture(tmp_path, statement):
    program = tmp_path / "reads.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)\n\n"
        "x = torch.zeros(64, device='cuda')\nk[(1,)](x, 64, BLOCK=64)\n" + statement + "\nprint('not reached')\n"
    )
    if statement != "x.sum().item()":
        program.write_text(program.read_text().replace("k[(1,)](x, 64, BLOCK=64)\n", ""))
    result = _trace(tmp_path / "out", program, "--values", "stop", expect=2)
    line = 10 if statement == "x.sum().item()" else 9
    assert f"stopped at {program}:{line}: the program asked for {STOPS[statement]}" in result.stderr
    assert "not reached" not in result.stdout
    if statement == "x.sum().item()":
        assert "captured 1 compiled kernel " in result.stderr
        assert (tmp_path / "out" / "launches.jsonl").read_text().count('"name": "k"') == 1


def test_a_host_number_the_program_gave_is_answered_a_gpu_one_stops(tmp_path):
    """Torch's fake mode keeps the value of a one-element host tensor made from a Python number, as
    a compiled optimizer's `lr=torch.tensor(0.01)`, through the operators on it: that is answered.
    A GPU tensor's is not (a Triton kernel may have written it unseen). The numbers are the ones
    torch prints on a real run."""
    program = tmp_path / "numbers.py"
    program.write_text(
        "import torch\nlr = torch.tensor(0.01)\nlr.mul_(2)\nprint('lr', lr.item(), float(lr * 3))\n"
        "g = torch.tensor(1.0, device='cuda')\nprint(g.item())\nprint('not reached')\n"
    )
    result = _trace(tmp_path / "out", program, "--values", "stop", expect=2)
    assert "lr 0.019999999552965164 0.05999999865889549" in result.stdout + result.stderr
    assert f"stopped at {program}:6: the program asked for .item();" in result.stderr
    assert "not reached" not in result.stdout


def test_a_read_in_code_torch_compile_wrote_names_the_program_line_that_ran_it(tmp_path):
    """Inductor's generated modules live in its cache folder (the capture's): a read there is told
    at the program's line that called into them, and says where it was asked."""
    program = tmp_path / "generated.py"
    program.write_text(
        "import os, sys, torch\nfolder = os.environ['TORCHINDUCTOR_CACHE_DIR']\nos.makedirs(folder, exist_ok=True)\n"
        "open(os.path.join(folder, 'made.py'), 'w').write('def call(x):\\n    return x.sum().item()\\n')\n"
        "sys.path.insert(0, folder)\nimport made\nmade.call(torch.ones(4, device='cuda'))\nprint('not reached')\n"
    )
    result = _trace(tmp_path / "out", program, "--values", "stop", expect=2)
    asked = ".item() (in the code torch.compile generated for it)"
    assert f"stopped at {program}:7: the program asked for {asked}" in result.stderr


@pytest.mark.parametrize(
    ("target", "name", "units", "arch"),
    [("sm80", "NVIDIA A100-SXM4-80GB", 108, 80), ("sm120", "NVIDIA GeForce RTX 5090", 170, 120)],
)
def test_other_targets_compile_for_their_gpu(tmp_path, target, name, units, arch):
    program = tmp_path / "props.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n"
        "p = torch.cuda.get_device_properties(0)\n"
        "print(p.name, p.multi_processor_count, torch.cuda.get_device_capability())\n"
        "@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) * 2)\n"
        "k[(1,)](torch.empty(128, device='cuda'), BLOCK=128)\n"
    )
    out = tmp_path / "out"
    result = tritonscope("trace", "--target", target, "-o", out, "--", sys.executable, program)
    assert f"{name} {units} ({arch // 10}, {arch % 10})" in result.stdout + result.stderr
    (metadata,) = [p for p in (out / "cache").glob("*/k.json")]
    assert json.loads(metadata.read_text())["target"]["arch"] == arch


def test_an_unknown_target_is_refused_before_the_program_runs(tmp_path):
    result = tritonscope("trace", "--target", "sm42", "-o", tmp_path / "o", "--", sys.executable, "-c", "1", expect=2)
    assert "unknown target 'sm42'" in result.stderr and not (tmp_path / "o").exists()


def test_a_python_without_torch_is_told_what_to_install(tmp_path):
    """The simulated GPU is made of torch's fake tensors: a program's Python without torch (a venv of
    its own) is refused with the install that brings torch's CPU build, not run without a GPU."""
    import venv

    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False)
    python = bare / "bin" / "python"
    program = tmp_path / "hello.py"
    program.write_text("print('ran')\n")
    result = tritonscope("trace", "--target", "sm90", "-o", tmp_path / "o", "--", python, program, expect=2)
    said = result.stdout + result.stderr
    assert f"trace --target needs torch in the program's Python ({python})" in said, said
    assert f"{python} -m pip install torch --index-url https://download.pytorch.org/whl/cpu" in said
    assert "sitecustomize" not in said and "ran" not in result.stdout and not (tmp_path / "o").exists()


def test_nothing_outside_the_capture_hook_imports_the_simulated_device():
    """Besides the traced program's hook, only app/walk/simulated_import.py reaches it, inside the function
    that imports a kernel file asking for a GPU where none is visible (never at module level)."""
    package = HERE.parent / "tritonscope"
    simulated = package / "triton_api" / "simulated"
    importer = package / "app" / "walk" / "simulated_import.py"
    for path in package.rglob("*.py"):
        if simulated in path.parents or path == importer:
            continue
        text = path.read_text()
        assert "import simulated" not in text and "simulated import" not in text and ".simulated." not in text, path
    tree = ast.parse(importer.read_text())
    top_level = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert top_level and not any("simulated" in line for line in top_level), top_level


def test_cuda_graphs_and_descriptors_an_autotuner_reshapes_trace_to_the_end(tmp_path):
    """09-persistent-matmul's and Gluon 07-persistence's shapes: an autotuner's pre_hook sets the
    descriptors' block shape anew per config (each launch is computed on the host with the shape
    it was launched with), then triton.testing.do_bench_cudagraph and a graph of the program's own
    (the capture runs its body once and says it is capturing; a replay runs nothing), then a last
    kernel: traced to its end, every check passing on the host's values."""
    program = HERE / "kernels" / "tutorial_shaped" / "graphs_and_tuned_descriptors.py"
    result = _trace(tmp_path / "out", program)
    assert "tuned copy ok" in result.stdout and "scaled ok" in result.stdout, result.stdout + result.stderr[-2000:]
    assert "graph captured while capturing: True benchmark ms > 0: True" in result.stdout
    names = [json.loads(line)["name"] for line in (tmp_path / "out" / "kernels.jsonl").read_text().splitlines()]
    assert sorted(set(names)) == ["after_graphs_kernel", "scale_kernel", "tuned_copy_kernel"]
    assert names.count("tuned_copy_kernel") == 2  # both configs compiled, as the autotuner on a GPU does


def test_a_kernel_file_with_a_non_ascii_name_compiles_or_ptxas_is_explained(tmp_path):
    """Triton 3.6 writes the kernel file's name into the PTX's `.loc` comments as it is, and its ptxas
    refuses non-ASCII characters (a GPU run fails so too): trace says why after Triton's page of PTX.
    Triton 3.9 escapes them, and the kernel is captured."""
    program = tmp_path / "prog 程序.py"
    program.write_text((PROGRAMS / "triton_program.py").read_text())
    escapes = tuple(int(p) for p in triton.__version__.split(".")[:2]) >= (3, 9)
    command = ["trace", "--target", "sm90", "-o", str(tmp_path / "cap"), "--", sys.executable, str(program)]
    result = subprocess.run([sys.executable, "-m", "tritonscope", *command], capture_output=True, text=True)
    if escapes:
        assert result.returncode == 0 and "(the program compiled none)" not in result.stderr, result.stderr[-2000:]
    else:  # the program's own traceback, then the reason as its last lines' first
        assert result.returncode == 1, result.stderr[-2000:]
        said = "tritonscope: ptxas refused the name of the file 'prog 程序.py'"
        assert said in result.stderr, result.stderr[-2000:]
        assert "Rename the file with ASCII characters" in result.stderr


def test_aotinductor_under_the_simulated_gpu_says_what_to_do_instead(tmp_path):
    """aoti_compile_and_package compiles under a fake mode of its own, which the simulated device's
    tensors cannot enter: torch's 30-line AssertionError (naming tritonscope's ProgramMode) was all."""
    program = tmp_path / "aoti.py"
    program.write_text(
        "import torch\nfrom torch._inductor import aoti_compile_and_package\n"
        "m = torch.nn.Linear(16, 16).cuda().eval()\nx = torch.randn(4, 16, device='cuda')\n"
        "ep = torch.export.export(m, (x,))\n"
        f"aoti_compile_and_package(ep, package_path={str(tmp_path / 'm.pt2')!r})\n"
    )
    (result,) = tritonscope_together(("trace", "--target", "sm90", "-o", tmp_path / "o", "--", sys.executable, program))
    assert result.returncode == 1  # the program's own exit, its traceback torch's
    assert "tritonscope: torch compiled under a fake-tensor mode of its own (AOTInductor's" in result.stderr
    assert "compile the exported program with torch.compile(ep.module()) instead" in result.stderr


def test_an_operator_torch_runs_for_real_in_compiled_code_stops_at_the_programs_line(tmp_path):
    """Inductor's call of torch._scaled_mm(..., out=buf) has no fake kernel: torch ran it for real on the
    device. The stop named the generated file in the capture's temporary folder (gone by then) and
    advised --values zero, which stops the same way."""
    program = tmp_path / "fp8.py"
    program.write_text(
        "import torch\n"
        "a8 = torch.ones(64, 128).to(torch.float8_e4m3fn).cuda()\n"
        "b8 = torch.ones(64, 128).to(torch.float8_e4m3fn).cuda().t()\n"
        "scale = torch.ones((), device='cuda')\n"
        "mm = lambda a, b: torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)\n"
        "f = torch.compile(mm)\n"
        "out = f(a8, b8)\n"
        "print(out.sum().item())\n"
    )
    result = tritonscope("trace", "--target", "sm90", "-o", tmp_path / "o", "--", sys.executable, program, expect=2)
    said = " ".join(result.stderr.split())
    assert f"stopped at {program}:" in said and "run for real on the device by torch itself" in said, said
    assert "(in the code torch.compile generated for it)" in said and "--values zero" not in said
    assert "a GPU run does not stop here" in said
