"""corpus_fidelity's comparison across torch releases, on the two cases issue 51's programs met:
a shape-generic kernel numbered otherwise by another release (generate_dynamic's `mul_silu`), and
a buffer passed as another view (moe_router_train's `_19`); and the autotuner's config set aside."""

from __future__ import annotations

import json

from corpus_fidelity import (
    H200_SUMMARY,
    as_the_kernel_sees,
    config_knobs,
    digest,
    kind_key,
    launches_by_kind,
    load,
    unnamed,
)

_DYNAMIC_SILU = "61ac295de5efdef92907"  # the H200's shape-generic `mul_silu` text, its name set aside
GENERIC = """@triton_heuristics.pointwise(size_hints={'x': 4096})
@triton.jit
def triton_poi_fused_mul_silu_NUMBER(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
"""


def _compile(number: int, block: int, *launches) -> dict:
    text = GENERIC.replace("NUMBER", str(number))
    return {
        "name": f"triton_poi_fused_mul_silu_{number}",
        "signature": {"in_out_ptr0": "*fp32", "in_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"},
        "constants": {"(3,)": str(block)},
        "body": digest(text[text.index("def ") :]),
        "unnamed": digest(unnamed(text)),
        "launches": [[[1, 1, 1], list(args)] for args in launches],
    }


def _tensor(shape, stride):
    return [shape, stride, "float32", 0]


def test_a_kernel_numbered_otherwise_is_one_kind_with_its_launches_pooled():
    prefill = [_tensor([2, 8, 128], [1024, 128, 1]), _tensor([16, 128], [128, 1]), 2048]
    decode = [_tensor([2, 1, 128], [128, 128, 1]), _tensor([2, 128], [128, 1]), 256]
    truth = [_compile(7, 128, [*prefill, 128]), _compile(8, 128, [*decode, 128])]
    ours = [_compile(6, 128, [*prefill, 128]), _compile(7, 128, [*decode, 128])]
    assert truth[0]["body"] == ours[1]["body"] and truth[0]["launches"] != ours[1]["launches"]  # the trap
    assert len({kind_key(c) for c in truth + ours}) == 1
    knobs = config_knobs(truth + ours, kind_key)
    assert launches_by_kind(truth, "unnamed", knobs) == launches_by_kind(ours, "unnamed", knobs)
    by_name = launches_by_kind(truth, "body", {}), launches_by_kind(ours, "body", {})
    assert by_name[0] != by_name[1]  # held by the name-bearing text, the two differ


def test_the_autotuners_config_is_set_aside_where_the_kernels_compiles_differ_in_it():
    launch = [_tensor([3, 8, 128], [1024, 128, 1]), _tensor([24, 128], [128, 1]), 3072]
    truth, ours = [_compile(7, 128, [*launch, 128])], [_compile(7, 256, [*launch, 256])]
    knobs = config_knobs(truth + ours, kind_key)
    assert knobs == {kind_key(truth[0]): {3}}
    assert launches_by_kind(truth, "unnamed", knobs) == launches_by_kind(ours, "unnamed", knobs)
    assert config_knobs(truth, kind_key) == {kind_key(truth[0]): set()}  # one config: nothing set aside


def test_a_tensor_is_held_as_the_kernel_gets_it():
    as_matmul_result = as_the_kernel_sees([[256, 64], [64, 1], "bfloat16", 0])
    as_allocated = as_the_kernel_sees([[4, 64, 2, 32], [4096, 64, 32, 1], "bfloat16", 0])
    assert as_matmul_result == as_allocated == [16384, "bfloat16", 0]
    assert as_the_kernel_sees([[256, 64], [64, 1], "bfloat16", 8]) != as_allocated  # the offset counts
    assert as_the_kernel_sees([[4, 32], [64, 1], "bfloat16", 0]) == [4 * 64 - 32, "bfloat16", 0]
    assert as_the_kernel_sees(128) == 128 and as_the_kernel_sees(None) is None
    assert json.dumps(as_the_kernel_sees([[0, 64], [64, 1], "float32", 0])) == '[0, "float32", 0]'


def test_the_h200s_own_capture_has_both_cases():
    """The two cases, as the H200's truth recorded them (tests/programs/h200/summary.json)."""
    generate = load("generate_dynamic", H200_SUMMARY)["compiles"]
    dynamic_silu = [c for c in generate if c["unnamed"] == _DYNAMIC_SILU]  # prefill's and decode's
    assert len({kind_key(c) for c in dynamic_silu}) == 1
    assert {c["name"] for c in dynamic_silu} == {
        "triton_poi_fused__unsafe_view_mul_silu_7",
        "triton_poi_fused__unsafe_view_mul_silu_8",
    }
    moe = load("moe_router_train", H200_SUMMARY)["compiles"]
    (reduce,) = [c for c in moe if c["name"] == "triton_red_fused__unsafe_view_add_clone_squeeze_sum_transpose_view_19"]
    views = {json.dumps(args[0][:2]) for _, args in reduce["launches"]}
    assert views == {"[[256, 64], [64, 1]]", "[[4, 64, 2, 32], [4096, 64, 32, 1]]"}
    assert len({json.dumps(as_the_kernel_sees(args[0])) for _, args in reduce["launches"]}) == 1
