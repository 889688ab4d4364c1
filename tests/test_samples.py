"""The bundled samples: listed, loadable, and correct under Triton's CPU interpreter."""

from __future__ import annotations

import json

import pytest

from tritonscope.core.samples import all_samples, samples_dir

EXPECTED = {
    "vector_add": "add_kernel",
    "double": "double_kernel",
    "softmax": "softmax_kernel",
    "matmul": "matmul_kernel",
    "matmul_grouped": "matmul_kernel",
    "matmul_autotune": "matmul_kernel",
    "fused_attention": "attention_kernel",
    "layernorm": "layernorm_kernel",
    "add_op": "add_kernel",
    "matmul_tma": "matmul_tma_kernel",
    "fused_attention_tma": "attention_tma_kernel",
    "fused_attention_gluon": "attention_gluon_kernel",
    "row_sum": "row_sum_kernel",
    "row_sum_gluon": "row_sum_kernel",
}


def test_every_sample_is_listed_with_its_kernel(cli):
    doc = json.loads(cli("samples", "--json").stdout)
    assert doc["kind"] == "samples" and doc["schema"] == 2
    rows = doc["samples"]
    assert {r["name"]: r["kernels"] for r in rows} == {name: [k] for name, k in EXPECTED.items()}
    assert all(r["description"] and r["path"].endswith(f"{r['name']}.py") for r in rows)
    table = cli("samples").stdout
    assert "sample:fused_attention" in table and "attention_kernel" in table


def test_each_sample_is_described_by_a_whole_sentence_drawn_whole_at_80_columns():
    """A description is its docstring's first sentence however many lines it spans, and the view folds
    it under the name at the width: none is cut mid-sentence (issue 55)."""
    from tritonscope.render.registry import render
    from tritonscope.results.catalog import SamplesResult

    samples = all_samples()
    for s in samples:
        assert s.description.endswith(".") and "  " not in s.description and "\n" not in s.description, s.name
    said = {s.name: s.description for s in samples}
    assert said["fused_attention_gluon"] == (
        "Fused attention for Hopper in Gluon, warp-specialized as FlashAttention-3 is: one warp issues the TMA "
        "copies, two warp groups compute, and the two take turns on the tensor cores."
    )
    text = render(SamplesResult(tuple(samples)), "terminal", width=80)
    assert max(map(len, text.splitlines())) <= 80
    blocks = text.split("\nsample:")[1:]
    assert [block.split()[0] for block in blocks] == [s.name for s in samples]
    for s, block in zip(samples, blocks, strict=True):
        assert " ".join(block.split()[2:]).startswith(s.description), s.name


def test_samples_dir_holds_the_files():
    assert sorted(s.name for s in all_samples()) == sorted(EXPECTED)
    assert (samples_dir() / "vector_add.py").is_file()


# Sizes that are not multiples of the block sizes, so every masked edge runs.
INTERPRETER_CASES = [
    ("vector_add", {"size": 98433}),
    ("vector_add", {"size": 1000}),
    ("double", {"size": 77}),
    ("softmax", {"size": 13}),
    ("matmul", {"size": 130}),
    ("matmul_grouped", {"size": 200}),
    ("matmul_autotune", {"size": 67}),
    ("fused_attention", {"size": 100, "batch": 1, "heads": 2}),
    ("fused_attention", {"size": 200, "batch": 1, "heads": 1, "head_dim": 32}),
    ("layernorm", {"size": 1000, "rows": 5}),
    ("add_op", {"size": 1000}),
    # Host TensorDescriptors under the interpreter: tiles past the edges arrive as zeros.
    ("matmul_tma", {"size": 200}),
    ("fused_attention_tma", {"size": 200, "batch": 1, "heads": 2}),
    ("fused_attention_tma", {"size": 150, "batch": 1, "heads": 2, "head_dim": 128}),
    ("row_sum", {"size": 77}),  # row_sum_gluon, fused_attention_gluon: Triton's interpreter runs no Gluon kernel
]


# Triton's interpreter patches triton.language in place, which clashes with real compiles done
# earlier in the same process: run every case in one fresh process instead.
_RUN_CASES = """
import importlib.util, json, os, sys
os.environ["TRITON_INTERPRET"] = "1"  # read when @triton.jit runs, i.e. at import
import torch
results = {}
for name, sizes in json.loads(sys.argv[1]):
    torch.manual_seed(0)
    spec = importlib.util.spec_from_file_location(f"interpreted_{name}", sys.argv[2] + f"/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    size = sizes.pop("size")
    inputs = module.make_inputs(size, device="cpu", **sizes)
    if name == "matmul_autotune":  # the autotuner needs a GPU to time configs: run each config alone
        outputs = [module.launch(*inputs, config=i) for i in range(len(module.matmul_kernel.configs))]
    else:
        outputs = [module.launch(*inputs)]
    expected = module.reference(*inputs).float()
    errors = [((o.float() - expected).abs().max() / expected.abs().max()).item() for o in outputs]
    shapes = [list(o.shape) == list(expected.shape) for o in outputs]
    fp16 = inputs[0].dtype == torch.float16
    results[f"{name}-{size}"] = {"errors": errors, "shapes_match": all(shapes), "fp16": fp16}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def interpreter_results():
    import subprocess
    import sys

    pytest.importorskip("torch")
    cases = json.dumps([[name, dict(sizes)] for name, sizes in INTERPRETER_CASES])
    run = subprocess.run([sys.executable, "-c", _RUN_CASES, cases, str(samples_dir())], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("name", "sizes"), INTERPRETER_CASES, ids=[f"{n}-{s['size']}" for n, s in INTERPRETER_CASES])
def test_sample_matches_its_torch_reference(name, sizes, interpreter_results):
    result = interpreter_results[f"{name}-{sizes['size']}"]
    tolerance = 2e-2 if result["fp16"] else 1e-5
    assert result["shapes_match"]
    assert result["errors"] and max(result["errors"]) < tolerance, f"{name}: relative errors {result['errors']}"


def test_the_gluon_attention_refuses_a_length_its_blocks_do_not_divide():
    import importlib.util

    torch = pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("gluon_attention", samples_dir() / "fused_attention_gluon.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    q, k, v = module.make_inputs(200, device="cpu", batch=1, heads=1)
    assert q.dtype == torch.float16 and q.shape == (1, 1, 200, 128)
    with pytest.raises(ValueError, match="N_CTX=200 must be a multiple of BLOCK_M=128 and BLOCK_N=128"):
        module.launch(q, k, v)
