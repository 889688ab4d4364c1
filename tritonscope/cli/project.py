"""The `check` entries of a project's pyproject.toml, read once into typed entries.

[tool.tritonscope]
budgets = ["spills=0"]                   # for every entry (optional)

[[tool.tritonscope.check]]
file = "kernels/add.py"                  # relative to the pyproject.toml, or sample:NAME
kernel = "add_kernel"                    # optional, as -k
flags = "-a n_elements=4096 -t sm90"     # variant flags, a string or a list
budgets = ["global_load_bits>=128", "registers<=64"]
baseline = "baselines/add.json"          # optional: a saved `dump --json`
name = "add, 4096"                       # optional: how reports name it
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..core.errors import UsageError
from ..core.model import CheckEntry
from ..core.samples import PREFIX
from . import argtypes
from .options import request_from_words

KEYS = ("file", "kernel", "flags", "budgets", "baseline", "name")
EXAMPLE = '[[tool.tritonscope.check]]\nfile = "kernels/add.py"\nflags = "-a n=4096"\nbudgets = ["spills=0"]'


def _toml(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise UsageError("reading pyproject.toml needs Python 3.11, or `pip install tomli`") from None
    try:
        return tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None


def entries(path: Path) -> list[CheckEntry]:
    if not path.is_file():
        raise UsageError(f"no FILE given and no {path} here", hint="give a kernel FILE, or --project pyproject.toml")
    table = _toml(path).get("tool", {}).get("tritonscope", {})
    items = table.get("check") if isinstance(table, dict) else None
    if not isinstance(items, list) or not items:
        raise UsageError(f"{path} has no [[tool.tritonscope.check]] entries", hint=f"for example:\n{EXAMPLE}")
    common = table.get("budgets", [])
    return [_entry(path, index, item, common) for index, item in enumerate(items, start=1)]


def _entry(path: Path, index: int, item, common: list) -> CheckEntry:
    where = f"{path.name} [[tool.tritonscope.check]] #{index}"
    if not isinstance(item, dict) or not isinstance(item.get("file"), str):
        raise UsageError(f'{where}: an entry needs file = "path/to/kernels.py"')
    unknown = sorted(set(item) - set(KEYS))
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)}; keys: {', '.join(KEYS)}")
    flags = item.get("flags", [])
    words = shlex.split(flags) if isinstance(flags, str) else [str(word) for word in flags]
    if item.get("kernel"):
        words = ["-k", str(item["kernel"]), *words]
    file = item["file"] if item["file"].startswith(PREFIX) else str(path.parent / item["file"])
    budgets = argtypes.budgets([*common, *item.get("budgets", [])], f"{where}: budget")
    baseline = str(path.parent / item["baseline"]) if item.get("baseline") else None
    name = str(item.get("name") or " ".join([item["file"], *words]))
    return CheckEntry(name, request_from_words(file, words, where), budgets, baseline)
