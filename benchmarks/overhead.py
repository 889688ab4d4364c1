"""tritonscope's overhead over what it wraps, measured in one run (medians of several runs).

1. `tritonscope dump sample:vector_add --json` against a bare script that makes the same
   `triton.compile` call, with a cold Triton cache (a fresh directory each run) and warm.
   Targets: at most 1.2x cold, 1.5x warm. Both commands run in turns, in a private user cache
   where tritonscope keeps Triton's hash of its own installation after the first run (that
   first run is printed too: it hashes Triton once, as the bare script does every time).
2. `tritonscope --help` against `python -c "import typer, rich"`, and a check that --help
   imports neither torch nor Triton's compiler.

Run: python benchmarks/overhead.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile

import installed

BARE_COMPILE = """
import importlib.util, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tritonscope.core.samples import samples_dir

spec = importlib.util.spec_from_file_location("vector_add", samples_dir() / "vector_add.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32",
             "BLOCK_SIZE": "constexpr"}
attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}
source = ASTSource(module.add_kernel, signature, {"BLOCK_SIZE": 1024}, attrs)
compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={})
assert compiled.asm["ptx"]
"""
DUMP = [sys.executable, "-m", "tritonscope", "dump", "sample:vector_add", "--target", "sm90", "--json"]
BARE = [sys.executable, "-c", BARE_COMPILE]
HELP = [sys.executable, "-m", "tritonscope", "--help"]
IMPORTS = [sys.executable, "-c", "import typer, rich"]
HELP_MODULES = (
    "import sys\nfrom typer.testing import CliRunner\nfrom tritonscope.cli import app\n"
    "CliRunner().invoke(app, ['--help'])\n"
    "print(sorted(m for m in ('torch', 'triton', 'triton.compiler') if m in sys.modules))"
)


CPU: dict[tuple[str, ...], list[float]] = {}  # each command's CPU seconds, run by run


def timed(command: list[str], cache: str, user_cache: str) -> float:
    env = installed.environ(TRITON_CACHE_DIR=cache, XDG_CACHE_HOME=user_cache, COLUMNS="120")
    wall, cpu = installed.run(command, env)
    CPU.setdefault(tuple(command), []).append(cpu)
    return wall


def paired(ours: list[str], base: list[str], runs: int, fresh_cache: bool, user_cache: str) -> tuple[float, float]:
    """Medians of the two commands, run in turns so that drift in machine load hits both alike.
    fresh_cache: a new, empty Triton cache for every run (cold), else one filled beforehand (warm)."""
    times: dict[str, list[float]] = {"ours": [], "base": []}
    with tempfile.TemporaryDirectory() as warm_ours, tempfile.TemporaryDirectory() as warm_base:
        if not fresh_cache:
            timed(ours, warm_ours, user_cache)
            timed(base, warm_base, user_cache)
        for _ in range(runs):
            for name, command, warm in (("ours", ours, warm_ours), ("base", base, warm_base)):
                if fresh_cache:
                    with tempfile.TemporaryDirectory() as cold:
                        times[name].append(timed(command, cold, user_cache))
                else:
                    times[name].append(timed(command, warm, user_cache))
    return statistics.median(times["ours"]), statistics.median(times["base"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    rows = []
    with tempfile.TemporaryDirectory() as user_cache:
        # The very first run after installing Triton: tritonscope hashes the installation once,
        # as Triton does in every process, and keeps the hash in the user cache.
        with tempfile.TemporaryDirectory() as cold:
            first = timed(DUMP, cold, user_cache)
        CPU.clear()
        rows.append(("dump --json, cold cache", *paired(DUMP, BARE, runs, True, user_cache), 1.2))
        cold_cpu = statistics.median(CPU[tuple(DUMP)]), statistics.median(CPU[tuple(BARE)])
        rows.append(("dump --json, warm cache", *paired(DUMP, BARE, runs, False, user_cache), 1.5))
        rows.append(("--help", *paired(HELP, IMPORTS, runs, False, user_cache), None))

    print(f"{'measure':26} {'tritonscope':>12} {'baseline':>10} {'ratio':>7}  target")
    for name, ours, base, target in rows:
        verdict = "" if target is None else (f"<= {target}x " + ("ok" if ours / base <= target else "MISSED"))
        print(f"{name:26} {ours:11.3f}s {base:9.3f}s {ours / base:6.2f}x  {verdict}")
    cold_base = rows[0][2]
    print(f"{'dump, first run ever':26} {first:11.3f}s {cold_base:9.3f}s {first / cold_base:6.2f}x  (one run)")
    ours, base = cold_cpu
    print(f"{'dump --json, cold, CPU':26} {ours:11.3f}s {base:9.3f}s {ours / base:6.2f}x  (process and its children)")
    print("baselines: a bare triton.compile of the same kernel; `python -c 'import typer, rich'` for --help")
    print("first run ever: empty Triton cache and no remembered triton_key (tritonscope hashes Triton once)")
    print(installed.load())

    loaded = subprocess.run([sys.executable, "-c", HELP_MODULES], capture_output=True, text=True, check=True)
    print(f"modules --help imports among torch, triton, triton.compiler: {loaded.stdout.strip()}")


if __name__ == "__main__":
    main()
