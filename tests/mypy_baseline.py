"""mypy over tritonscope/, held to a baseline: no file may have more errors than
tests/mypy_baseline.json records. The baseline is today's count, file by file; fix errors and
lower it with --update, never raise it to let new ones in.

    python tests/mypy_baseline.py            # exit 1 when a file has more errors than its baseline
    python tests/mypy_baseline.py --update   # write today's counts (only after fixing errors)
"""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tests" / "mypy_baseline.json"
ERROR = re.compile(r"^(?P<file>[^:\s]+\.py):\d+: error:")


def counts() -> dict[str, int]:
    """Errors per file, as mypy reports them with its defaults (no config: the same in CI and here)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "tritonscope"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    found = collections.Counter(m["file"] for m in map(ERROR.match, done.stdout.splitlines()) if m)
    if done.returncode not in (0, 1) or (done.returncode == 1 and not found):  # 2, or no mypy installed
        sys.exit(f"mypy failed:\n{done.stdout}{done.stderr}")
    return dict(sorted(found.items()))


def main(argv: list[str]) -> int:
    now = counts()
    if argv == ["--update"]:
        BASELINE.write_text(json.dumps(now, indent=1) + "\n")
        print(f"baseline: {sum(now.values())} errors in {len(now)} files")
        return 0
    allowed = json.loads(BASELINE.read_text())
    worse = {f: (n, allowed.get(f, 0)) for f, n in now.items() if n > allowed.get(f, 0)}
    for file, (n, base) in worse.items():
        print(f"{file}: {n} mypy errors, baseline {base}: fix the new ones (python -m mypy {file})")
    better = sum(allowed.values()) - sum(now.values())
    print(f"mypy: {sum(now.values())} errors in {len(now)} files; baseline {sum(allowed.values())}")
    if not worse and better > 0:
        print(f"{better} fewer than the baseline: lower it with python tests/mypy_baseline.py --update")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
