"""Loading kernel files: kernels found, parameters described, kinds inferred from the body."""

from __future__ import annotations

import ast
import json
import signal
import subprocess
import sys
import textwrap

from conftest import KERNELS

from tritonscope.analysis.infer import infer_kinds
from tritonscope.app.walk.load import load_file
from tritonscope.core.model import ParamKind


def _kinds(spec):
    return {p.name: (p.kind, p.type, p.type_from) for p in spec.params}


def test_finds_plain_autotuned_heuristic_kernels_and_helpers():
    loaded = load_file(str(KERNELS / "mixed.py"))
    specs = {k.spec.name: k.spec for k in loaded.kernels}
    assert list(specs) == ["load_scaled", "scale_kernel", "tuned_kernel", "row_kernel"]  # in file order
    assert specs["load_scaled"].is_helper and not specs["scale_kernel"].is_helper
    assert specs["scale_kernel"].line == 13  # the `def` line, not a decorator's
    tuned = specs["tuned_kernel"]
    assert [c.constexprs for c in tuned.autotune_configs] == [{"BLOCK": 128}, {"BLOCK": 512}]
    assert [(c.num_warps, c.num_stages) for c in tuned.autotune_configs] == [(4, 2), (8, 3)]
    assert tuned.first_line == 21 and tuned.source.startswith("@triton.autotune(")
    assert specs["row_kernel"].heuristics == ("BLOCK",)


def test_parameter_kinds_come_from_annotations_defaults_and_the_body():
    specs = {k.spec.name: k.spec for k in load_file(str(KERNELS / "mixed.py")).kernels}
    kinds = _kinds(specs["scale_kernel"])
    # in_ptr reaches tl.load only through a local variable and the helper's `src`.
    assert kinds["in_ptr"] == (ParamKind.POINTER, "*fp32", "body")
    assert kinds["out_ptr"] == (ParamKind.POINTER, "*fp32", "body")
    assert kinds["row_stride"] == (ParamKind.INT, "i32", "assumed")
    assert kinds["scale"] == (ParamKind.FLOAT, "fp32", "body")  # scale * 2.0
    assert kinds["BLOCK"][0] == ParamKind.CONSTEXPR
    assert specs["scale_kernel"].param("DTYPE").default == "fp16"
    assert _kinds(specs["row_kernel"])["eps"] == (ParamKind.FLOAT, "fp32", "annotation")


def _infer(source: str):
    fn = ast.parse(textwrap.dedent(source)).body[0]
    return infer_kinds({fn.name: fn})[fn.name]


def test_inference_takes_the_base_of_an_address_not_its_offsets():
    found = _infer(
        """
        def k(base_ptr, start, stride, out_ptr, scale):
            ptrs = base_ptr + start + tl.arange(0, 16) * stride
            x = tl.load(ptrs)
            tl.atomic_add(out_ptr, tl.exp(x - scale))
        """
    )
    assert found.pointers == {"base_ptr", "out_ptr"}
    assert found.floats == {"scale"}  # arithmetic inside a math function is floating point


def test_a_pointer_whose_values_index_other_loads_or_bound_a_loop_holds_integers():
    """vLLM's sorted_token_ids and SGLang's kv_indptr were *fp32 (--dtype): their first compile failed on
    a pointer plus a float, and with --dtype bf16 too. What is loaded through them is an address's
    offset, or a loop's or cdiv's bound; what is loaded and only computed with stays the data's."""
    found = _infer(
        """
        def k(a_ptr, ids_ptr, indptr, out_ptr, x_ptr):
            rows = tl.load(ids_ptr + tl.arange(0, 16))
            a = tl.load(a_ptr + rows[:, None] * 64 + tl.arange(0, 64)[None, :])
            n = tl.load(indptr + 1) - tl.load(indptr)
            for i in range(0, tl.cdiv(n, 16)):
                a += tl.load(x_ptr + i)
            tl.store(out_ptr + tl.arange(0, 16), tl.sum(a, axis=1))
        """
    )
    assert found.indices == {"ids_ptr", "indptr"} and found.pointers >= {"a_ptr", "x_ptr", "out_ptr"}


def test_indices_loaded_in_a_tuple_assignment_are_indices_too():
    """fla's varlen kernels: `bos, eos = tl.load(cu_seqlens + i_n), tl.load(cu_seqlens + i_n + 1)`, then
    `s + bos * H`: cu_seqlens was *fp32 (--dtype), chunk_indices beside it *i32 (indices)."""
    found = _infer(
        """
        def k(s, o, cu_seqlens, i_n):
            bos, eos = tl.load(cu_seqlens + i_n).to(tl.int64), tl.load(cu_seqlens + i_n + 1).to(tl.int64)
            x = tl.load(s + bos * 16 + tl.arange(0, 16))
            tl.store(o + tl.arange(0, 16), x * (eos - bos))
        """
    )
    assert found.indices == {"cu_seqlens"} and found.pointers >= {"s", "o", "cu_seqlens"}


def test_an_index_added_to_a_pointer_parameter_in_place_is_an_index():
    """mamba's selective_state_update: `state_ptr += state_batch_idx * stride` (under an `if`), the index
    loaded through `state_batch_indices_ptr`: it was *fp32 (inferred from an if's branch), and the
    compile then failed on the float offset (h19a)."""
    found = _infer(
        """
        def k(state_ptr, idx_ptr, out_ptr, stride, HAS: tl.constexpr):
            if HAS:
                idx_ptr += tl.program_id(0)
                idx = tl.load(idx_ptr)
                state_ptr += idx * stride
            tl.store(out_ptr + tl.arange(0, 16), tl.load(state_ptr + tl.arange(0, 16)))
        """
    )
    assert found.indices == {"idx_ptr"} and found.pointers >= {"state_ptr", "idx_ptr", "out_ptr"}


def test_a_pointer_loaded_through_a_helper_from_another_module_is_a_pointer(tmp_path):
    """gemlite's kernels load through `load_ptr(a_ptrs, ...)`, a @triton.jit helper its file takes with
    `from .utils import *`: a_ptr was an int (i32, assumed), and the compile failed on its tl.load."""
    (tmp_path / "loading.py").write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\ndef load_ptr(ptrs, mask):\n"
        "    return tl.load(ptrs, mask=mask, other=0.0)\n"
    )
    kernel = tmp_path / "gemm.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\nfrom loading import *\n\n@triton.jit\n"
        "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(out_ptr + offs, load_ptr(a_ptr + offs, offs < n), mask=offs < n)\n"
    )
    (spec,) = [k.spec for k in load_file(str(kernel)).kernels]
    kinds = {p.name: p.kind.value for p in spec.params}
    assert kinds["a_ptr"] == "pointer" and kinds["out_ptr"] == "pointer" and kinds["n"] == "int", kinds


def test_a_scalar_in_the_arithmetic_of_a_math_function_is_a_float():
    found = _infer(
        """
        def k(x_ptr, n, eps):
            x = tl.load(x_ptr + tl.arange(0, 16))
            var = tl.sum(x * x, axis=0) / n
            tl.store(x_ptr + tl.arange(0, 16), x * tl.rsqrt(var + eps))
        """
    )
    assert found.floats == {"eps"} and found.pointers == {"x_ptr"}  # n divides, outside the math call: an int


def test_a_scalar_that_scales_loaded_data_is_a_float_and_one_that_indexes_is_not():
    """`out = x * alpha + y`: alpha was an int (i32, assumed), an I2F in the code and, with fp16 data, fp16
    math, where a launch passes a float scale (h24b). A scalar that also masks, addresses or bounds stays
    an int, as does a divisor (a mean's count) and a stride times loaded indices."""
    found = _infer(
        """
        def k(x_ptr, y_ptr, idx_ptr, t_ptr, out_ptr, n, alpha, beta, count, stride):
            offs = tl.program_id(0) * 16 + tl.arange(0, 16)
            x = tl.load(x_ptr + offs, mask=offs < n)
            y = tl.load(y_ptr + offs, mask=offs < n)
            rows = tl.load(idx_ptr + offs)
            t = tl.load(t_ptr + rows * stride)
            out = x * alpha + y - beta + t * n
            tl.store(out_ptr + offs, out / count, mask=offs < n)
        """
    )
    assert found.floats == {"alpha", "beta"}, found.floats
    assert found.indices == {"idx_ptr"}


def test_a_scalar_cast_to_a_float_that_scales_loaded_data_is_a_float():
    """liger's swiglu: `tl.load(a).to(tl.float32) * gate_multiplier.to(tl.float32)`, launched with
    `float(gate_multiplier)`, was an i32 (assumed). A scalar cast to an integer type stays an int."""
    found = _infer(
        """
        def k(a_ptr, c_ptr, gate, shift, eps, n):
            cols = tl.arange(0, 16)
            a = tl.load(a_ptr + cols, mask=cols < n, other=0).to(tl.float32) * gate.to(tl.float32)
            e = eps.to(tl.float32)
            tl.store(c_ptr + cols, a * e + shift.to(tl.int32), mask=cols < n)
        """
    )
    assert found.floats == {"gate", "eps"}, found.floats


def test_a_scalar_a_mask_reads_is_an_int_whatever_a_float_literal_beside_it_says():
    """liger's poly_norm: `mask = cols < n_cols`, then `(3.0 / n_cols) * x`: n_cols was fp32, where the
    launch passes the row's length, an int. A threshold compared with loaded data stays a float."""
    found = _infer(
        """
        def k(x_ptr, out_ptr, n_cols, threshold, eps):
            cols = tl.arange(0, 16)
            x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0)
            y = tl.where(x > threshold, x - threshold, 0.0) * (3.0 / n_cols)
            tl.store(out_ptr + cols, y * tl.rsqrt(eps + 1.0), mask=cols < n_cols)
        """
    )
    assert found.floats == {"threshold", "eps"}, found.floats


def test_inference_reads_block_pointers_and_math_calls():
    found = _infer(
        """
        def k(A, M, t):
            p = tl.make_block_ptr(base=A, shape=(M,), strides=(1,), offsets=(0,), block_shape=(16,), order=(0,))
            tl.store(p, tl.load(p) * tl.sqrt(t))
        """
    )
    assert found.pointers == {"A"} and found.floats == {"t"}


def test_list_shows_kinds_configs_and_heuristics(cli):
    text = cli("list", KERNELS / "mixed.py").stdout
    assert "helper" in text and "autotune config 1: BLOCK=512, num_warps=8, num_stages=3" in text
    assert "heuristic computes: BLOCK" in text
    document = json.loads(cli("list", KERNELS / "mixed.py", "--json").stdout)
    scale = next(k for k in document["kernels"] if k["name"] == "scale_kernel")
    assert {p["name"]: p["kind"] for p in scale["params"]}["in_ptr"] == "pointer"


def test_list_offers_no_flag_for_a_helper_s_parameters(cli):
    """A helper is never compiled alone: its call types its parameters, so -a (a kernel's flag) is not
    offered for them (issue 55), while a kernel's assumed scalar still gets the offer."""
    text = cli("list", KERNELS / "mixed.py").stdout
    assert text.splitlines()[0].endswith(": 4 @triton.jit functions")
    helper, kernel = (
        text.split("scale_kernel  line 13")[0].split("load_scaled  line 8")[1],
        text.split("scale_kernel  line 13")[1],
    )
    rows = {row.split("│")[1].strip(): row.split("│")[2:] for row in helper.splitlines() if row.count("│") == 6}
    assert set(rows) == {"src", "offs", "n", "scale"}
    assert all(
        [c.strip() for c in cells] == ["-", "-", "", "from the call in scale_kernel", ""] for cells in rows.values()
    )
    assert "-a" not in helper and "give -a" in kernel.split("tuned_kernel")[0]


def test_list_of_a_sample(cli):
    text = cli("list", "sample:matmul_autotune").stdout
    assert text.count("autotune config") == 8 and "stride_am" in text


def test_loading_a_kernel_writes_no_bytecode_beside_it_or_its_helpers(tmp_path, monkeypatch):
    """Python caches each module it imports in a __pycache__ beside it unless told not to
    (PYTHONDONTWRITEBYTECODE, which an MCP client's environment lacks): reading a kernel leaves the
    user's folder as it was, whatever the environment."""
    (tmp_path / "helper_of_kernel.py").write_text("SCALE = 2\n")
    package = tmp_path / "kernels_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    source = (KERNELS / "mixed.py").read_text()
    (package / "mod.py").write_text("import helper_of_kernel  # noqa: F401\n" + source)
    (tmp_path / "lone.py").write_text("import helper_of_kernel  # noqa: F401\n" + source)
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    assert len(load_file(str(tmp_path / "lone.py")).kernels) == 4
    assert len(load_file(str(package / "mod.py")).kernels) == 4  # imported as kernels_pkg.mod
    assert not list(tmp_path.rglob("__pycache__")) and sys.dont_write_bytecode is False


def test_a_file_that_ignores_signals_at_import_leaves_them_as_they_were():
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    loaded = load_file(str(KERNELS / "faults" / "ignores_signals.py"))
    assert [k.spec.name for k in loaded.kernels] == ["fill"]
    assert (
        {signum: signal.getsignal(signum) for signum in before}
        == before
        != {
            signal.SIGINT: signal.SIG_IGN,
            signal.SIGTERM: signal.SIG_IGN,
        }
    )


def test_a_file_that_crashes_the_interpreter_at_import_is_named_with_its_line():
    crashing = KERNELS / "faults" / "crashes_at_import.py"
    done = subprocess.run(
        [sys.executable, "-m", "tritonscope", "dump", str(crashing), "--target", "sm90"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGSEGV
    assert "Segmentation fault" in done.stderr and f'File "{crashing}", line 6 in <module>' in done.stderr


GATED = """import sys

import torch
from torch.utils._triton import has_triton

import triton
import triton.language as tl

{registers}
if {check}:

    @triton.jit
    def twice_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offsets, mask=offsets < n)
        tl.store(x_ptr + offsets, x * 2, mask=offsets < n)
"""
# as torchao's mxfp8/quant.py: a second run of the file defines the operator again, which torch refuses
REGISTERS = '_lib = torch.library.Library("gpkg", "FRAGMENT")\n_lib.define("twice(Tensor x) -> Tensor")\n'


def test_kernels_under_has_triton_are_listed_against_the_simulated_gpu(tmp_path):
    """torchao's shape: kernels under `if has_triton():` (torch's, cached after its first answer), False
    with no GPU. Listed against the simulated GPU, as a file asking for the device at import is."""
    from cli_process import tritonscope

    kernel = tmp_path / "gated.py"
    kernel.write_text(GATED.format(registers="", check="has_triton()"))
    listed = tritonscope("list", kernel)
    assert "twice_kernel" in listed.stdout and "imported against a simulated" in listed.stdout, listed.stdout


def test_a_packages_module_that_registers_an_operator_runs_once(tmp_path):
    """A module of a package that defines a torch.library operator at import (the package's own import
    runs it), its kernels under `if has_triton():`: imported once, by its package's name, against the
    simulated GPU; not run a second time (`registered ... multiple times`)."""
    from cli_process import tritonscope

    package = tmp_path / "site" / "gpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import ops  # the package's import runs ops.py\n")
    (package / "ops.py").write_text(GATED.format(registers=REGISTERS, check="has_triton()"))
    listed = tritonscope("list", package / "ops.py")
    assert "twice_kernel" in listed.stdout and "imported against a simulated" in listed.stdout, listed.stdout


def test_kernels_under_a_gpu_check_the_simulated_gpu_cannot_pass_are_named_with_its_line(tmp_path):
    """Where even the simulated GPU leaves the check false, the error says the kernels sit under it,
    on which line, rather than "no @triton.jit kernels found ... decorate a kernel"."""
    from cli_process import tritonscope

    kernel = tmp_path / "gated.py"
    kernel.write_text(GATED.format(registers="", check="has_triton() and sys.version_info >= (9,)"))
    refused = tritonscope("list", kernel, expect=2).stderr
    assert "kernels are defined only under the GPU check at line 10 (`if has_triton() and sys.version_info" in refused
    assert "decorate a kernel" not in refused


def test_a_kernel_file_sees_the_argv_python_file_would_give_it(tmp_path, cli):
    """FlagGems parses sys.argv at import: it saw tritonscope's own command line, so `--debug` (its option
    too) changed what the import did."""
    kernel = tmp_path / "argv_reader.py"
    kernel.write_text(
        "import sys\nimport triton\nimport triton.language as tl\n\nif sys.argv[1:]:\n"
        "    raise SystemExit(f'got {sys.argv[1:]}')\n\n\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n"
    )
    assert "k  line" in cli("list", kernel, "--debug").stdout


def test_a_kernel_kept_as_a_classs_static_method_is_found(tmp_path, cli):
    """`class K: @staticmethod @triton.jit def k(...)`, which Triton launches as K.k[grid](...): "no
    @triton.jit kernels found" (and in a notebook, "no kernel named 'k' ... Kernels: " with none)."""
    kernel = tmp_path / "held.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\nclass K:\n    @staticmethod\n    @triton.jit\n"
        "    def k(x_ptr, BLOCK: tl.constexpr):\n        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)\n"
    )
    (found,) = load_file(str(kernel)).kernels
    assert found.spec.name == "k" and found.spec.line == 8
    document = json.loads(cli("dump", kernel, "-c", "BLOCK=128", "-t", "sm90", "--json").stdout)
    assert "tt.store" in document["stages"]["ttir"] and document["kernel"]["name"] == "k"
