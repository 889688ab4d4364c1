"""The bundled sample kernels: where they are and what they hold, read without importing them."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .errors import KernelFileError
from .pysource import called_functions, is_kernel_def


@dataclass(frozen=True)
class Sample:
    name: str
    path: Path
    kernels: tuple[str, ...]
    description: str


def samples_dir() -> Path:
    try:
        return Path(str(resources.files("tritonscope.sample_kernels")))
    except ModuleNotFoundError:
        # Running from a source checkout that was never installed (PYTHONPATH=.).
        return Path(__file__).resolve().parents[2] / "sample_kernels"


def all_samples() -> list[Sample]:
    return [_describe(path) for path in sorted(samples_dir().glob("*.py")) if not path.name.startswith("_")]


def sample_path(name: str) -> Path:
    path = samples_dir() / f"{name}.py"
    if name.startswith("_") or not path.is_file():
        known = [s.name for s in all_samples()]
        close = difflib.get_close_matches(name.replace("_", "").lower(), known, n=1, cutoff=0.7)
        hint = f"did you mean sample:{close[0]}?" if close else None  # layer_norm: the sample is layernorm
        raise KernelFileError(f"no sample named '{name}'. Samples: {', '.join(known)}", hint=hint)
    return path


def _describe(path: Path) -> Sample:
    tree = ast.parse(path.read_text(), filename=str(path))
    jitted = {node.name: node for node in tree.body if is_kernel_def(node)}
    helpers = set().union(*(called_functions(node, set(jitted) - {name}) for name, node in jitted.items()))
    kernels = tuple(name for name in jitted if name not in helpers)
    return Sample(path.stem, path, kernels, first_sentence(ast.get_docstring(tree) or ""))


def first_sentence(doc: str) -> str:
    """A docstring's first sentence, whole however many lines it spans: its first paragraph up to
    the first full stop that ends a sentence (one followed by a space or the paragraph's end)."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    end = next((i + 1 for i, c in enumerate(paragraph) if c == "." and paragraph[i + 1 : i + 2] in ("", " ")), None)
    return paragraph[:end] if end else paragraph
