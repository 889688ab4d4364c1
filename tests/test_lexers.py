"""Our Pygments lexers on the real IR of every sample: no Error tokens, and the right token types."""

from __future__ import annotations

import pytest
from conftest import WARP32_SAMPLES, compiled
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Keyword, Name

from tritonscope.core.samples import all_samples
from tritonscope.core.stages import Stage
from tritonscope.render.lexers import (
    AMDGCNLexer,
    Layout,
    LLVMIRLexer,
    Location,
    Op,
    Register,
    SASSLexer,
    TTGIRLexer,
    TTIRLexer,
    Type,
    lexer_for,
)
from tritonscope.render.terminal import code

OURS = {
    Stage.TTIR: TTIRLexer,
    Stage.TTGIR: TTGIRLexer,
    Stage.LLIR: LLVMIRLexer,
    Stage.SASS: SASSLexer,
    Stage.AMDGCN: AMDGCNLexer,
}


def _tokens(lexer, text):
    return list(lexer().get_tokens(text))


@pytest.mark.parametrize("target", ["sm90", "gfx942"])
@pytest.mark.parametrize("sample", [s.name for s in all_samples()])
def test_no_error_tokens_on_real_ir(sample, target):
    if sample in WARP32_SAMPLES and target == "gfx942":
        pytest.skip("its Gluon layouts are written for 32-thread warps")
    c = compiled(f"sample:{sample}", target)
    for stage, lexer in OURS.items():
        if stage in c.stages:
            errors = [value for token, value in _tokens(lexer, c.stages[stage]) if token in Error]
            assert not errors, f"{stage.value}: {errors[:5]}"


def _values(tokens, kind):
    return {value for token, value in tokens if token in kind}


def test_mlir_tokens_tell_ops_types_layouts_and_locations_apart():
    c = compiled("sample:matmul", "sm90")
    tokens = _tokens(TTGIRLexer, c.stages[Stage.TTGIR])
    assert {"ttg.async_copy_global_to_local", "ttng.warp_group_dot", "arith.addi", "scf.for"} <= _values(tokens, Op)
    assert {"tensor", "!tt.ptr"} <= _values(tokens, Type)
    assert {"#blocked", "#mma", "#shared"} <= _values(tokens, Layout)
    assert any(v.startswith("loc(") for v in _values(tokens, Location)) and "#loc1" in _values(tokens, Location)
    assert len({Op, Type, Layout, Location}) == 4  # four distinct token types


def test_sass_tokens():
    tokens = _tokens(SASSLexer, compiled("sample:vector_add", "sm90").stages[Stage.SASS])
    assert {"LDG.E.128", "STG.E.128", "EXIT"} <= _values(tokens, Op)
    assert {"R0", "UR4", "RZ"} <= _values(tokens, Register)
    assert any(v.startswith('//## File "') for v in _values(tokens, Location))


def test_amdgcn_tokens():
    tokens = _tokens(AMDGCNLexer, compiled("sample:matmul", "gfx942").stages[Stage.AMDGCN])
    ops = _values(tokens, Op)
    assert any(op.startswith("v_mfma") for op in ops) and "s_endpgm" in ops
    assert "v0" in _values(tokens, Register)
    assert any(v.startswith(".loc") for v in _values(tokens, Location))


@pytest.mark.parametrize(
    ("alias", "lexer"), [("ttir", TTIRLexer), ("ttgir", TTGIRLexer), ("nvsass", SASSLexer), ("amdgcn", AMDGCNLexer)]
)
def test_lexers_are_registered_with_pygments(alias, lexer):
    assert type(get_lexer_by_name(alias)) is lexer  # through the pygments.lexers entry point


def test_llvm_ir_tokens():
    tokens = _tokens(LLVMIRLexer, compiled("sample:matmul", "sm90").stages[Stage.LLIR])
    assert {"define", "call", "getelementptr", "phi", "br", "icmp", "select"} <= _values(tokens, Keyword)
    assert {"i32", "float", "ptr", "void"} <= _values(tokens, Type)
    assert any(v.startswith("@llvm.nvvm.") for v in _values(tokens, Name.Variable.Global))
    assert any(v.startswith("%") for v in _values(tokens, Name.Variable)) and _values(tokens, Name.Label)


@pytest.mark.parametrize("target", ["sm90", "gfx942"])
def test_the_joined_rules_give_pygments_own_tokens(target):
    """The terminal lexes with each lexer's rules joined into one pattern per state: the same
    tokens, in the same places, as Pygments' own loop, on every stage of a real kernel."""
    c = compiled("sample:fused_attention", target)
    for stage, text in c.stages.items():
        lexer = lexer_for(stage.lexer)
        states = code._joined(type(lexer))
        if stage.lexer != "python":  # every IR lexer of ours can be joined: the fast path is taken
            assert states is not None, stage
        own = [(code.sgr(ttype), value) for _, ttype, value in lexer.get_tokens_unprocessed(text)]
        assert code._lexed(lexer, text, states) == own, stage


PYTHON_CORNERS = '''\
from triton.language.extra import libdevice as ld
import torch.nn.functional as F, math


@triton.jit  # a comment
def kernel(x_ptr, n: tl.constexpr, BLOCK=128):
    """A docstring
    over two lines."""
    offs = tl.arange(0, BLOCK) * 2.5e-3 + 0x1F
    y = tl.max(x, axis=0) if n is not None else max(len(x), abs(-1))
    z = a @ b; z @= c
    name = f"{kernel.__name__!r}: {x[a.shape[1] :].tolist()} {n:>8} {{lit}}"
    raise ValueError("no") from None


class Tile:
    def __init__(self, cls=None):
        self.total = sum([1, 2]) \\
            + 3
'''


@pytest.mark.parametrize("source", ["corners", "samples"])
def test_python_source_takes_pygments_colours_from_the_tokenizer(source):
    """The kernel's source is coloured from `tokenize` (Pygments' Python lexer costs 30 ms to
    make): every character gets the colour Pygments gives it, on the bundled samples and on the
    constructs kernels hold (decorators, f-strings, imports, built-ins after a dot, `@`)."""
    from pathlib import Path

    from tritonscope.render.terminal.python_colors import python_segments

    root = Path(__file__).parent.parent / "sample_kernels"
    sources = [PYTHON_CORNERS] if source == "corners" else [p.read_text() for p in sorted(root.glob("*.py"))]
    assert sources
    lexer = lexer_for("python")
    for text in sources:
        lines = [code.clean(line) for line in text.split("\n")]
        ours = python_segments(lines, code.sgr)
        assert ours is not None
        own = list(code._split_lines(lexer.get_tokens_unprocessed("\n".join(lines) + "\n")))
        for number, (mine, theirs, line) in enumerate(zip(ours, own, lines, strict=False), start=1):
            assert "".join(part for _, part in mine) == line, number
            assert [s for s, part in mine for _ in part] == [s for s, part in theirs for _ in part], (number, line)


def test_python_the_tokenizer_cannot_read_is_lexed_by_pygments():
    from tritonscope.render.terminal.python_colors import python_segments

    lines = ['x = """never closed', "y = 1"]
    assert python_segments(lines, code.sgr) is None
    rows = list(code.highlighted(lines, "python"))
    assert ["".join(part for _, part in row) for row in rows] == lines
