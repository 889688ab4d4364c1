"""The parsers' own error: a foreign text or binary that does not read as its format says.

Parsers sit below the rest of tritonscope and import none of it, so they raise this rather than
tritonscope's errors (core/errors.py). Where analysis/ reads a compile's artifacts through them
(analysis/artifacts.py's resources, analysis/scoreboards.py's control codes), a ParseError becomes
a TritonscopeError with the same message: exit 2, no traceback.
"""

from __future__ import annotations


class ParseError(Exception):
    """What is wrong with the input, in words meant for the user (the message is shown as it is)."""
