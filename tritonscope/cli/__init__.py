"""The command line: typer app (runner.py), value parsing (argtypes.py), one module per command."""

from . import commands  # noqa: F401 - registers every command on the app
from .runner import app, main

__all__ = ["app", "main"]
