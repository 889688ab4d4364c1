"""What the explorer's title and status lines and its resource panel say of a variant, as text:
its values in one phrase, what changed against the variant before, its figures. Textual-free."""

from __future__ import annotations

import textwrap

from rich.text import Text

from ..core.model import VariantRequest
from ..core.quantities import count, percentage, size
from ..results.explore import ExploreResult

Row = tuple[str, str, str, str]  # a resource figure: (what, value, its change or "", its meaning)
ONE_LINE = 70  # columns from which the panel writes each figure's meaning beside it, not beneath


def describe_request(request: VariantRequest) -> str:
    """A request being compiled, as the status line names it: the kernel and the values given."""
    changed = [f"{k}={v}" for k, v in (*request.constexprs, *request.args)]
    changed += [f"{k}={v}" for k, v in request.options.items()]
    return " ".join([request.kernel or request.file, *changed, request.target if request.target != "auto" else ""])


def describe(result: ExploreResult) -> str:
    """A variant in one phrase: its constexprs, warps and stages, target, Triton release."""
    return ", ".join(_word(name, value) for name, value in _values(result).items())


def change(result: ExploreResult, before: ExploreResult) -> str:
    """What differs from `before`, as `BLOCK_SIZE_N=64 (was 128)`; empty when nothing does (a save)."""
    now, then = _values(result), _values(before)
    words = [
        _word(name, value) + (f" (was {then[name]})" if name in then else "")
        for name, value in now.items()
        if then.get(name) != value
    ]
    return ", ".join(words + [f"no {name} (was {value})" for name, value in then.items() if name not in now])


def _values(result: ExploreResult) -> dict[str, str]:
    v, options = result.compilation.variant, result.compilation.options
    values = {name: str(value) for name, value in v.constexprs.items()}
    values |= {name: str(options[name]) for name in ("num_warps", "num_stages") if options.get(name) is not None}
    values["target"] = v.target
    if result.request.triton:
        values["triton"] = result.request.triton
    return values


def _word(name: str, value: str) -> str:
    """One value as the status line writes it: `BLOCK_SIZE=256`, `sm90`, `triton 3.5.1`."""
    return value if name == "target" else f"triton {value}" if name == "triton" else f"{name}={value}"


def fit(text: str, width: int) -> str:
    """`text` in `width` columns, its end cut with an ellipsis where longer: what matters comes first."""
    return text if len(text) <= width else text[: max(width - 1, 0)].rstrip(" ,·;") + "…"


def titles(result: ExploreResult) -> tuple[str, str]:
    """The kernel and its figures in one line: short enough for 80 columns, and the wide form."""
    c = result.compilation
    r = c.resources
    words = c.variant.target_info.vendor.words
    shared = size(r.shared_bytes)
    if result.partial:
        said = f"{c.kernel.name} · {c.variant.target} · Triton is making its stages…"
        return said, said
    if result.early:
        said = f"{c.kernel.name} · {c.variant.target} · Triton's stages · ptxas is making the binary…"
        return said, said
    narrow = (
        f"{c.kernel.name} · {c.variant.target} · {r.registers} regs · {count(r.spills, 'spill')} · {shared} shared · "
        f"occupancy {percentage(r.occupancy.percent)}"
    )
    wide = (
        f"{c.kernel.name} · {c.variant.target} · Triton {c.triton_version} · {r.registers} {words.registers} · "
        f"{count(r.spills, 'spill')} · {shared} {words.shared} · occupancy {percentage(r.occupancy.percent)}"
    )
    return narrow, wide


def resource_text(rows: tuple[Row, ...], width: int) -> Text:
    """Each figure, its change against the previous variant, and what it means: beneath it, or beside
    it from ONE_LINE columns (the panel taking the screen at 80 columns: room for the findings), folded
    under itself where longer. The values' column is as wide as the widest (`1,040 B (1.016 KiB)`)."""
    text = Text()
    values = max((len(value) for _, value, _, _ in rows), default=0)
    column = max(12, values if 14 + values + 16 <= width else 12)
    for name, value, changed, meaning in rows:
        text.append(f"{name:<14}", "bold")
        text.append(f"{value:>{column}}")
        if changed:
            text.append(f"  {changed}", "bold yellow")
        if width >= ONE_LINE:
            used = 14 + max(column, len(value)) + (len(changed) + 2 if changed else 0) + 2
            folded = textwrap.wrap(meaning, max(width - used, 12)) or [""]
            text.append(f"  {folded[0]}\n" + "".join(f"{' ' * used}{line}\n" for line in folded[1:]), "dim")
        else:
            text.append(f"\n  {meaning}\n", "dim")
    return text
