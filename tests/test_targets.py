"""Every target in the table compiles a tiny kernel with the installed Triton, and its limits are
either figures or plainly unknown."""

from __future__ import annotations

import re

import pytest
from conftest import compiled

from tritonscope.core.stages import Stage
from tritonscope.core.targets import TARGETS, AmdLimits, NvidiaLimits
from tritonscope.triton_api.version import installed, release_tuple

RELEASE = release_tuple(installed())[:2]


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_target_compiles_a_tiny_kernel(name):
    target = TARGETS[name]
    if RELEASE < target.since:
        pytest.skip(f"{name} is compiled from Triton {'.'.join(map(str, target.since))} on")
    c = compiled("sample:vector_add", name, constexprs=("BLOCK_SIZE=256",))
    assert c.variant.target == name and c.resources.registers > 0
    if target.backend == "cuda":
        assert f".target sm_{target.arch}" in c.stages[Stage.PTX]
        # SASS is there unless the bundled nvdisasm is older than the target, which a notice says.
        assert Stage.SASS in c.stages or any("no SASS" in n for n in c.notices)
    else:
        assert re.search(rf'\.amdgcn_target ".*-{target.arch}"', c.stages[Stage.AMDGCN])
        assert (".amdhsa_wavefront_size32 1" in c.stages[Stage.AMDGCN]) == (target.warp_size == 32)
    assert 0 < c.resources.occupancy.percent <= 100


def test_limits_are_figures_or_unknown():
    for target in TARGETS.values():
        assert isinstance(target.limits, NvidiaLimits if target.backend == "cuda" else AmdLimits)
        for name in target.unknown:
            assert getattr(target.limits, name) is None
    assert TARGETS["sm75"].limits.max_warps_per_sm == 32 and TARGETS["sm121"].limits.max_blocks_per_sm == 24
    assert TARGETS["gfx1250"].unknown and not TARGETS["sm90"].unknown


def test_a_target_newer_than_the_installed_triton_says_which_release(cli):
    if RELEASE >= TARGETS["sm110"].since:
        pytest.skip("the installed Triton compiles for sm110")
    result = cli("dump", "sample:vector_add", "-t", "sm110", expect=2)
    assert "does not compile for sm110" in result.stderr and "--triton 3.9.0" in result.stderr
