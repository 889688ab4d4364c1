"""The program `tritonscope profile` runs under ncu: one launch of a kernel file's kernel, through
its run hooks (`make_inputs`, `launch`; docs/kernel-files.md), then a synchronize.

    python -m tritonscope.app.launch_once '{"file": ..., "size": 4096, "launch": ["BLOCK_SIZE=256"], "inputs": []}'

`launch` and `inputs` are NAME=VALUE texts, typed here as the command line types them
(core/values.py). Nothing goes to stdout (ncu's CSV is there): what the file prints goes to
stderr, and a failure is one line there starting with PREFIX, exit code 2.
"""

from __future__ import annotations

import contextlib
import json
import sys

PREFIX = "tritonscope launch:"


def launch_once(spec: dict) -> None:
    from ..core.errors import UsageError
    from ..core.values import parse
    from .walk.load import load_file

    module = load_file(spec["file"]).module
    missing = [hook for hook in ("make_inputs", "launch") if not callable(getattr(module, hook, None))]
    if missing:
        raise UsageError(f"{spec['file']} has no {', '.join(missing)}: profile runs the kernel through them")
    inputs = {name: parse(value) for name, _, value in (item.partition("=") for item in spec.get("inputs", ()))}
    options = {name: parse(value) for name, _, value in (item.partition("=") for item in spec.get("launch", ()))}
    size = () if spec.get("size") is None else (spec["size"],)
    arguments = module.make_inputs(*size, device="cuda", **inputs)
    module.launch(*arguments, **options)
    import torch

    torch.cuda.synchronize()


def main(argv: list[str]) -> int:
    from ..core.errors import TritonscopeError

    try:
        with contextlib.redirect_stdout(sys.stderr):
            launch_once(json.loads(argv[0]))
    except TritonscopeError as exc:
        print(f"{PREFIX} {exc.message}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the kernel file's code: said in one line
        lines = str(exc).strip().splitlines()
        print(f"{PREFIX} the launch failed: {type(exc).__name__}: {lines[0] if lines else ''}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
