"""The Python API (tritonscope/api/): the same requests and results as the command line, from a kernel
object as well as a path. Kernels defined in the cells of a fresh, real IPython session (helpers and
constants in other cells, a cell edited and run again, autotune and heuristics, Gluon), what crosses
to the compiling process and what is refused, the magic, `ts.launched` on kernels Triton's own JIT
compiled (for a simulated H100 in a child, so no GPU is needed) and `ts.capture` without a GPU."""

from __future__ import annotations

import html
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from cli_process import tritonscope
from conftest import KERNELS

import tritonscope as ts
from tritonscope.core import inputs
from tritonscope.core.errors import TritonscopeError, UsageError
from tritonscope.core.targets import local_target

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = {"BLOCK_SIZE": 1024, "args": {"x_ptr": "*fp16", "n_elements": 4096}, "target": "sm90"}
VOLATILE = ("compile_seconds", "cache_hit", "stage_seconds", "notices")


def _steady(document: dict) -> dict:
    """A --json document without what changes from one compile to the next (time, a cache hit)."""
    return {
        key: _steady(value) if isinstance(value, dict) else value
        for key, value in document.items()
        if key not in VOLATILE
    }


def test_a_result_is_the_command_lines_json_document():
    r = ts.dump("sample:vector_add", **VECTOR_ADD)
    flags = ["-c", "BLOCK_SIZE=1024", "-a", "x_ptr=*fp16", "-a", "n_elements=4096", "-t", "sm90"]
    given = json.loads(tritonscope("dump", "sample:vector_add", *flags, "--json").stdout)
    assert _steady(r.to_json()) == _steady(given)
    assert r.resources.registers == given["resources"]["registers"] > 0
    assert r.stages["ptx"] == given["stages"]["ptx"] and ".visible .entry add_kernel" in r.stages["ptx"]
    assert r.variant.constexprs == {"BLOCK_SIZE": 1024} and r.variant.signature["x_ptr"] == "*fp16"
    explained = ts.explain("sample:vector_add", target="sm90", args={"n_elements": 4099}, what_if=False)
    shown = json.loads(tritonscope("explain", "sample:vector_add", "-t", "sm90", "-a", "n_elements=4099",
                                   "--no-what-if", "--json").stdout)  # fmt: skip
    assert _steady(explained.to_json()) == _steady(shown)
    assert "narrow-global-access" in {f.kind for f in explained.findings}


def test_results_have_plain_attributes_a_one_line_repr_and_a_notebook_view():
    r = ts.dump("sample:vector_add", **VECTOR_ADD)
    became = r.line(20)  # mask = offsets < n_elements
    assert became["source"] == ["    mask = offsets < n_elements"]
    assert any("arith.cmpi slt" in line for line in became["ttgir"])
    assert any("setp.lt.s32" in line for line in became["ptx"]) and any("ISETP" in line for line in became["sass"])
    assert set(r.stages) == {"source", "ttir", "ttgir", "llir", "ptx", "sass"}
    shown = repr(r)
    assert (
        "\n" not in shown and shown.startswith("<Dump add_kernel on sm90:") and f"{r.resources.registers} reg" in shown
    )
    page, again = r._repr_html_(), r._repr_html_()
    assert page.startswith('<div class="tritonscope" id="tsv-') and page.count("<script>") == 1
    first, second = (re.match(r'<div class="tritonscope" id="([\w-]+)"', view).group(1) for view in (page, again))
    assert second.startswith(first) and second != first  # shown twice: two elements, each with its own id
    assert 'data-stage="sass"' in page and "http" not in page.replace("http-equiv", "")
    d = ts.diff("sample:vector_add", target="sm90", vary={"BLOCK_SIZE": [256, 1024]}, stages="ttgir")
    assert [o.label for o in d.variants] == [{"BLOCK_SIZE": "256"}, {"BLOCK_SIZE": "1024"}]
    assert "-#blocked = #ttg.blocked<{sizePerThread = [2]" in d.diffs["ttgir"]
    assert repr(d).endswith("; of ttgir compared, changed: ttgir>"), repr(d)  # only the stages asked are diffed
    assert 'class="replace"' in d._repr_html_() or 'class="insert"' in d._repr_html_()


def test_fit_ranks_as_the_command_line_does():
    """The README's `fit --rank` had no keyword in ts.fit: the estimates and the order are the command's."""
    ranked = ts.fit("sample:matmul_autotune", targets=["h200"], rank=True)
    document = json.loads(tritonscope("fit", "sample:matmul_autotune", "--targets", "h200", "--rank", "--json").stdout)
    assert ranked.to_json()["kernels"][0]["ranked"] == document["kernels"][0]["ranked"]
    (kernel,) = ranked.kernels
    assert all(cell.estimate is not None and cell.estimate.kernel_us > 0 for cell in kernel.column("h200"))
    # its repr names the fastest, as the command's "Fastest" does; without a grid it says so, in Python's
    # words (rank=True with no grid gave a repr of nothing, its note naming --grid: h26a)
    assert f"; fastest: h200 #{document['kernels'][0]['ranked']['h200'][0]} (" in repr(ranked), repr(ranked)
    untimed = repr(ts.fit(str(KERNELS / "transpose_tile.py"), targets=["sm90"], rank=True))  # no grid(meta)
    assert 'no time estimates: the launch grid is not known: give grid="X, Y, Z"' in untimed, untimed
    with pytest.raises(UsageError, match="give rank=True too"):
        ts.fit("sample:matmul_autotune", targets=["h200"], grid="132")


def test_the_signature_comes_from_the_inputs_table():
    for function in (ts.dump, ts.explain, ts.diff, ts.passes, ts.fit, ts.layout, ts.grid):
        names = list(inspect.signature(function).parameters)
        table = [i.name_in(inputs.API) for i in inputs.taken_by(inputs.API)]
        assert names[: len(table)] == table and names[-1] == "constexpr_values", function.__name__


def test_mistakes_are_said_in_one_message_with_what_to_do():
    with pytest.raises(UsageError, match=r"no constexpr 'num_warp'[\s\S]*did you mean num_warps="):
        ts.dump("sample:vector_add", target="sm90", num_warp=8)
    with pytest.raises(UsageError, match="is not a Triton kernel"):
        ts.dump(len)
    from tritonscope.core.samples import sample_path

    namespace: dict = {}
    exec(compile(sample_path("vector_add").read_text(), str(sample_path("vector_add")), "exec"), namespace)
    with pytest.raises(UsageError, match=r"given add_kernel\[grid\], the kernel with its launch grid") as raised:
        ts.dump(namespace["add_kernel"][(4,)], target="sm90")
    assert "give the kernel itself: add_kernel, without [grid]" in str(raised.value)
    with pytest.raises(UsageError, match="given twice"):
        ts.dump("sample:vector_add", BLOCK_SIZE=64, constexprs={"BLOCK_SIZE": 128})


def test_errors_name_keywords_not_the_command_lines_flags():
    with pytest.raises(UsageError) as raised:
        ts.dump(ROOT / "tests" / "kernels" / "bad.py", kernel_name="needs_block", target="sm90")
    assert "give it: BLOCK=..." in str(raised.value) and "-c" not in str(raised.value), str(raised.value)
    with pytest.raises(UsageError) as raised:
        ts.dump("sample:vector_add", BLOCK_SIZE=64, target="rtx")
    assert str(raised.value).endswith("(T4, RTX 20xx (Turing)): target='sm75'")
    with pytest.raises(UsageError, match="give line or lines, not both"):
        ts.dump("sample:vector_add", BLOCK_SIZE=64, target="sm90", line=30, lines="30-31")
    with pytest.raises(UsageError, match=r"needs a value for n: give args=\{'n': VALUE\}"):
        ts.grid(ROOT / "tests" / "kernels" / "bad.py", kernel_name="needs_block", BLOCK=64, target="sm90")


def test_inputs_the_command_line_refuses_are_refused_not_dropped():
    """wave=0 drew no wave, a shape without a value listed the layouts at their own shapes, and show
    with vary compared the pipelines without the pass shown (h22a): each refused as the command line
    refuses it, in the API's words."""
    with pytest.raises(UsageError, match="wave must be at least 1, not 0"):
        ts.grid("sample:matmul", args={"M": 256, "N": 256, "K": 256}, wave=0, target="sm90")
    with pytest.raises(UsageError) as raised:
        ts.layout("sample:softmax", shape=(64, 64), target="sm90")
    assert "shape draws one value at that shape: give value=" in str(raised.value), str(raised.value)
    assert "--" not in str(raised.value)
    with pytest.raises(UsageError, match="show shows one pipeline's pass: leave out vary, or show"):
        ts.passes("sample:softmax", show="3", vary={"num_warps": [4, 8]}, target="sm90")


def test_a_keyword_of_the_wrong_type_is_refused_in_the_users_terms():
    """Refused before any code that assumes the type runs (a `line="4"` was a TypeError deep inside)."""
    for keywords, said in (
        ({"line": "4"}, "line='4': line takes an int or None, not str"),
        ({"target": 90}, "target=90: target takes a string, not int"),
        ({"num_warps": True}, "num_warps=True: num_warps takes an int or None, not bool"),
    ):
        with pytest.raises(UsageError) as raised:
            ts.dump("sample:vector_add", BLOCK_SIZE=64, **{"target": "sm90", **keywords})
        assert str(raised.value) == said
    # a pointer to no type Triton has: said as such, and as Python (it read `args={'x_ptr': *fp99:} ... give the type`)
    with pytest.raises(UsageError) as raised:
        ts.dump("sample:vector_add", target="sm90", args={"x_ptr": "*fp99"})
    assert str(raised.value).startswith("args={'x_ptr': '*fp99'}: unknown type 'fp99'. Known: i8, ")
    with pytest.raises(UsageError, match=r"configs=\[0, 1\]: configs takes True or False, not list"):
        ts.diff("sample:matmul_autotune", target="sm90", configs=[0, 1])
    # a result's .line() too: `d.line("4")` was a TypeError inside tritonscope, its errors shown with its frames
    dumped = ts.dump("sample:vector_add", BLOCK_SIZE=64, target="sm90")
    for given, said in ((("4",), "line('4'): a line number is an int, not a str"), ((99,), "line 99 of ")):
        with pytest.raises(UsageError) as raised:
            dumped.line(*given)
        assert str(raised.value).startswith(said)
        shown = raised.value._render_traceback_()
        assert shown[-1].startswith(f"UsageError: {said}") and not any("tritonscope/api" in s for s in shown)


def test_a_torch_dtype_and_a_tensor_are_taken_as_their_triton_types():
    torch = pytest.importorskip("torch")
    x = torch.zeros(8, dtype=torch.float16)
    r = ts.dump("sample:vector_add", BLOCK_SIZE=64, target="sm90", dtype=torch.bfloat16, args={"x_ptr": x})
    signature = r.to_json()["variant"]["signature"]
    assert signature["x_ptr"] == "*fp16" and signature["y_ptr"] == "*bf16", signature


def test_a_tensor_view_not_16_byte_aligned_gets_no_alignment_hint_as_at_its_launch():
    """x[1:] of fp16 starts 2 bytes past an aligned allocation: Triton's launcher does not mark it
    aligned (`data_ptr() % 16`), so its compile's accesses are 16-bit; it kept the hint (h19d)."""
    torch = pytest.importorskip("torch")
    x = torch.zeros(4097, dtype=torch.float16)
    given = {"y_ptr": "*fp16", "n_elements": 4096}
    aligned = ts.dump("sample:vector_add", BLOCK_SIZE=1024, target="sm90", args={"x_ptr": x[:4096], **given})
    view = ts.explain("sample:vector_add", BLOCK_SIZE=1024, target="sm90", args={"x_ptr": x[1:], **given})
    assert aligned.variant.hints["x_ptr"] == "D" and "x_ptr" not in view.variant.hints, view.variant.hints
    assert view.variant.hints["y_ptr"] == "D"  # the other pointer keeps its hint
    narrow = [f for f in view.findings if f.kind == "narrow-global-access"]
    assert narrow and "x_ptr was not known to be 16-byte aligned" in narrow[0].message


def test_a_numpy_scalar_argument_is_refused_as_tritons_launcher_refuses_it():
    """np.float32(4096.0) was typed i32 with the divisibility hint, where Triton's launcher refuses it
    ("failed to specialize argument of type: numpy.float32", h19d)."""
    import numpy as np

    with pytest.raises(UsageError) as refused:
        ts.dump("sample:vector_add", BLOCK_SIZE=64, target="sm90", args={"n_elements": np.float32(4096.0)})
    said = str(refused.value)
    assert "args n_elements=np.float32(4096.0): Triton's launcher refuses a numpy scalar" in said
    assert "pass a Python number: n_elements=4096.0" in said


def test_the_magic_reads_the_command_lines_syntax_and_names_its_kernels_in_the_notebook():
    from tritonscope.api.magic import parsed

    def k():  # a stand-in object the notebook names: the magic hands it on, the API checks it
        return None

    k.__module__ = "__main__"  # defined in a cell, as a notebook's own kernel is

    function, keywords, kernel = parsed(
        "dump k -c BLOCK_SIZE=1024 -a 'x_ptr=*fp16' --stage ttgir,ptx -t sm90", {"k": k}
    )
    assert function is ts.api.functions.dump and kernel is k
    assert keywords == {"constexprs": {"BLOCK_SIZE": "1024"}, "args": {"x_ptr": "*fp16"}, "target": "sm90",
                        "stages": "ttgir,ptx"}  # fmt: skip
    # -t repeats for fit's columns only (the magic passed a list to target=)
    assert parsed("fit k -t sm80 -t sm90", {"k": k})[1] == {"targets": ["sm80", "sm90"]}
    with pytest.raises(UsageError, match=r"--target is given 2 times \(sm90, sm80\)"):
        parsed("dump k -t sm90 -t sm80", {"k": k})
    function, keywords, kernel = parsed("diff sample:matmul --vary num_warps=4,8 --vary 'MODE=\"1\",mean'", {})
    assert kernel == "sample:matmul" and keywords["vary"] == {"num_warps": ["4", "8"], "MODE": ['"1"', "mean"]}
    # a kernel of the notebook: a shell would not see it, so the way in Python is said
    with pytest.raises(UsageError, match=r"--json is the command line's: the result's .to_json\(\) is the --json"):
        parsed("dump k --json", {"k": k})
    with pytest.raises(UsageError, match=r"--json is the command line's: run `!tritonscope dump sample:vector_add"):
        parsed("dump sample:vector_add --json", {})
    # a kernel of a module the notebook imported: the shell line names its file and -k (h22a: it said
    # `!tritonscope dump kernels.add_kernel`, which no shell can run)
    import importlib.util

    from tritonscope.core.samples import sample_path

    spec = importlib.util.spec_from_file_location("kernels", sample_path("vector_add"))
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    with pytest.raises(UsageError) as raised:
        parsed("dump kernels.add_kernel -t sm90 --json", {"kernels": kernels})
    file = os.path.relpath(sample_path("vector_add"))
    assert f"run `!tritonscope dump {file} -k add_kernel -t sm90 --json`" in str(raised.value), str(raised.value)
    # each flag says what the notebook has in its place (all said `.to_json()` and `ts.dump(..., )`)
    with pytest.raises(UsageError) as raised:
        parsed("dump k --watch --annotate", {"k": k})
    assert str(raised.value) == (
        "%tritonscope dump: --annotate, --watch are the command line's: the view links each line of every stage "
        "to its Python line; run the cell again after an edit"
    )
    with pytest.raises(UsageError, match=r"give the kernel k with --from: %tritonscope layout --from k"):
        parsed("layout k -c BLOCK=64 --value mask", {"k": k})
    with pytest.raises(UsageError, match="no name nothing_here in this notebook, and no file of that name"):
        parsed("dump nothing_here", {})
    with pytest.raises(UsageError, match="No such option: --nope"):
        parsed("dump k --nope", {"k": k})


def test_capture_without_a_gpu_names_trace_in_one_line():
    with pytest.raises(UsageError) as raised:
        with ts.capture(target="sm90"):
            pass
    said = str(raised.value)
    assert "\n" not in said and "needs a process of its own" in said
    assert 'ts.trace(["python", "infer.py"], target="sm90")' in said


def test_trace_captures_a_program_for_a_simulated_gpu(tmp_path):
    pytest.importorskip("torch")
    program = tmp_path / "run.py"
    program.write_text(f"import sys\nsys.path.insert(0, {str(ROOT / 'sample_kernels')!r})\n" + RUN_ADD)
    traced = ts.trace([sys.executable, str(program)], target="sm90", out=tmp_path / "h100")
    assert traced.kernels == ("add_kernel",) and traced.folder == str(tmp_path / "h100")
    assert "<Trace 1 kernel (2 compiles: `tritonscope cache list` names them)" in repr(traced)  # n=4099: no hint
    read = ts.dump(f"{traced.folder}/:add_kernel")
    assert read.variant.target == "sm90" and "not recompiled" in " ".join(read.notices)
    # its view says so and shows the notices (it said `compiled by Triton 3.6.0 in 0.00 s`, and no notice)
    view = read._repr_html_()
    assert "earlier: read from its cache, not recompiled" in view and " in 0.00 s" not in view
    assert all(html.escape(notice) in view for notice in read.notices)
    assert "<td>stack</td>" in view  # dump's rows: the stack holds NVIDIA's spills


RUN_ADD = """import torch
from vector_add import add_kernel
x = torch.ones(4096, device="cuda")
add_kernel[(4,)](x, x, x, 4096, BLOCK_SIZE=1024)
add_kernel[(4,)](x, x, x, 4099, BLOCK_SIZE=1024)
"""


def _in_ipython(cells: list[str]) -> dict:
    """Runs cells in a fresh IPython session (a real InteractiveShell, in a child process); each cell's
    `facts` dict (or its error) is collected."""
    script = textwrap.dedent(
        """
        import json, sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        seen = []
        for cell in json.loads(sys.stdin.read()):
            shell.user_ns["facts"] = {}
            outcome = shell.run_cell(cell, store_history=True)
            error = outcome.error_in_exec or outcome.error_before_exec
            seen.append({"error": f"{type(error).__name__}: {error}" if error else None,
                         "facts": shell.user_ns.get("facts", {})})
        print(json.dumps(seen, default=str))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(cells), capture_output=True, text=True, timeout=900, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


CELLS = [
    "import triton\nimport triton.language as tl\nimport tritonscope as ts\nSCALE = tl.constexpr(3)",
    "@triton.jit\ndef scaled(x):\n    return x * SCALE",
    "\n".join(
        [
            "@triton.jit",
            "def simple_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):",
            "    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)",
            "    mask = offsets < n",
            "    tl.store(out_ptr + offsets, scaled(tl.load(x_ptr + offsets, mask=mask)), mask=mask)",
        ]
    ),
    "r = ts.dump(simple_kernel, BLOCK_SIZE=1024, target='sm90')\n"
    "facts.update(file=r.kernel.file, line=r.kernel.line, became=r.line(5), ttir=r.stages['ttir'],"
    " helper=r.line(3, scaled.fn.__code__.co_filename))\nget_ipython().run_line_magic('load_ext', 'tritonscope')\n"
    "facts.update(by_label=r.line(3, 'Cell In[2]'))\n"
    "try:\n    r.line(99)\nexcept Exception as error:\n    facts.update(outside=str(error))\n"
    "view = r._repr_html_()\nfacts.update(named=[t in view for t in ('simple_kernel  (Cell In[3], line 2)',"
    " 'the cells In[2] and In[3] saved as kernel.py in that order, after the imports and the globals they read "
    "(`import triton`, `import triton.language as tl`): tritonscope dump kernel.py -k simple_kernel')],"
    " reproduce=r.reproduce, command=r.variant.command_line())",
    "m = %tritonscope dump simple_kernel -c BLOCK_SIZE=1024 -t sm90\nfacts.update(same=m.stages == r.stages)",
    # the helper's cell edited and run again: the kernel calls the new one, compiled afresh
    "@triton.jit\ndef scaled(x):\n    return x + SCALE",
    "again = ts.dump(simple_kernel, BLOCK_SIZE=1024, target='sm90')\nfacts.update(ttir=again.stages['ttir'])",
    "\n".join(
        [
            "@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=2), triton.Config({'BLOCK': 128},"
            " num_warps=8)], key=['n'])",
            "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})",
            "@triton.jit",
            "def tuned(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):",
            "    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
            "    tl.store(x_ptr + offsets, scaled(tl.load(x_ptr + offsets)), mask=offsets < n)",
        ]
    ),
    "t = ts.dump(tuned, config=1, args={'n': 4096}, target='sm90')\n"
    "facts.update(constexprs=t.variant.constexprs, warps=t.compilation.options['num_warps'])",
    "from triton.experimental import gluon\nfrom triton.experimental.gluon import language as gl\n\n"
    "@gluon.jit\ndef rows(x_ptr, out_ptr, ROWS: gl.constexpr, COLS: gl.constexpr):\n"
    "    tile: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [gl.num_warps(), 1], [1, 0])\n"
    "    r = gl.arange(0, ROWS, layout=gl.SliceLayout(1, tile))\n"
    "    c = gl.arange(0, COLS, layout=gl.SliceLayout(0, tile))\n"
    "    gl.store(out_ptr + r, gl.sum(gl.load(x_ptr + r[:, None] * COLS + c[None, :]), axis=1))",
    "g = ts.dump(rows, ROWS=32, COLS=128, target='sm90')\nfacts.update(stages=list(g.stages), sass=g.line(9)['sass'])",
    # the kernel's own cell edited and run again: the new kernel, not the one compiled before
    "@triton.jit\ndef simple_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):\n    tl.store(out_ptr, 7.5)",
    "facts.update(ttir=ts.dump(simple_kernel, BLOCK_SIZE=1024, target='sm90').stages['ttir'])",
    "import torch\nweights = torch.ones(4)\n\n@triton.jit\ndef reads_a_tensor(x_ptr):\n    tl.store(x_ptr, weights)",
    "ts.dump(reads_a_tensor, target='sm90')",
    # a compile that crashes its process (here a heuristic that aborts): said, and the session goes on
    "import os\n\n@triton.heuristics({'B': lambda args: os.abort()})\n@triton.jit\n"
    "def aborts(x_ptr, B: tl.constexpr):\n    tl.store(x_ptr, 1.0)",
    "ts.dump(aborts, target='sm90')",
    "facts.update(after=repr(ts.dump('sample:vector_add', target='sm90')))",
    # what IPython shows of an error: the cell's own line that called, then the message and hint
    "try:\n    ts.dump(simple_kernel, BLOCK_SIZE=64, target='sm90', num_warp=2)\n"
    "except Exception as error:\n    facts.update(shown=error._render_traceback_())",
    # a compile error names the kernel's cell as IPython does, not the cell's file (not on the disk)
    "@triton.jit\ndef broken(x_ptr):\n    tl.store(x_ptr, undefined_name)",
    "try:\n    ts.dump(broken, target='sm90')\nexcept Exception as error:\n    facts.update(said=str(error))",
    # layout's value NAME is the statement assigning NAME, read from the cell (it has no file): the load,
    # not the splat of n_cols that the mask's comparison, also named %row, makes first
    "@triton.jit\ndef row_max(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):\n    cols = tl.arange(0, BLOCK)\n"
    "    row = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0)\n    tl.store(out_ptr, tl.max(row, axis=0))",
    "facts.update(drawn=repr(ts.layout(row_max, BLOCK=1024, target='sm90', value='row')))",
    # a result's one line names the cell as IPython does (a Fit's named the cell's file, not on the disk)
    "fit = ts.fit(simple_kernel, BLOCK_SIZE=64, targets=['sm90'])\n"
    "facts.update(fitted=repr(fit), fitted_view=fit._repr_html_())",
]


def test_kernels_defined_in_the_cells_of_a_fresh_ipython_session():
    seen = _in_ipython(CELLS)
    failed = {n: s["error"] for n, s in enumerate(seen) if s["error"]}
    assert set(failed) == {14, 16}, failed
    first = seen[3]["facts"]
    cell = first["file"]
    assert cell.startswith("<ipython-input-3-") and first["line"] == 2  # the kernel's own cell and line
    assert first["became"]["source"][0].lstrip().startswith("tl.store") and first["became"]["ptx"]
    assert f'loc("{cell}":5' in first["ttir"] and "arith.mulf" in first["ttir"]  # Triton's locations: the cell
    assert any("mulf" in line for line in first["helper"]["ttir"])  # the helper, at its own cell's line 3
    assert first["named"] == [True, True]  # the view names the cell, and how to compile it from a file
    # the API says it as the view does: the variant's own command line names the cell's file, not on the disk
    assert first["reproduce"].startswith("the cells In[2] and In[3] saved as kernel.py in that order, after ")
    quoted = shlex.quote(first["file"])
    assert first["reproduce"].endswith(": " + first["command"].replace(quoted, "kernel.py", 1)), first
    assert first["by_label"]["source"] == ["    return x * SCALE"] and first["by_label"]["ttir"]  # the helper's cell
    assert first["outside"].startswith("line 99 of Cell In[3] made no code, and is outside the kernel")
    assert seen[4]["facts"]["same"] is True  # the magic's dump is the same compile
    assert "arith.addf" in seen[6]["facts"]["ttir"] and "arith.mulf" not in seen[6]["facts"]["ttir"]
    assert seen[8]["facts"] == {"constexprs": {"BLOCK": 128, "EVEN": True}, "warps": 8}  # config 1, heuristics run
    gluon = seen[10]["facts"]
    assert "ttir" not in gluon["stages"] and "ttgir" in gluon["stages"] and any("SHFL" in s for s in gluon["sass"])
    edited = seen[12]["facts"]["ttir"]
    assert "7.500000e+00" in edited and "tt.load" not in edited
    assert failed[16] == "CompileError: the compiler process crashed (SIGABRT)"
    fitted = seen[-1]["facts"]["fitted"]
    assert fitted.startswith("<Fit simple_kernel (Cell In[") and "ipython" not in fitted, fitted
    view = seen[-1]["facts"]["fitted_view"]  # its view too: it named the cell's file, which is not on the disk
    assert "simple_kernel (Cell In[12]): 1 config" in view and "ipython-input" not in view  # its cell edited: In[12]
    assert seen[17]["facts"]["after"].startswith("<Dump add_kernel on sm90:")
    assert seen[18]["facts"]["shown"] == [
        "Cell In[19], line 2: ts.dump(simple_kernel, BLOCK_SIZE=64, target='sm90', num_warp=2)",
        "UsageError: simple_kernel has no constexpr 'num_warp'. Constexprs: BLOCK_SIZE\n"
        "hint: did you mean num_warps=? (a keyword that is not an input is a constexpr)",
    ]
    said = seen[20]["facts"]["said"]
    assert said.startswith("Cell In[20], line 3: broken does not compile") and "undefined_name" in said, said
    refused = failed[14]
    assert refused.startswith("UsageError: Cell In[14], line 6: reads_a_tensor reads weights, a live Tensor")
    assert "hint: pass weights to the kernel as an argument" in refused
    assert " = tt.load " in seen[22]["facts"]["drawn"], seen[22]["facts"]["drawn"]


LAUNCHED = """import sys
from tritonscope.core.targets import named
from tritonscope.triton_api.simulated import activate
activate(named("sm90").simulated_device())  # Triton's own JIT compiles for an H100; nothing runs
import torch
import tritonscope as ts
sys.path.insert(0, sys.argv[1])
from vector_add import add_kernel
x = torch.ones(4096, device="cuda")
add_kernel[(4,)](x, x, x, 4096, BLOCK_SIZE=1024)
add_kernel[(16,)](x.half(), x.half(), x.half(), 4000, BLOCK_SIZE=256)
found = ts.launched(add_kernel)
seen = [[r.variant.constexprs, r.variant.signature, r.variant.hints, r.notices, r.stages["ptx"]] for r in found]
print(json.dumps(seen))
"""


def test_launched_reads_each_variant_triton_kept_without_recompiling(tmp_path):
    pytest.importorskip("torch")
    # A cache of its own: Triton's JIT keys a kernel by its text, and would bring back another
    # checkout's compile of the same sample, with that file's name in its locations.
    done = subprocess.run(
        [sys.executable, "-c", "import json\n" + LAUNCHED, str(ROOT / "sample_kernels")],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "TRITON_CACHE_DIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = json.loads(done.stdout.strip().splitlines()[-1])
    assert first[0] == {"BLOCK_SIZE": 1024} and first[1]["x_ptr"] == "*fp32" and first[2]["n_elements"] == "D"
    assert second[0] == {"BLOCK_SIZE": 256} and second[1]["x_ptr"] == "*fp16"
    assert all("not recompiled" in " ".join(notices) for notices in (first[3], second[3]))
    same = ROOT / "sample_kernels" / "vector_add.py"  # the file the child imported (sample: may be another copy)
    compiled = ts.dump(same, BLOCK_SIZE=1024, args={"n_elements": 4096}, target="sm90")
    assert first[4] == compiled.stages["ptx"]  # the same variant as a compile of it gives


def test_launched_of_a_kernel_never_launched_says_why_the_list_is_empty(tmp_path):
    source = tmp_path / "never.py"
    source.write_text(
        "import triton\n\n\n@triton.jit\ndef never_run(x):\n    pass\n\n\n"
        "@triton.heuristics({'B': lambda args: 64})\n@triton.autotune([triton.Config({})], key=[])\n@triton.jit\n"
        "def wrapped(x, B: triton.language.constexpr):\n    pass\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        from never import never_run, wrapped
    finally:
        sys.path.remove(str(tmp_path))
    why = "there is no GPU here to launch it on" if local_target() is None else "it has not been launched yet"
    for kernel, name in ((never_run, "never_run"), (wrapped, "wrapped")):  # a wrapper was `the kernel`
        with pytest.warns(UserWarning) as caught:
            assert ts.launched(kernel) == []
        (said,) = [str(w.message) for w in caught]
        assert said.startswith(f"{name} has launched nothing in this process ({why}): ts.dump({name}, ...)")
        assert caught[0].filename == __file__  # pointed at the caller's line, not tritonscope's


def test_launched_of_a_kernel_run_on_the_interpreter_says_so_not_that_it_never_ran(tmp_path):
    """Under TRITON_INTERPRET=1 the kernel ran (its output is right) and Triton kept no compile: the
    warning said it had launched nothing, for want of a GPU."""
    program = (
        "import os, warnings\nos.environ['TRITON_INTERPRET'] = '1'\n"
        "import torch, triton, triton.language as tl\nimport tritonscope as ts\n"
        "@triton.jit\ndef add_one(x_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)\n"
        "x = torch.zeros(128)\nadd_one[(1,)](x, BLOCK=128)\n"
        "with warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n"
        "    found = ts.launched(add_one)\nprint(found, float(x.sum()), str(caught[0].message))\n"
    )
    (tmp_path / "interpreted.py").write_text(program)  # Triton reads a kernel's source from its file
    done = subprocess.run(
        [sys.executable, str(tmp_path / "interpreted.py")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("[] 128.0 add_one runs on Triton's interpreter (TRITON_INTERPRET=1)"), done.stdout


def test_a_kernel_whose_file_was_edited_since_its_import_is_compiled_with_a_warning(tmp_path):
    source = tmp_path / "edited_kernels.py"
    source.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef scale(x_ptr, B: tl.constexpr):\n"
        "    offs = tl.arange(0, B)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        from edited_kernels import scale
    finally:
        sys.path.remove(str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # unchanged: no warning
        ts.dump(scale, B=128, args={"x_ptr": "*fp32"}, target="sm90")
    source.write_text(source.read_text().replace("* 2)", "* 3)"))
    with pytest.warns(UserWarning) as caught:
        edited = ts.dump(scale, B=128, args={"x_ptr": "*fp32"}, target="sm90")
    (said,) = [str(w.message) for w in caught]
    assert said.startswith("scale: edited_kernels.py has changed since it was imported; compiled from the file")
    assert "importlib.reload(edited_kernels)" in said and caught[0].filename == __file__
    assert "3.000000e+00" in edited.stages["ttir"]  # the file as it is now


SELF_EDITING = """import os, sys
import triton
import triton.language as tl
import tritonscope as ts

@triton.jit
def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

if __name__ == "__main__":
    if sys.argv[1] == "edit":
        with open(__file__) as f:
            text = f.read()
        with open(__file__, "w") as f:
            f.write(text.replace("mask=offs < n)", "mask=offs < n - 5)"))
    else:
        os.rename(__file__, __file__ + ".gone")
    try:
        ts.dump(add_kernel, BLOCK=256, target="sm90")
        print("compiled")
    except Exception as exc:  # tritonscope's UsageError
        print("refused:", type(exc).__name__, exc)
"""


def test_a_scripts_own_kernel_edited_or_deleted_under_it_is_said_so(tmp_path):
    """A script that defines its kernel in `__main__`, its file edited or moved away while it runs: the
    warning names a run of the script (not importlib.reload(__main__)), and a file gone is tritonscope's
    one-line refusal, not `OSError: could not get source code`."""
    script = tmp_path / "selfedit.py"
    for how in ("edit", "delete"):
        script.write_text(SELF_EDITING)
        done = subprocess.run([sys.executable, str(script), how], capture_output=True, text=True, timeout=300)
        if how == "edit":
            assert done.stdout.strip() == "compiled" and "run the script again to launch the new text" in done.stderr
        else:
            assert done.stdout.startswith(f"refused: UsageError add_kernel: its file {script} is not there any more"), (
                done
            )
        (tmp_path / "selfedit.py.gone").unlink(missing_ok=True)


def test_a_passes_view_shows_what_the_pass_shown_changed():
    """`ts.passes(..., show=PASS)` drew the pipeline and an empty "What each pass changed" (the tour's
    own cell): the pass's before and after are there now, its row marked; a dump view does not promise
    the per-line counts only explain's view has; each code line is a <pre> (nbconvert keeps its indent)."""
    shown = ts.passes("sample:matmul", target="sm90", show="tritongpu-pipeline")
    page = shown._repr_html_()
    index = next(p["index"] for p in shown.to_json()["passes"] if "diff" in p)
    assert f"<details open><summary>pass {index}: tritongpu-pipeline" in page
    assert '<table class="diff">' in page and "ttg.async_copy_global_to_local" in page
    assert f'<tr class="differs"><td>{index}</td>' in page
    # a long diff stops after 300 rows a stage, saying how many more (a matmul's SASS: 40,000 pixels)
    diffed = ts.diff("sample:matmul", target="sm90", vary={"num_warps": [4, 8]})._repr_html_()
    assert "more rows: .to_json() has the whole diff" in diffed and len(diffed) < 200_000
    dumped = ts.dump("sample:vector_add", target="sm90", stages="ptx")._repr_html_()
    assert "Beside each Python line" not in dumped and '<pre class="l" id="ptx-1"' in dumped
    assert "Beside each Python line" in ts.explain("sample:vector_add", target="sm90")._repr_html_()


@pytest.mark.gpu
def test_capture_and_launched_on_a_gpu():
    """On a GPU: the kernels a block launches, each read back from what Triton kept."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(ROOT / "sample_kernels"))
    from vector_add import add_kernel

    x = torch.ones(4096, device="cuda")
    with ts.capture() as cap:
        add_kernel[(4,)](x, x, x, 4096, BLOCK_SIZE=1024)
    (kernel,) = cap.kernels
    assert kernel.kernel.name == "add_kernel" and kernel.variant.constexprs == {"BLOCK_SIZE": 1024}
    assert "not recompiled" in " ".join(kernel.notices)
    assert any(r.variant.constexprs == {"BLOCK_SIZE": 1024} for r in ts.launched(add_kernel))


_BLOCKED = """
import importlib.abc, pkgutil, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("triton", "torch"):
            raise ImportError(f"blocked: {name}")
        return None

before = set(sys.modules)
import tritonscope
print(sorted(m for m in set(sys.modules) - before if m.startswith("tritonscope")))
sys.meta_path.insert(0, Blocked())
import tritonscope.api
for module in pkgutil.walk_packages(tritonscope.api.__path__, "tritonscope.api."):
    __import__(module.name)
r = tritonscope.dump("sample:vector_add", target="sm90", stages="ptx")
print(r.resources.registers, "ptx" in r.to_json()["stages"], type(r._repr_html_()).__name__)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("triton", "torch")))
"""


def test_the_api_imports_and_answers_with_triton_and_torch_blocked_in_its_process():
    """A front end (docs/architecture.md): its worker compiles, its own process never imports Triton
    for a path (a kernel object comes with Triton already imported); `import tritonscope` alone
    imports nothing of the API."""
    done = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    imported, answered, guarded = done.stdout.strip().splitlines()[-3:]
    assert imported == "['tritonscope']"
    registers, has_ptx, view = answered.split()
    assert int(registers) > 0 and has_ptx == "True" and view == "str" and guarded == "[]"


SCRIPT = """
import json

import triton
import triton.language as tl
import tritonscope as ts

with open(__file__ + ".runs", "a") as runs:  # each time this top level runs, in any process
    runs.write("ran\\n")


@triton.jit
def twice(x):
    return x * 2


@triton.jit
def add_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    tl.store(out_ptr + offsets, twice(tl.load(x_ptr + offsets, mask=mask)), mask=mask)


r = ts.dump(add_kernel, BLOCK_SIZE=1024, args={"x_ptr": "*fp16"}, target="sm90")
print(json.dumps([r.resources.registers, r.kernel.file, len(r.line(14)["sass"]), list(r.notices)]))
"""


def test_a_script_that_calls_the_api_unguarded_runs_once(tmp_path):
    """docs/api.md's first example saved as a script and run: the kernel (and its helper) cross to the
    compiling process as definitions, as a cell's do, so the script's top level (its ts.dump among it)
    is not run again there; it once started compiles without end and ran the machine out of memory."""
    script = tmp_path / "example.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    registers, file, stages, notices = json.loads(done.stdout.strip().splitlines()[-1])
    assert registers > 0 and file == str(script) and notices == []
    assert stages > 0  # the helper's line 14 has SASS of its own: the line maps name the script's lines
    assert (tmp_path / "example.py.runs").read_text() == "ran\n"


def test_the_command_line_on_such_a_script_refuses_its_api_call_and_says_where(tmp_path):
    """The command line imports the script to read its kernels: its top-level ts.dump is refused
    there (it would compile in a process that imports the script again), named by its line."""
    from tritonscope.app.walk.load import load_file

    script = tmp_path / "example.py"
    script.write_text(SCRIPT)
    try:
        said = " ".join(load_file(str(script)).notices)  # with torch: the import goes on past the call
    except TritonscopeError as exc:  # without torch: the import's failure is the news
        said = str(exc)
    assert f"{script}:24: calls tritonscope's Python API at import" in said
    assert '`if __name__ == "__main__":`' in said
    # run here only: as it is, then (with torch) against the simulated GPU; no compile imported it again
    assert (tmp_path / "example.py.runs").read_text() in ("ran\n", "ran\nran\n")


INTERPRETED = """
import json, os
os.environ["TRITON_INTERPRET"] = "1"  # as the study notes run kernels on the CPU
import torch, triton, triton.language as tl
import tritonscope as ts

@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

if __name__ == "__main__":
    x, out = torch.arange(8.0), torch.empty(8)
    double[(1,)](x, out, 8, BLOCK=8)
    r = ts.dump(double, BLOCK=256, target="sm90")
    print(json.dumps([out.tolist(), type(double).__name__, r.resources.registers, "STG" in r.stages["sass"]]))
"""


def test_a_kernel_defined_under_triton_interpret_is_compiled_as_its_jit_function(tmp_path):
    """Under TRITON_INTERPRET=1 @triton.jit gives an InterpretedFunction: the API takes it as the
    JITFunction it would have been, and its compiling process runs without the interpreter."""
    pytest.importorskip("torch")
    script = tmp_path / "interpreted.py"
    script.write_text(INTERPRETED)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    values, kind, registers, stores = json.loads(done.stdout.strip().splitlines()[-1])
    assert values == [2.0 * i for i in range(8)] and kind == "InterpretedFunction" and registers > 0 and stores


def test_the_command_line_compiles_with_triton_interpret_set_in_the_shell(tmp_path):
    """A learner who exported TRITON_INTERPRET=1 gets the kernels compiled (they were "no @triton.jit
    kernels found"), with a note that it is unset for the run."""
    done = tritonscope("list", "sample:vector_add", "-t", "sm90", env={"TRITON_INTERPRET": "1"})
    assert "add_kernel" in done.stdout and "TRITON_INTERPRET is set" in done.stderr


def test_a_default_view_leaves_out_a_large_llvm_ir_and_says_how_to_see_it():
    """A notebook keeps its outputs: matmul's view was 2.8 MB, 2 of them LLVM IR."""
    default = ts.dump("sample:matmul", target="sm90")
    view = default._repr_html_()
    assert "LLVM IR (" in view and "is left out of this view" in view and len(view) < 1_500_000
    assert default.stages["llir"]  # the result holds it all the same
    named = ts.dump("sample:matmul", target="sm90", stages=["llir"])._repr_html_()
    assert "left out" not in named and len(named) > 1_000_000
    # any stage of a huge kernel too: an FMA matmul on sm75 unrolls to 35,000 SASS lines (a view of 3 MB)
    huge = ts.dump("sample:matmul_autotune", target="sm75", config=0)._repr_html_()
    assert "PTX (" in huge and "SASS (" in huge and "are left out of this view" in huge and len(huge) < 500_000


def test_a_views_hints_say_the_apis_keywords_and_the_magics_the_flags():
    """A learner in a notebook was told `give -a x_ptr='*fp16' or --dtype`, flags a Python call does not
    take; the line that reproduces the compile stays a command line, and the magic's view keeps its flags."""
    r = ts.explain("sample:vector_add", target="sm90")
    view = html.unescape(r._repr_html_())
    assert "give args={'x_ptr': '*fp16'} or dtype=...)" in view and "-a x_ptr=" not in view.split("reproduce")[0]
    assert "tritonscope dump " in view and " -a 'x_ptr=*fp32'" in view  # reproduce: a command line still
    r.in_flags = True  # as the magic returns it
    assert "give -a x_ptr='*fp16' or --dtype" in html.unescape(r._repr_html_())
    # a finding's own words, read off the result, are the API's too, flags side by side one dict
    softmax = ts.explain("sample:softmax", target="sm90", args={"input_row_stride": "i32", "n_cols": "i32"})
    narrow = next(f for f in softmax.findings if f.kind == "narrow-global-access")
    assert "args={'input_row_stride': VALUE, 'n_cols': VALUE}" in narrow.suggestion, narrow.suggestion
    assert " -a " not in narrow.suggestion + narrow.verified
    # the layout view's hint: ts.layout's keywords
    listed = html.unescape(ts.layout("sample:softmax", target="sm90")._repr_html_())
    assert "value=NAME" in listed and "--value" not in listed
    # the magic says its flags, though the API function it calls said its keywords first
    from IPython.core.error import UsageError as Said

    from tritonscope.api.magic import run

    with pytest.raises(Said, match=r"needs a value for constexpr BLOCK \(give it: -c BLOCK=\.\.\.\)"):
        run(f"dump {ROOT / 'tests' / 'kernels' / 'mixed.py'} -k scale_kernel -t sm90", {})


def test_trace_takes_a_command_as_a_str_and_says_a_failed_program_in_its_own_words(tmp_path):
    """`ts.trace("python -c pass")` ran `p` (the str's first character); a failed program's `-c` was said
    as `constexprs`, and a folder never written as the one its kernels were captured into."""
    quiet = ts.trace(f"{shlex.quote(sys.executable)} -c pass", target="sm90", out=tmp_path / "quiet")
    assert repr(quiet).startswith("<Trace 0 kernels into ")
    with pytest.raises(Exception) as failed:
        ts.trace([sys.executable, "-c", "import sys; sys.exit(5)"], target="sm90", out=tmp_path / "fails")
    assert f"{sys.executable} -c import sys; sys.exit(5) exited with 5 (nothing written)" in str(failed.value)
    with pytest.raises(Exception, match="time_limit=0, launches=3: a time limit over 0 s"):
        ts.trace("python x.py", time_limit=0)
    with pytest.raises(Exception, match=r"^timeout=-1: a time limit is a number of seconds over 0"):
        ts.dump("sample:vector_add", target="sm90", timeout=-1)
    with pytest.raises(Exception, match=r"give vary=\{'NAME': \[V1, V2\]\} \(or configs\)"):  # not vary=NAME=V1,V2
        ts.diff("sample:vector_add", target="sm90", vary={"BLOCK_SIZE": [256]})
    with pytest.raises(Exception, match=r"^config=-1: matmul_kernel has 8 autotune configs"):  # not `config=... -1`
        ts.dump("sample:matmul_autotune", config=-1, target="sm90")
    with pytest.raises(Exception, match=r"directory is not empty \(use replace=True"):
        ts.trace(f"{shlex.quote(sys.executable)} -c pass", target="sm90", out=tmp_path / "quiet")


def test_fit_takes_one_budget_and_targets_as_strs_and_refuses_a_grid_as_the_command_line():
    """`budgets="spills=0"` was read letter by letter (`got 's'`), `targets="sm80,sm90"` was one unknown
    target with a hint said as `target='takes' one`, and a grid naming no argument was a note in each
    cell where the command line exits 2."""
    r = ts.fit("sample:vector_add", targets="sm80,sm90", budgets="spills=0")
    assert r.kernels[0].targets == ("sm80", "sm90") and r.to_json()["budgets"] == ["spills=0"]
    with pytest.raises(Exception, match=r"^grid n // 0 names what is not an argument or constexpr"):
        ts.fit("sample:vector_add", targets="sm90", rank=True, grid="n // 0")
    with pytest.raises(Exception) as unknown:
        ts.fit("sample:vector_add", targets="sm80,sm91")
    assert "unknown target 'sm91'" in str(unknown.value) and "target='takes'" not in str(unknown.value)
    # a column named as the fit was asked: h100 is sm90's (it was "not a target of this fit", h19d)
    assert r.kernels[0].column("h100") == r.kernels[0].column("sm90") and len(r.kernels[0].column("a100")) == 1


def test_a_tensor_given_as_a_constexpr_is_refused_before_triton_compiles():
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception, match=r"^BLOCK_SIZE=Tensor: a constexpr is a value known at compile time"):
        ts.dump("sample:vector_add", BLOCK_SIZE=torch.zeros(4), target="sm90")


def test_a_call_past_its_timeout_raises_timed_out_with_the_hint_to_give_it_longer(tmp_path):
    """A compile past `timeout=` was a plain UsageError naming tritonscope's own function, with no hint."""
    from tritonscope.core.errors import TimedOut

    kernel = tmp_path / "slow.py"
    kernel.write_text(
        "import time\nimport triton\nimport triton.language as tl\n\n"
        "@triton.heuristics({'B': lambda args: time.sleep(30) or 64})\n@triton.jit\n"
        "def slow(x_ptr, B: tl.constexpr):\n    tl.store(x_ptr + tl.arange(0, B), 1.0)\n"
    )
    with pytest.raises(TimedOut) as raised:
        ts.dump(kernel, target="sm90", timeout=3)
    said = str(raised.value)
    assert said.startswith("timed out after 3 s (stuck at ") and "slow.py:5)" in said, said
    assert said.endswith("\nhint: give it longer: timeout=SECONDS") and isinstance(raised.value, UsageError)


def test_explain_takes_a_grid_and_its_view_names_the_keyword_to_give_it():
    """The notebook's fit and explain views said `give grid_size=(X, Y, Z)`, ts.grid's keyword, which
    ts.fit refused as a constexpr (h19d); ts.explain took no grid at all."""
    file = str(ROOT / "tests" / "kernels" / "cross_entropy_rows.py")  # no grid(meta)
    bare = ts.explain(file, target="sm90", what_if=False)
    view = html.unescape(bare._repr_html_())
    assert 'give grid="X, Y, Z"' in view and "grid_size" not in view
    assert view.index("<h2>where the time goes</h2>") > view.index("</header>")  # the time model, below the header
    timed = ts.explain(file, target="sm90", what_if=False, grid="64")
    assert timed.to_json()["time"]["launch"]["grid"] == [64, 1, 1]


class _Settings:  # a class of the caller's own, as a notebook cell defines one
    block = 64


def test_a_constexpr_the_compiles_process_cannot_be_given_is_refused_by_name(monkeypatch):
    """A lambda, or an object of a class a notebook cell defines, given as a constexpr ended the compile's
    process: "exited with code 1 without a result", or a raw PicklingError (h19d)."""
    with pytest.raises(UsageError, match=r"BLOCK_SIZE=<function .*cannot be sent to \((Pickling|Attribute)Error"):
        ts.dump("sample:vector_add", BLOCK_SIZE=lambda: 64, target="sm90")
    monkeypatch.setattr(_Settings, "__module__", "__main__")
    with pytest.raises(UsageError, match="an object of a class the notebook \\(or script\\) defines, _Settings"):
        ts.dump("sample:vector_add", BLOCK_SIZE=_Settings(), target="sm90")


def test_a_long_first_line_is_shortened_between_operands_in_a_results_repr():
    """`<Layout ... inputPrecision =>`: the repr took the first line of a view folded at 110 columns,
    cut inside an attribute, which read as broken IR (h24a)."""
    import tritonscope as ts

    said = repr(ts.layout("sample:matmul", line=35, target="sm80"))
    assert said.startswith("<Layout Python line 35, TTGIR line ") and said.endswith(" …>"), said
    assert "tt.dot" in said and not said.removesuffix(" …>").endswith(("=", "<", "{")), said
    assert len(said) <= 120, said
