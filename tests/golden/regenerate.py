"""The golden terminal views: `dump` and `explain` of three samples for sm90, drawn at 80
columns without colour, kept whole in tests/golden/*.txt (as rich's own tests keep theirs),
so that a change to a view shows in review as a change to these files.

    python tests/golden/regenerate.py     # after a deliberate change to a view: rewrite them

They hold nothing of this machine and nothing that varies between runs: the kernel file is
named `sample_kernels/NAME.py` wherever the checkout is, and the compile is said to take
0.00 s, uncached, with no stage times. The sample is compiled from a copy at one fixed path (PLACE), not from the
checkout: the PTX spells the kernel file's path in its debug strings, split over lines by
length, so a checkout's path would change the PTX's line count. What Triton emits differs
between releases, so they are made with, and compared under, the release named in VERSION only.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run as a script from a checkout

from tritonscope.app.explain import explain_compilation  # noqa: E402
from tritonscope.app.walk.prepare import compile_request  # noqa: E402
from tritonscope.core.model import Compilation, VariantRequest  # noqa: E402
from tritonscope.core.samples import sample_path  # noqa: E402
from tritonscope.render.registry import renderer  # noqa: E402
from tritonscope.results.dump import DumpResult  # noqa: E402
from tritonscope.results.explain import ExplainResult  # noqa: E402

SAMPLES = ("vector_add", "softmax", "matmul")
TARGET = "sm90"
WIDTH = 80
VERSION = HERE / "VERSION"  # the Triton release the views were made with
# Where the samples are compiled from: the same path on every machine and checkout (Triton runs
# on Linux only, so /tmp is there; not tempfile.gettempdir(), which follows $TMPDIR).
PLACE = Path("/tmp/tritonscope-golden/sample_kernels")


def placed(name: str) -> Path:
    """A copy of the sample at PLACE, written whole (a run beside this one may be reading it)."""
    source, copy = sample_path(name).read_text(), PLACE / f"{name}.py"
    if not copy.is_file() or copy.read_text() != source:
        PLACE.mkdir(parents=True, exist_ok=True)
        part = copy.with_name(f".{name}.{os.getpid()}.part")
        part.write_text(source)
        os.replace(part, copy)
    return copy


def placeless(c: Compilation, name: str, real: str) -> Compilation:
    """The compilation of the copy at `real` as if it were `sample:NAME`, in `sample_kernels/NAME.py`,
    compiled in no time."""
    shown = f"sample_kernels/{name}.py"

    def moved(where: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
        return tuple((shown if file == real else file, line) for file, line in where)

    return dataclasses.replace(
        c,
        kernel=dataclasses.replace(c.kernel, file=shown if c.kernel.file == real else c.kernel.file),
        variant=dataclasses.replace(c.variant, file=f"sample:{name}"),
        stages={stage: text.replace(real, shown) for stage, text in c.stages.items()},
        line_map={s: {n: moved(where) for n, where in lines.items()} for s, lines in c.line_map.items()},
        remarks=tuple(dataclasses.replace(r, locations=moved(r.locations)) for r in c.remarks),
        compile_seconds=0.0,
        stage_seconds=(),  # measured only when Triton compiled it here, not read from the cache
        cache_hit=False,
        notices=(),
    )


def views() -> dict[str, str]:
    """File name -> the view, drawn now."""
    drawn = {}
    for name in SAMPLES:
        copy = str(placed(name))
        c = placeless(compile_request(VariantRequest(copy, target=TARGET)), name, copy)
        drawn[f"dump-{name}.txt"] = _drawn(DumpResult(c, tuple(c.stages)))
        explained = explain_compilation(c, None, live=False)  # no what-ifs, no nvdisasm: the compile's own
        drawn[f"explain-{name}.txt"] = _drawn(dataclasses.replace(explained, notes=()))
    return drawn


def _drawn(result: DumpResult | ExplainResult) -> str:
    return renderer(type(result), "terminal", width=WIDTH, color=False).render(result)


def main() -> None:
    import triton

    for old in HERE.glob("*.txt"):
        old.unlink()
    for name, text in views().items():
        (HERE / name).write_text(text)
    VERSION.write_text(triton.__version__ + "\n")
    print(f"wrote {len(SAMPLES) * 2} views for Triton {triton.__version__} into {HERE}")


if __name__ == "__main__":
    main()
