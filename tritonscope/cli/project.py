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

from ..core import fileio
from ..core.errors import UsageError
from ..core.model import CheckEntry
from ..core.quantities import plural
from ..core.source import in_folder
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
        return tomllib.loads(fileio.read_input_text(path))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8") from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to read") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None


def entries(path: Path) -> list[CheckEntry]:
    if not path.exists():
        raise UsageError(f"no FILE given and no {path} here", hint="give a kernel FILE, or --project pyproject.toml")
    tool = _typed(path.name, "tool", _toml(path).get("tool", {}), dict)
    table = _typed(path.name, "tool.tritonscope", tool.get("tritonscope", {}), dict)
    items = table.get("check")
    if not isinstance(items, list) or not items:
        raise UsageError(f"{path} has no [[tool.tritonscope.check]] entries", hint=f"for example:\n{EXAMPLE}")
    common = _strings(f"{path.name} [tool.tritonscope]", "budgets", table.get("budgets", []))
    return [_entry(path, index, item, common) for index, item in enumerate(items, start=1)]


def _entry(path: Path, index: int, item, common: list) -> CheckEntry:
    where = f"{path.name} [[tool.tritonscope.check]] #{index}"
    if not isinstance(item, dict) or not isinstance(item.get("file"), str):
        raise UsageError(f'{where}: an entry needs file = "path/to/kernels.py"')
    unknown = sorted(set(item) - set(KEYS))
    if unknown:
        keys = plural(len(unknown), "key")
        raise UsageError(f"{where}: unknown {keys} {', '.join(unknown)}; keys: {', '.join(KEYS)}")
    words = _flags(where, item.get("flags", []))
    for key in ("kernel", "baseline", "name"):
        _typed(where, key, item.get(key, ""), str)
    if item.get("kernel"):
        words = ["-k", item["kernel"], *words]
    file = in_folder(item["file"], path.parent)
    budgets = argtypes.budgets([*common, *_strings(where, "budgets", item.get("budgets", []))], f"{where}: budget")
    baseline = str(path.parent / item["baseline"]) if item.get("baseline") else None
    name = item.get("name") or " ".join([item["file"], *words])
    return CheckEntry(name, request_from_words(file, words, where), budgets, baseline)


def _typed(where: str, key: str, value, kind: type):
    """`value` when it is of `kind`, else a usage error naming the key and the type wanted."""
    if not isinstance(value, kind):
        names: dict[type, str] = {dict: "a table", str: "a string", list: "a list"}
        wanted = names[kind]
        raise UsageError(f"{where}: `{key}` must be {wanted}, not {type(value).__name__} ({str(value)[:60]})")
    return value


def _strings(where: str, key: str, value) -> list[str]:
    """A list of strings (budgets, flags), or a usage error naming the key."""
    items = _typed(where, key, value, list)
    if not all(isinstance(item, str) for item in items):
        raise UsageError(f'{where}: `{key}` must be a list of strings, such as ["spills=0"]')
    return items


def _flags(where: str, flags) -> list[str]:
    """An entry's variant flags: one string split as a shell does, or a list of strings."""
    if not isinstance(flags, str):
        return _strings(where, "flags", flags)
    try:
        return shlex.split(flags)
    except ValueError as exc:  # an unbalanced quote
        raise UsageError(f"{where}: `flags` cannot be split into words: {exc}: {flags!r}") from None
