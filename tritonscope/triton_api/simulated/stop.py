"""Reading a value from the simulated GPU stops the program with one line, and the capture is kept.

A simulated GPU holds no values: `.item()`, printing a tensor, `.cpu()`, `.tolist()`, `.numpy()`
or a Python branch on a tensor's value cannot be answered. When the program's own code (not
torch's or Triton's, which read values of their own fake tensors legitimately) asks for one,
the process writes one line naming the program's file and line and what it asked, and exits
with STOPPED_EXIT at once: every compile and launch recorded so far is already on disk, each
written by a single append.
"""

from __future__ import annotations

import json
import os
import sys

STOPPED_EXIT = 75  # `trace` turns it into its documented exit code and message

_ASKS = {
    "item": ".item()",
    "tolist": ".tolist()",
    "numpy": ".numpy()",
    "cpu": ".cpu()",
    "__repr__": "printing a tensor",
    "__str__": "printing a tensor",
    "__format__": "formatting a tensor",
    "__bool__": "a Python branch on a tensor's value",
    "__float__": "float() of a tensor",
    "__int__": "int() of a tensor",
    "__array__": "a NumPy array of a tensor",
}


def _library_folders() -> tuple[str, ...]:
    import importlib.util

    folders = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # tritonscope
    for name in ("torch", "triton", "numpy", "functorch"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.append(os.path.dirname(list(spec.submodule_search_locations)[0]) + os.sep + name)
    return tuple(folders)


def _program_frame(folders: tuple[str, ...]):
    """The frame of the program's own code that asked, or None when torch or Triton asked."""
    frame = sys._getframe(2)
    filename = os.path.abspath(frame.f_code.co_filename)
    if filename.startswith(folders) or frame.f_code.co_filename.startswith("<frozen"):
        return None
    return frame


def stop(frame, asked: str) -> None:
    """One line on stderr, then exit at once (no clean-up that could hang on a fake device)."""
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    sys.stdout.flush()
    record = os.environ.get("TRITONSCOPE_STOPPED")
    if record:  # for `trace`, which says it in its own words
        with open(record, "w") as handle:
            json.dump({"where": where, "asked": asked}, handle)
    else:
        sys.stderr.write(f"stopped at {where}: the program asked for {asked}; a simulated GPU holds no values\n")
        sys.stderr.flush()
    os._exit(STOPPED_EXIT)


def _wrap(original, asked: str, folders: tuple[str, ...]):
    def method(self, *args, **kwargs):
        # every tensor is fake (CPU ones too, made under the same mode): none holds a value
        if _is_fake(self) and not (asked == ".cpu()" and self.device.type == "cpu"):
            frame = _program_frame(folders)
            if frame is not None:
                stop(frame, asked)
        return original(self, *args, **kwargs)

    method.__wrapped__ = original
    return method


def _is_fake(tensor) -> bool:
    return "Fake" in type(tensor).__name__


def install() -> None:
    import torch

    folders = _library_folders()
    for name, asked in _ASKS.items():
        original = getattr(torch.Tensor, name, None)
        if original is not None:
            setattr(torch.Tensor, name, _wrap(original, asked, folders))
