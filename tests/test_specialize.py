"""Specialization: the user's flags become the signature, hints and constants Triton would use."""

from __future__ import annotations

import itertools
import shlex

import pytest
from conftest import KERNELS, compiled, make_request

from tritonscope.app.walk.load import load_file
from tritonscope.app.walk.specialize import specialize, specialize_scalar
from tritonscope.core.errors import UsageError
from tritonscope.core.targets import TARGETS

VALUES = [0, 1, 2, 16, 4096, 4099, -16, -3, 2**31 - 16, 2**31, 2**40, 2**63 + 16, 2**64 - 1, -(2**40), 1.5, True]


@pytest.mark.parametrize(("specialize_it", "align"), list(itertools.product([True, False], repeat=2)))
def test_scalar_rules_equal_tritons_launcher(specialize_it, align):
    from triton._C.libtriton import native_specialize_impl  # Triton 3.6's own launcher code
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    for target in (GPUTarget("cuda", 90, 32), GPUTarget("hip", "gfx942", 64)):
        backend = type(make_backend(target))
        for value in VALUES:
            type_, key = native_specialize_impl(backend, value, False, specialize_it, align)
            hint = "" if type_ == "constexpr" else key or ""  # for a constant, Triton's key is the value
            assert specialize_scalar(value, specialize_it, align) == (type_, hint), value


def _variant(file, target="sm90", **flags):
    loaded = load_file(file)
    request = make_request(file, target, **flags)
    return specialize(loaded.pick(request.kernel), request, loaded.defaults, TARGETS[target])


def test_values_specialize_as_at_a_launch():
    v = _variant("sample:vector_add", args=("n_elements=1",))
    assert v.signature["n_elements"] == "constexpr" and v.arguments["n_elements"] == 1
    v = _variant("sample:vector_add", args=("n_elements=4096",))
    assert (v.signature["n_elements"], v.hints["n_elements"]) == ("i32", "D")
    v = _variant("sample:vector_add", args=("n_elements=4099",))
    assert v.signature["n_elements"] == "i32" and "n_elements" not in v.hints
    assert v.hints["x_ptr"] == "D"  # pointers are 16-byte aligned, as torch allocations are
    v = _variant("sample:vector_add", args=("n_elements=4096",), specialize=False)
    assert v.hints == {} and v.signature["n_elements"] == "i32"
    assert _variant("sample:vector_add", target="gfx942").hints["x_ptr"] == "DS"  # AMD buffer ops


def test_types_dtype_and_defaults():
    v = _variant("sample:vector_add", args=("x_ptr=*bf16", "n_elements=i64"), dtype="fp16")
    assert v.signature == {
        "x_ptr": "*bf16",
        "y_ptr": "*fp16",
        "output_ptr": "*fp16",
        "n_elements": "i64",
        "BLOCK_SIZE": "constexpr",
    }
    assert v.constexprs == {"BLOCK_SIZE": 1024}  # from the sample's tritonscope_defaults
    v = _variant(str(KERNELS / "mixed.py"), kernel="scale_kernel", constexprs=("BLOCK=64", "DTYPE=tl.bfloat16"))
    assert v.constexprs == {"BLOCK": 64, "DTYPE": "bf16"}
    assert v.signature["scale"] == "fp32" and v.signature["row_stride"] == "i32"


def test_autotune_config_and_heuristics():
    v = _variant(str(KERNELS / "mixed.py"), kernel="tuned_kernel", config=1)
    assert v.constexprs == {"BLOCK": 512} and v.options == {"num_warps": 8, "num_stages": 3, "num_ctas": 1}
    v = _variant(str(KERNELS / "mixed.py"), kernel="tuned_kernel", num_warps=2)
    assert v.constexprs == {"BLOCK": 128} and v.options["num_warps"] == 2  # the flag beats the config
    v = _variant(str(KERNELS / "mixed.py"), kernel="row_kernel", args=("n=300",))
    assert v.constexprs == {"BLOCK": 512}  # next_power_of_2(300), computed by the file's heuristic


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"config": 2, "kernel": "tuned_kernel"}, "has 2 autotune configs, numbered 0 to 1"),
        ({"config": 0, "kernel": "scale_kernel"}, "is not autotuned"),
        ({"kernel": "scale_kernel"}, "needs a value for constexpr BLOCK"),
        (
            {"kernel": "scale_kernel", "constexprs": ("BLOCK=64",), "args": ("in_ptr=abc",)},
            "-a in_ptr=abc: in_ptr is a pointer",
        ),
        ({"kernel": "scale_kernel", "constexprs": ("BLOCK=64",), "args": ("n=2**70",)}, "does not fit in 64 bits"),
        ({"kernel": "scale_kernel", "constexprs": ("BLOCK=64",), "args": ("n=lots",)}, "bad value for argument n"),
        ({"kernel": "scale_kernel", "constexprs": ("BLOCK",)}, "expects NAME=VALUE"),
        ({"kernel": "scale_kernel", "dtype": "fp13"}, "unknown dtype 'fp13'"),
    ],
)
def test_bad_requests_say_what_is_wrong(flags, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        _variant(str(KERNELS / "mixed.py"), **flags)


def test_heuristic_without_the_value_it_needs():
    """The request left out an argument the heuristic reads: a usage error naming it (it was the file's)."""
    from tritonscope.core.errors import KernelFileError, UsageError

    with pytest.raises(
        UsageError, match="heuristic for BLOCK of row_kernel reads n, which was given no value"
    ) as raised:
        _variant(str(KERNELS / "mixed.py"), kernel="row_kernel")
    assert (
        not isinstance(raised.value, KernelFileError)
        and raised.value.hint == "give it: -a n=VALUE (or set -c BLOCK=...)"
    )


def test_printed_command_line_reproduces_the_variant(cli):
    import json

    original = compiled("sample:matmul", "sm80", args=("M=1024", "K=1000"), num_stages=2)
    words = shlex.split(original.variant.command_line())
    assert words[:3] == ["tritonscope", "dump", "sample:matmul"]
    again = json.loads(cli(*words[1:], "--json").stdout)
    assert again["variant"]["signature"] == original.variant.signature
    assert again["variant"]["hints"] == original.variant.hints
    assert again["variant"]["constexprs"] == original.variant.constexprs
    assert again["metadata"]["num_stages"] == 2 and again["resources"]["registers"] == original.resources.registers


def test_tensor_descriptor_types_parse_once_and_split_in_vary():
    from tritonscope.cli.argtypes import axes
    from tritonscope.core.values import TypeName, parse

    assert parse("tensordesc<tl.bfloat16[64,64]>") == TypeName("tensordesc<bf16[64, 64]>")
    assert parse("tensordesc<bf16[64, 64]>").is_descriptor and parse("tensordesc<nope[64]>") == "tensordesc<nope[64]>"
    assert axes(["d=tensordesc<bf16[1, 64]>,tensordesc<fp16[1, 64]>"]) == [
        ("d", (TypeName("tensordesc<bf16[1, 64]>"), TypeName("tensordesc<fp16[1, 64]>")))
    ]


def test_an_argument_the_body_makes_a_descriptor_of_takes_a_descriptor_too():
    """Triton's fused-attention tutorial passes a tensor descriptor where its body would make one of a
    pointer (`_maybe_make_tensor_desc(desc_q, ...)`): --from-run gives that launch's type back as a flag."""
    file = str(KERNELS / "warp_specialized_matmul.py")
    v = _variant(file, args=("a_ptr=tensordesc<fp16[128, 64]>",), dtype="fp16")
    assert v.signature["a_ptr"] == "tensordesc<fp16[128, 64]>" and v.signature["b_ptr"] == "*fp16"
    with pytest.raises(UsageError, match="-a a_ptr=fp16: a_ptr is a pointer"):
        _variant(file, args=("a_ptr=fp16",), dtype="fp16")


def test_a_pointer_loaded_through_in_an_if_only_may_be_given_a_value(tmp_path):
    """flash-attention's rotary kernel takes SEQLEN_OFFSETS as an int or a pointer, and loads through it
    only under `if IS_SEQLEN_OFFSETS_TENSOR:`; its default launch (an int, the flag False) was refused as
    "a pointer (the kernel loads or stores through it)". One loaded through outside a branch still is."""
    kernel = tmp_path / "offsets.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def shifted(x_ptr, out_ptr, OFFSETS, IS_TENSOR: tl.constexpr):\n"
        "    start = OFFSETS\n"
        "    if IS_TENSOR:\n"
        "        start = tl.load(OFFSETS)\n"
        "    tl.store(out_ptr, tl.load(x_ptr + start))\n"
    )
    spec = load_file(str(kernel)).pick("shifted").spec
    assert [(p.name, p.type_from) for p in spec.params[:3]] == [("x_ptr", "body"), ("out_ptr", "body"),
                                                                 ("OFFSETS", "branch")]  # fmt: skip
    c = compiled(str(kernel), "sm90", constexprs=("IS_TENSOR=false",), args=("OFFSETS=7",))
    assert c.variant.signature["OFFSETS"] == "i32"
    with pytest.raises(UsageError, match="x_ptr is a pointer"):
        compiled(str(kernel), "sm90", constexprs=("IS_TENSOR=false",), args=("OFFSETS=7", "x_ptr=3"))
