"""--help's text at any width: click fills each paragraph to the terminal, breaking words at their
hyphens, so at 80 columns an example came out as `--update-` / `baseline`, and its second line
read as prose. Here no word is broken (an option, a path, `'line 35 <= 60%'` stay whole) and an
example's further lines are indented under its `tritonscope`, as a shell's continued line reads.
A paragraph's rules are click's own otherwise: one that starts with a `\\b` line is not refilled.
"""

from __future__ import annotations

import re
import textwrap

from typer.core import TyperCommand, TyperGroup

_Context = TyperCommand.context_class  # typer's own click (vendored in newer typer), whichever it is
EXAMPLE = "tritonscope "
CONTINUED = "    "  # an example's further lines, past its first


def wrapped(text: str, width: int, indent: str) -> str:
    """`text` in paragraphs (blank lines apart; each keeps its own indent) filled to `width`."""
    paragraphs: list[tuple[str, bool, str]] = []  # (its indent, kept as written, its text)
    for block in _blocks(text.expandtabs()):
        own = indent + " " * (len(block[0]) - len(block[0].lstrip()))
        if block[0].strip() == "\b":
            paragraphs.append((indent, True, "\n".join(block[1:])))
        else:
            paragraphs.append((own, False, " ".join(line.strip() for line in block)))
    out = []
    for own, kept, body in paragraphs:
        if kept:
            out.append("\n".join(indent + line for line in body.splitlines()))
            continue
        example = body.startswith(EXAMPLE)
        further = own + (CONTINUED if example else "")
        out.append(
            textwrap.fill(
                _held_together(body) if example else body,
                max(width, len(own) + 20),
                initial_indent=own,
                subsequent_indent=further,
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
    return "\n\n".join(out).replace(_KEPT, " ")


_KEPT = "\u00a0"  # a space textwrap does not break at, put back as a space once filled


def _held_together(example: str) -> str:
    """An example whose flags keep their values (`-w 8`, `--dtype fp16`) and whose comment in parentheses
    keeps its words on one line when it is folded."""
    example = re.sub(r"\(([^()]*)\)", lambda m: "(" + m.group(1).replace(" ", _KEPT) + ")", example)
    return re.sub(r"(?<!\S)(-{1,2}[\w-]+) (?=[^-\s])", lambda m: m.group(1) + _KEPT, example)


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block]


class HelpFormatter(_Context.formatter_class):  # type: ignore[name-defined, misc]
    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        """Usage as click writes it (`dump [OPTIONS] FILE`): newer typer puts a required argument
        in braces (`{FILE}`), which reads as a set to choose from."""
        super().write_usage(prog, re.sub(r"\{([^{}]*)\}", r"\1", args), prefix)

    def write_text(self, text: str) -> None:
        self.write(wrapped(text, self.width, " " * self.current_indent))
        self.write("\n")


class HelpContext(_Context):  # type: ignore[valid-type, misc]
    formatter_class = HelpFormatter


class Command(TyperCommand):
    context_class = HelpContext


class Group(TyperGroup):
    context_class = HelpContext

    def format_commands(self, ctx, formatter) -> None:
        """Each command with the first sentence of its help whole, wrapped beside its name (click cuts
        it at the terminal's edge with `...`)."""
        rows = [
            (name, command.get_short_help_str(limit=400))
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def format_epilog(self, ctx, formatter) -> None:
        formatter.write_paragraph()
        formatter.write("Examples:\n")
        for example in EXAMPLES:
            formatter.write(f"  {example}\n")


# What `tritonscope --help` ends with: a first run of the main commands on a bundled sample.
EXAMPLES = (
    "tritonscope samples",
    "tritonscope dump sample:vector_add --stage sass",
    "tritonscope explain sample:softmax --target sm90",
    "tritonscope diff sample:matmul --vary BLOCK_SIZE_K=32,64",
    "tritonscope fit sample:matmul_autotune --rank",
    "tritonscope trace --target h100 -o cap/ -- python train.py",
    "tritonscope COMMAND --help          (each command's options, with examples)",
)
