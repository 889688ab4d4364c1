"""A kernel of the traced script itself is made again from the script's definitions alone
(core/script_definitions.py): recompiles' proofs and `fit DIR/` never run the program again (they
imported it: its side effects ran twice, its sys.exit(3) ended the proof, a serving loop hung it)."""

from __future__ import annotations

import sys

from cli_process import tritonscope

from tritonscope.core.script_definitions import script_kernel

SCRIPT = """\
import os, sys
import torch, triton, triton.language as tl
try:
    from triton.language.extra.libdevice import rsqrt
except ImportError:
    from triton.language.math import rsqrt
BLOCK_DEFAULT = triton.next_power_of_2(200)
DEVICE = torch.device("cuda")
SCALE: tl.constexpr = tl.constexpr(2)

@triton.jit
def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * SCALE, mask=m)

def add(x):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), BLOCK_DEFAULT),)](x, out, x.numel(), BLOCK=BLOCK_DEFAULT)
    return out

for n in (4096, 8192):
    add(torch.randn(n, device="cuda"))
import tritonscope; tritonscope.mark("warmup")
add(torch.randn(4099, device="cuda"))
open(os.environ["SIDE_EFFECT"], "a").write("ran\\n"); import json; sys.exit(3)
"""


def test_only_the_definitions_are_taken(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    kernel = script_kernel(str(script), "add_kernel")
    taken = "".join(piece.text for piece in kernel.pieces)
    assert [p.name for p in kernel.pieces if not p.name.startswith("_statement")] == [
        "BLOCK_DEFAULT",
        "SCALE",
        "add_kernel",
        "add",
    ]
    assert "from triton.language.extra.libdevice import rsqrt" in taken and "import json" in taken
    assert "torch.device" not in taken and "for n in" not in taken and "sys.exit" not in taken
    assert "open(" not in taken and "tritonscope.mark" not in taken
    assert next(p for p in kernel.pieces if p.name == "add_kernel").first_line == 11
    assert script_kernel(str(script), "no_such_kernel") is None  # the caller imports the file then


def test_a_kernel_under_a_gpu_check_is_taken_as_a_gpu_run_takes_it(tmp_path):
    script = tmp_path / "guarded.py"
    script.write_text(
        "import torch\n\nif torch.cuda.is_available():\n    import triton\n    import triton.language as tl\n\n"
        "    @triton.jit\n    def relu(x_ptr, BLOCK: tl.constexpr):\n        o = tl.arange(0, BLOCK)\n"
        "        tl.store(x_ptr + o, tl.maximum(tl.load(x_ptr + o), 0.0))\n\n"
        "if __name__ == '__main__':\n    raise SystemExit(3)\n"
    )
    kernel = script_kernel(str(script), "relu")
    assert kernel is not None
    (relu,) = [p for p in kernel.pieces if p.name == "relu"]
    assert relu.first_line == 7 and relu.text.startswith("@triton.jit\ndef relu(")  # at the left margin
    assert not any("SystemExit" in p.text for p in kernel.pieces)


def test_recompiles_proves_a_scripts_kernel_without_running_the_program(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    side = tmp_path / "side.txt"
    env = {"SIDE_EFFECT": str(side)}
    traced = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "cap", "--", sys.executable, script, env=env, expect=3)
    assert side.read_text() == "ran\n", traced.stderr
    assert "the program exited with 3; trace exits with its status" in traced.stderr  # its status, said as its
    said = tritonscope("recompiles", tmp_path / "cap", "--after", "warmup", env={**env, "COLUMNS": "200"}).stdout
    assert "proved: n=4096 and n=4099 then specialize alike: one variant (n: i32), compiled" in said, said
    tritonscope("fit", tmp_path / "cap", "--targets", "sm90", env=env)
    assert side.read_text() == "ran\n"  # the program ran once: at the trace
