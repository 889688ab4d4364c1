"""What every result is: the base class of every command's result."""

from __future__ import annotations

from typing import ClassVar

from ..core.status import ExitStatus


class Result:
    """A command's result: its JSON document's `kind` (docs/json-schema.md) and the exit status the
    command ends with. Success unless a result that can fail says otherwise (a budget broke, a
    variant did not compile, a traced program's own status)."""

    kind: ClassVar[str]

    def __init_subclass__(cls, **settings) -> None:
        super().__init_subclass__(**settings)
        if not isinstance(getattr(cls, "kind", None), str):
            raise TypeError(f"{cls.__name__} names no `kind`: its JSON document's, as docs/json-schema.md says")

    @property
    def exit_status(self) -> int:
        return ExitStatus.SUCCESS
