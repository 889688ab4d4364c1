"""`tritonscope explore` on a file that is not a kernel: the command line's error before any screen,
and no worker process left behind. A module of its own: test_explorer.py's warm workers start a spare
worker whenever a task of theirs ends, at any moment of the next test, which this test would count."""

from __future__ import annotations

import pytest
from test_explorer import ROOT, children

from tritonscope import explorer
from tritonscope.core.errors import KernelFileError
from tritonscope.core.model import VariantRequest


def test_a_file_that_is_not_a_kernel_fails_before_the_screen():
    others = children()
    opening = explorer.start(VariantRequest(file=str(ROOT / "tests" / "kernels" / "no_kernels.py")).resolved())
    assert children() - others  # its worker, compiling
    with pytest.raises(KernelFileError, match="no_kernels.py"):
        opening.first()
    assert not children() - others
