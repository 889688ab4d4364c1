"""The bundled samples: listed, loadable, and correct under Triton's CPU interpreter."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tritonscope.samples import all_samples, samples_dir

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
}


def test_every_sample_is_listed_with_its_kernel(cli):
    rows = json.loads(cli("samples", "--json").stdout)
    assert {r["name"]: r["kernels"] for r in rows} == {name: [k] for name, k in EXPECTED.items()}
    assert all(r["description"] and r["path"].endswith(f"{r['name']}.py") for r in rows)
    table = cli("samples").stdout
    assert "sample:fused_attention" in table and "attention_kernel" in table


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
]


def _load_interpreted(name, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when @triton.jit runs, i.e. at import
    spec = importlib.util.spec_from_file_location(f"interpreted_{name}", samples_dir() / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "sizes"), INTERPRETER_CASES, ids=lambda c: str(c))
def test_sample_matches_its_torch_reference(name, sizes, monkeypatch):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    module = _load_interpreted(name, monkeypatch)
    size = sizes.pop("size")
    inputs = module.make_inputs(size, device="cpu", **sizes)
    launches = [module.launch(*inputs)] if name != "matmul_autotune" else [
        # The autotuner needs a GPU to time configs: run each config by itself.
        module.launch(*inputs, config=i) for i in range(len(module.matmul_kernel.configs))
    ]
    expected = module.reference(*inputs).float()
    tolerance = 2e-2 if inputs[0].dtype == torch.float16 else 1e-5
    for output in launches:
        assert output.shape == expected.shape
        error = (output.float() - expected).abs().max() / expected.abs().max()
        assert error < tolerance, f"{name}: max relative error {error:.2e}"
