"""The fault suite of issue 14: hostile input, faults, signals, bad caches and odd folders.

One table row per hostile case, numbered by the issue's class (1 to 15). Each row runs
`python -m tritonscope` in a subprocess, with private folders: a work folder holding user
files (the cwd), HOME, TRITON_CACHE_DIR and XDG_CACHE_HOME (copies of a cache warmed once
per module) and TMPDIR. Then, for every row and every follow-up run:

- the exit code: 0 ok, 1 the kernel failed to compile, 2 bad usage, input or environment;
  after a signal N, killed by it or exit 128+N;
- what the message must name (`says`, on stderr) and what the output must show (`shows`);
- no traceback, no "internal error", no "No such option" (a flag the issue asks for);
- nothing lost or left behind: the work folder (but for the declared outputs) and HOME are
  byte-for-byte the same, no hidden `.NAME.*` temporaries, no `tritonscope-*` in TMPDIR;
- no process of the run alive (found by a marker in their environment, which survives
  re-parenting to init);
- where the issue asks, the next normal run works (`then`).

Nothing here imports tritonscope: only its command line is tested.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

_PIP = tuple(int(p) for p in __import__("importlib.metadata").metadata.version("pip").split(".")[:2])
_HAS_RAY = importlib.util.find_spec("ray") is not None  # the cluster extra (CI's other releases lack it)
_TRITON = tuple(int(p) for p in __import__("importlib.metadata").metadata.version("triton").split(".")[:2])

KERNELS = Path(__file__).resolve().parent / "kernels" / "faults"
LAYOUT_2D = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
MMA_ODD = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16]}>"
RUN_ME = 'print("training step 1")\n'
MEMORY_LIMIT = 3 << 30  # address space of every run: a runaway case fails instead of taking the machine down


# --- running the command line -----------------------------------------------------------------


@dataclass
class Result:
    code: int | None  # None: did not finish within the row's timeout
    out: str
    err: str
    peak_processes: int = 0


@dataclass
class Env:
    root: Path
    reference_sass: str
    extra: dict[str, str] = field(default_factory=dict)  # more places, such as {cluster}: a Ray head's address

    @property
    def places(self) -> dict[str, str]:
        names = ("work", "home", "cache", "xdg", "tmp", "kc")
        places = {"{py}": sys.executable, "{kernels}": str(KERNELS), **{f"{{{n}}}": str(self.root / n) for n in names}}
        return {**places, **self.extra}

    def path(self, text: str) -> Path:
        return Path(self.fill(text))

    def fill(self, text: str) -> str:
        for key, value in self.places.items():
            text = text.replace(key, value)
        return text

    def environ(self, changes: dict[str, str | None], marker: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON", "PYTEST", "XDG_"))}
        env.update(
            HOME=str(self.root / "home"),
            TRITON_CACHE_DIR=str(self.root / "cache"),
            XDG_CACHE_HOME=str(self.root / "xdg"),
            TMPDIR=str(self.root / "tmp"),
            COLUMNS="80",
            TRITONSCOPE_FAULT_RUN=marker,
        )
        for key, value in changes.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = self.fill(value)
        return env


def marked_processes(marker: str) -> list[int]:
    """Live processes whose environment holds this run's marker (zombies show an empty one)."""
    needle = f"TRITONSCOPE_FAULT_RUN={marker}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if needle in Path(f"/proc/{entry}/environ").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def python_children(marker: str, parent: int) -> int:
    """Python processes of the run started by `parent` (a fork about to exec a tool counts too)."""
    python = os.path.realpath(sys.executable)
    count = 0
    for pid in marked_processes(marker):
        try:
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
            count += ppid == parent and os.readlink(f"/proc/{pid}/exe") == python
        except (OSError, ValueError, IndexError):
            pass
    return count


def _limits(fsize: int | None, close_stdout: bool, memory: int | None = MEMORY_LIMIT):
    """In the child before exec: a memory cap; as root, no permission override (so chmod counts)."""

    def apply():
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if os.geteuid() == 0:
            libc = ctypes.CDLL(None, use_errno=True)
            for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
                libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP
        if fsize is not None:  # a full disk: writes past fsize bytes fail with EFBIG
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if close_stdout:
            os.close(1)

    return apply


@dataclass
class Run:
    """One command line and how it is run."""

    cmd: str
    env: dict[str, str | None] = field(default_factory=dict)
    cwd: str = "{work}"
    timeout: float = 60
    stdout: str = "file"  # file; closed; head: read one line, then close the pipe (`| head -1`); gone: `| true`
    fsize: int | None = None
    memory: int | None = MEMORY_LIMIT  # bytes of address space (Ray's driver maps the node's whole object store)
    signal: int | None = None  # sent to the main process once `ready` holds
    ready: Callable[[Env, subprocess.Popen, str], bool] | None = None
    action: Callable[[Env, subprocess.Popen, str], None] | None = None  # done once `ready` holds (no signal)
    count_processes: bool = False


def run(env: Env, spec: Run) -> tuple[Result, list[int]]:
    """Runs one command; returns its result and the processes of the run still alive after it (killed).

    A command to be signalled that ends before its moment came is run again (the moment, such as
    the few milliseconds an output folder is being swapped, can be missed)."""
    for _ in range(5):
        result, survivors, signalled = _run_once(env, spec)
        if (spec.signal is None and spec.action is None) or signalled:
            return result, survivors
    raise AssertionError(f"test setup: the moment to send signal {spec.signal!r} never came; exit {result.code}")


def _run_once(env: Env, spec: Run) -> tuple[Result, list[int], bool]:
    marker = uuid.uuid4().hex
    args = [sys.executable, "-m", "tritonscope", *(env.fill(a) for a in shlex.split(spec.cmd))]
    logs = env.root / "logs"
    logs.mkdir(exist_ok=True)
    out_path, err_path = logs / f"{marker}.out", logs / f"{marker}.err"
    peak, signalled = [0], False
    with open(out_path, "w") as out_file, open(err_path, "w") as err_file:
        stdout = out_file
        if spec.stdout == "head":
            stdout = subprocess.PIPE
        elif spec.stdout == "gone":
            stdout = _pipe_without_reader()
        child = subprocess.Popen(
            args,
            cwd=env.fill(spec.cwd),
            env=env.environ(spec.env, marker),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=err_file,
            preexec_fn=_limits(spec.fsize, spec.stdout == "closed", spec.memory),
            start_new_session=True,
        )
        if spec.count_processes:
            threading.Thread(target=_count, args=(child, marker, peak), daemon=True).start()
        if spec.stdout == "gone":
            os.close(stdout)
        if spec.stdout == "head":
            out_file.write(child.stdout.readline().decode(errors="replace"))
            child.stdout.close()
        if spec.signal is not None or spec.action is not None:
            signalled = _signal_when_ready(env, spec, child, marker)
        try:
            code = child.wait(timeout=spec.timeout)
        except subprocess.TimeoutExpired:
            code = None
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    survivors = _survivors(marker)
    result = Result(code, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"), peak[0])
    return result, survivors, signalled


def _pipe_without_reader() -> int:
    reader, writer = os.pipe()
    os.close(reader)
    return writer


def _count(child: subprocess.Popen, marker: str, peak: list[int]) -> None:
    while child.poll() is None:
        peak[0] = max(peak[0], python_children(marker, child.pid))
        time.sleep(0.02)


def _signal_when_ready(env: Env, spec: Run, child: subprocess.Popen, marker: str) -> bool:
    deadline = time.monotonic() + max(30, spec.timeout / 2)
    while child.poll() is None and time.monotonic() < deadline:
        if spec.ready(env, child, marker):
            spec.action(env, child, marker) if spec.action else child.send_signal(spec.signal)
            return True
    return False


def _survivors(marker: str) -> list[int]:
    deadline = time.monotonic() + 5
    while (alive := marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in alive:  # clean up for the next rows; the row still fails
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return alive


def child_started(env: Env, child: subprocess.Popen, marker: str) -> bool:
    """A Python child of the run (worker, interpreter, pass capture) is running; let it settle."""
    if python_children(marker, child.pid) < 1:
        time.sleep(0.02)
        return False
    time.sleep(0.5)
    return True


def ptxas_running(env: Env, child: subprocess.Popen, marker: str) -> bool:
    """Triton has written ptxas's input (tmpXXXX.ptx, in TMPDIR or a folder of the run's there)."""
    return any(path.suffix == ".ptx" for path in (env.root / "tmp").rglob("*"))


def file_appeared(name: str) -> Callable[[Env, subprocess.Popen, str], bool]:
    """The program run has written `name` in the work folder (it has reached the moment to signal)."""
    return lambda env, child, marker: (env.root / "work" / name).exists()


def program_running(word: str) -> Callable[[Env, subprocess.Popen, str], bool]:
    """A process of the run whose command line holds `word` (ensurepip, pip) is running."""

    def running(env: Env, child: subprocess.Popen, marker: str) -> bool:
        for pid in marked_processes(marker):
            try:
                if word.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
            except OSError:
                pass
        return False

    return running


def staging_appeared(env: Env, child: subprocess.Popen, marker: str) -> bool:
    """The hidden staging folder of `-o out` exists: the files are being written or swapped in."""
    return any(name.startswith(".out.") for name in os.listdir(env.root / "work"))


def swap_started(env: Env, child: subprocess.Popen, marker: str) -> bool:
    """The old `out` has been moved aside (`.out.old.*`): the swap is under way. The swap holds
    signals back and takes microseconds, so the moment may be missed: the new files being
    complete in the staging folder (report.json, written last) is close enough to it."""
    names = os.listdir(env.root / "work")
    if any(name.startswith(".out.old.") for name in names):
        return True
    return any(name.startswith(".out.") and (env.root / "work" / name / "report.json").exists() for name in names)


# --- checks -------------------------------------------------------------------------------------


def found(pattern: str, text: str) -> bool:
    """`pattern` in the text, also across the line breaks rich inserts at 80 columns."""
    variants = (text, text.replace("\n", ""), " ".join(text.split()), re.sub(r"\s*\n[│┃ ]*", "", text))
    return any(re.search(pattern, v) for v in variants)


def strict_json(text: str):
    def reject(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=reject)


def snapshot(folder: Path, ignore: tuple[str, ...] = ()) -> dict[str, str]:
    """Relative path -> content digest (or 'dir'), for everything under folder."""
    if not folder.exists():
        return {}
    state = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if "__pycache__" in path.parts or any(relative == i or relative.startswith(i + "/") for i in ignore):
            continue
        if path.is_symlink() or not path.is_file():
            state[relative] = "dir" if path.is_dir() else "other"
        else:
            state[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def stray_temporaries(folder: Path) -> list[str]:
    """Hidden `.NAME.xxx` entries: the staging and old folders of an output swap, temporary files."""
    if not folder.exists():
        return []
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob(".*") if re.match(r"^\.[^.]+\..", p.name))


def problems_of(env: Env, what: str, result: Result, survivors: list[int], code: int, step) -> list[str]:
    problems = []
    text = result.out + result.err
    expected = {code} if step.signal is None else {-step.signal, 128 + step.signal}
    if result.code is None:
        problems.append(f"{what}: still running after {step.timeout:g} s (killed)")
    elif result.code not in expected:
        problems.append(f"{what}: exit {result.code}, expected {' or '.join(map(str, sorted(expected)))}")
    for pattern in step.says:
        if not found(pattern, result.err):
            problems.append(f"{what}: stderr lacks /{pattern}/")
    for pattern in step.shows:
        if not found(pattern, result.out):
            problems.append(f"{what}: stdout lacks /{pattern}/")
    for pattern in (r"Traceback", r"(?i)internal error", r"(?i)this is a bug", r"No such option", *step.forbid):
        if re.search(pattern, text):
            problems.append(f"{what}: output has /{pattern}/")
    if step.json and result.code == code:
        try:
            strict_json(result.out)
        except ValueError as exc:
            problems.append(f"{what}: stdout is not strict JSON ({exc}): {result.out[:60]!r}")
    if survivors:
        problems.append(f"{what}: {len(survivors)} process(es) of the run still alive")
    left = [p.name for p in (env.root / "tmp").iterdir() if p.name.startswith("tritonscope") or step.signal]
    if left:  # after a signal, nothing at all: ptxas's .ptx and .log files are written there too
        problems.append(f"{what}: left in TMPDIR: {left}")
    for folder in ("work", "home", "xdg/tritonscope/envs"):
        if stray := stray_temporaries(env.root / folder):
            problems.append(f"{what}: stray temporaries in {folder}: {stray}")
    if step.check is not None and result.code == code:
        try:
            step.check(env, result)
        except AssertionError as exc:
            problems.append(f"{what}: {exc}")
    return problems


# --- rows ----------------------------------------------------------------------------------------


@dataclass
class Step(Run):
    exit: int = 0
    says: tuple[str, ...] = ()  # regexes the message (stderr) must match
    shows: tuple[str, ...] = ()  # regexes the output (stdout) must match
    forbid: tuple[str, ...] = ()
    json: bool = False  # stdout must be one strict JSON document
    check: Callable[[Env, Result], None] | None = None


@dataclass
class Row(Step):
    id: str = ""
    setup: tuple[Callable[[Env], None], ...] = ()
    changes: tuple[str, ...] = ()  # paths under work this row may write; all else must stay as it was
    then: Step | None = None  # the next normal run, which must work


def setup_run(env: Env, cmd: str, **changes) -> None:
    """The command line used to prepare a row (it must work)."""
    result, _ = run(env, Run(cmd, env=changes))
    assert result.code == 0, f"setup `{cmd}` failed: exit {result.code}: {result.err[-500:]}"


def tool_output(env: Env) -> None:
    setup_run(env, "dump sample:double --target sm90 -o out")


def interrupted_swap(env: Env) -> None:
    """What a --force swap killed between its two renames leaves: no out, the old and new results hidden."""
    tool_output(env)
    work = env.root / "work"
    shutil.copytree(work / "out", work / ".out.k2x9q7wa")
    (work / "out").rename(work / ".out.old.3hd8s0ft")


def capture(env: Env) -> None:
    """A capture of a program that compiles sample:double (tritonscope itself, so no GPU is needed)."""
    setup_run(env, "trace -o cap -- {py} -m tritonscope dump sample:double --target sm90 --stage ttir")


def folder(name: str, mode: int | None = None) -> Callable[[Env], None]:
    def make(env: Env) -> None:
        path = env.path(name)
        path.mkdir(parents=True, exist_ok=True)
        if mode is not None:
            path.chmod(mode)

    make.__name__ = f"folder({name})"
    return make


def regular_file(name: str) -> Callable[[Env], None]:
    return lambda env: env.path(name).write_text("a regular file\n")


def copy_to(name: str) -> Callable[[Env], None]:
    """A copy of sample:double at a path under work."""

    def make(env: Env) -> None:
        path = env.root / "work" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(env.root / "work" / "k.py", path)

    return make


def sass_memos(change: Callable[[bytes], bytes]) -> Callable[[Env], None]:
    def corrupt(env: Env) -> None:
        memos = list((env.root / "cache" / "tritonscope").glob("*.sass"))
        assert memos, "test setup: the warm cache has no SASS memo"
        for memo in memos:
            memo.write_bytes(change(memo.read_bytes()))

    return corrupt


def garbage_triton_key(env: Env) -> None:
    keys = [p for p in (env.root / "xdg").rglob("*") if p.is_file()]
    assert keys, "test setup: no remembered triton_key"
    for key in keys:
        key.write_bytes(b"\xff\xfe\x00\x9c garbage")


def own_cache(env: Env) -> None:
    """A cache {kc} holding work/k.py's kernel, whose source file can then be edited."""
    setup_run(env, "dump {work}/k.py --target sm90 --stage ttir", TRITON_CACHE_DIR="{kc}")


def append_to_source(data: bytes) -> Callable[[Env], None]:
    def edit(env: Env) -> None:
        with open(env.root / "work" / "k.py", "ab") as handle:
            handle.write(data)

    return edit


def double_entry(env: Env, suffix: str, cache: str = "cache") -> Path:
    found_files = list((env.root / cache).glob(f"*/double_kernel.{suffix}"))
    assert len(found_files) == 1, f"test setup: {len(found_files)} double_kernel.{suffix} in the cache"
    return found_files[0]


def metadata(edit: Callable[[dict], object]) -> Callable[[Env], None]:
    def change(env: Env) -> None:
        path = double_entry(env, "json")
        path.write_text(json.dumps(edit(json.loads(path.read_text()))))

    return change


def without(key: str) -> Callable[[dict], dict]:
    return lambda data: {k: v for k, v in data.items() if k != key}


def truncated_metadata(env: Env) -> None:
    path = double_entry(env, "json")
    path.write_bytes(path.read_bytes()[:100])


def artifact_not_utf8(env: Env) -> None:
    double_entry(env, "ttir").write_bytes(b"\xff\xfe not text \x80\x81")


def capture_with_bad_log(env: Env) -> None:
    capture(env)
    with open(env.root / "work" / "cap" / "kernels.jsonl", "a") as log:
        log.write('[1, 2]\n42\n"text"\nnull\n')


def cache_at(name: str) -> Callable[[Env], None]:
    return lambda env: shutil.copytree(env.root / "cache", env.root / "work" / name)


def same_sass(env: Env, result: Result) -> None:
    sass = strict_json(result.out)["stages"]["sass"]
    assert sass == env.reference_sass, f"not the SASS of a clean run ({len(sass)} chars, not {len(env.reference_sass)})"


def out_complete(env: Env, result: Result) -> None:
    out = env.root / "work" / "out"
    names = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    assert "double_kernel.sass" in names and "report.json" in names, f"out/ is incomplete: {names}"
    assert strict_json((out / "report.json").read_text())["kernel"]["name"] == "double_kernel"


def at_most_one_worker_per_core(env: Env, result: Result) -> None:
    cores = os.cpu_count() or 1
    assert result.peak_processes <= cores, f"{result.peak_processes} worker processes ran at once on {cores} cores"


# --- issue 27 ------------------------------------------------------------------------------------


# A package index of two files in the work folder, for installs without network: numpy (a wheel)
# and Triton 3.5.0 (a source archive whose build backend holds pip, in a process of pip's own, until
# killed), so that a signal meets the install where pip's own children run.
HELD_BACKEND = """import os, pathlib, time
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(*args, **kwargs):
    pathlib.Path(os.environ["FAKE_TRITON_BUILDING"]).write_text(str(os.getpid()))
    time.sleep(300)
build_wheel = prepare_metadata_for_build_wheel
"""
PIP_OFFLINE = {
    "PIP_NO_INDEX": "1",
    "PIP_FIND_LINKS": "{work}/index",
    "PIP_NO_CACHE_DIR": "1",
    "FAKE_TRITON_BUILDING": "{work}/index/building",
    # pip asks rustc its version for its user agent, and rustup's rustc writes into HOME
    "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not Path(p, "rustc").exists()),
}


def package_index(env: Env) -> None:
    index = env.root / "work" / "index"
    index.mkdir()
    info = "numpy-2.0.0.dist-info"
    with zipfile.ZipFile(index / "numpy-2.0.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("numpy/__init__.py", "")
        wheel.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: numpy\nVersion: 2.0.0\n")
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")
    project = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
    with tarfile.open(index / "triton-3.5.0.tar.gz", "w:gz") as sdist:
        for name, text in (
            ("pyproject.toml", project),
            ("backend.py", HELD_BACKEND),
            ("PKG-INFO", "Metadata-Version: 2.1\nName: triton\nVersion: 3.5.0\n"),
        ):
            member = tarfile.TarInfo(f"triton-3.5.0/{name}")
            member.size = len(text.encode())
            sdist.addfile(member, __import__("io").BytesIO(text.encode()))


def fifo(name: str) -> Callable[[Env], None]:
    """A named pipe at `name` (nobody writes or reads it: opening it blocks)."""
    return lambda env: os.mkfifo(env.path(name))


def symlink_loop(name: str) -> Callable[[Env], None]:
    return lambda env: env.path(name).symlink_to(env.path(name))


def project(text: bytes | str) -> Callable[[Env], None]:
    """A pyproject.toml in work (text, or raw bytes for an encoding fault)."""

    def make(env: Env) -> None:
        data = text.encode() if isinstance(text, str) else text
        (env.root / "work" / "pyproject.toml").write_bytes(data)

    return make


def null_device(name: str) -> Callable[[Env], None]:
    """A character device like /dev/null at `name`: made with mknod as root (so that a faulty
    writer replaces this one, never the machine's /dev/null), else a link to /dev/null."""

    def make(env: Env) -> None:
        if os.geteuid() == 0:
            os.mknod(env.path(name), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        else:
            env.path(name).symlink_to("/dev/null")

    return make


def still_char_device(name: str) -> Callable[[Env, Result], None]:
    def check(env: Env, result: Result) -> None:
        assert stat.S_ISCHR(os.stat(env.path(name)).st_mode), f"{name} is no longer a character device"

    return check


def capture_records(log: str, edit: Callable[[dict], object]) -> Callable[[Env], None]:
    """A capture whose every record in `log` (kernels.jsonl or launches.jsonl) is replaced by `edit`
    of it; launches.jsonl, empty without a GPU, gets one record of double_kernel's first."""

    def make(env: Env) -> None:
        capture(env)
        cap = env.root / "work" / "cap"
        kernels = [json.loads(line) for line in (cap / "kernels.jsonl").read_text().splitlines() if line.strip()]
        records = kernels
        if log == "launches.jsonl":
            first = kernels[0]
            records = [{"hash": first["hash"], "name": first["name"], "launch": 0, "grid": [4, 1, 1],
                        "params": None, "args": [{"kind": "int", "value": 4096}], "pid": 1}]  # fmt: skip
        lines = [e if isinstance(e := edit(dict(r)), str) else json.dumps(e) for r in records]
        (cap / log).write_text("\n".join(lines) + "\n")

    return make


def capture_metadata(edit: Callable[[dict], object]) -> Callable[[Env], None]:
    def make(env: Env) -> None:
        capture(env)
        for path in (env.root / "work" / "cap" / "cache").glob("*/double_kernel.json"):
            path.write_text(json.dumps(edit(json.loads(path.read_text()))))

    return make


def baseline(edit: Callable[[dict], object] | str) -> Callable[[Env], None]:
    """base.json: a saved `dump --json` report of sample:double, edited (or raw text)."""

    def make(env: Env) -> None:
        if isinstance(edit, str):
            text = edit
        else:
            setup_run(env, "check sample:double --target sm90 --baseline base.json --update-baseline")
            text = json.dumps(edit(json.loads((env.root / "work" / "base.json").read_text())))
        (env.root / "work" / "base.json").write_text(text)

    return make


def fifo_in_cache(env: Env) -> None:
    entry = double_entry(env, "json").parent
    os.mkfifo(entry / "stuck.json")


def interrupted_capture_swap(env: Env) -> None:
    """A `trace -o cap --force` killed between its two renames: no cap, the old capture hidden."""
    capture(env)
    work = env.root / "work"
    shutil.copytree(work / "cap", work / ".cap.new.999999.k2x9q7wa")
    (work / "cap").rename(work / ".cap.old.999999.3hd8s0ft")


def mislabelled_env(env: Env) -> None:
    """envs/triton-3.7.0 whose Python imports this Triton (3.6.0 in CI) while its metadata says 3.7.0."""
    import site

    path = env.root / "xdg" / "tritonscope" / "envs" / "triton-3.7.0"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    own = next(path.glob("lib/python*/site-packages"))
    shared = [p for p in [*site.getsitepackages(), *sys.path] if p.endswith("site-packages") and Path(p).is_dir()]
    (own / "zz_shared.pth").write_text("\n".join(dict.fromkeys(shared)) + "\n")
    (own / "triton-3.7.0.dist-info").mkdir()  # what `ready` looks for; what Python imports says otherwise
    running = __import__("importlib.metadata").metadata.version("triton")
    (own / "triton-3.7.0.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: triton\nVersion: {running}\n"
    )


DEEP = "[" * 100000 + "]" * 100000


def junit_parses(env: Env, result: Result) -> None:
    from xml.etree import ElementTree

    root = ElementTree.parse(env.root / "work" / "j.xml").getroot()
    names = [case.get("name") for case in root.iter("testcase")]
    assert names and "bell" in names[0], names


def every_stage_maps_to(name: str) -> Callable[[Env, Result], None]:
    """Every stage's line map names the kernel file by its real path (none by an escaped spelling)."""

    def check(env: Env, result: Result) -> None:
        report = strict_json(result.out)
        files = {entry["file"] for entry in report["line_map"]}
        assert files == {str(env.root / "work" / name)}, f"line map files: {files}"
        mapped = set().union(*(entry["stages"] for entry in report["line_map"]))
        assert mapped >= {"source", "ttir", "ttgir", "llir", "ptx", "sass"}, f"stages mapped: {mapped}"
        assert '//## File "' + str(env.root / "work" / name) in report["stages"]["sass"]

    return check


NON_ASCII = "项目/café/dé.py"
ENTRY = '[[tool.tritonscope.check]]\nfile = "k.py"\nflags = "-t sm90 -a n_elements=4096"\nbudgets = ["spills=0"]\n'


OUT_OK = Step("dump sample:double --target sm90 -o out --force", check=out_complete)
TERM, INT = signal.SIGTERM, signal.SIGINT
DEFAULTS_OF_DOUBLE = "--target sm90 -a n_elements=4096"

# fmt: off
ROWS = [
    # 1. Data loss: an output folder that holds the user's files.
    Row("dump k.py --target sm90 -o . --force", id="1-dump-out-cwd", exit=2,
        says=(r"(?i)current (working )?directory|working directory",)),
    Row("dump ../k.py --target sm90 -o .. --force", id="1-dump-out-parent", cwd="{work}/data", exit=2,
        says=(r"(?i)current (working )?directory|working directory|contains",)),
    Row("dump sample:double --target sm90 -o {home} --force", id="1-dump-out-home", exit=2,
        says=(r"[Hh]ome (folder|directory)|\bHOME\b",)),
    Row("dump src/k.py --target sm90 -o src --force", id="1-dump-out-holds-kernel", setup=(copy_to("src/k.py"),),
        exit=2, says=(r"k\.py",)),
    Row("dump {work}/src/k.py --target sm90 -o {work} --force", id="1-dump-out-above-kernel", cwd="{home}",
        setup=(copy_to("src/k.py"),), exit=2, says=(r"k\.py",)),
    Row("dump sample:double --target sm90 -o data --force", id="1-dump-force-foreign-folder", exit=2,
        says=(r"data", r"(?i)refus|not (written|created|made) by|did(n't| not) (write|create)")),
    Row("trace -o . --force -- {py} run_me.py", id="1-trace-out-cwd", exit=2,
        says=(r"(?i)current (working )?directory|working directory",)),
    Row("trace -o {work} --force -- {py} {work}/run_me.py", id="1-trace-out-holds-program", cwd="{home}", exit=2,
        says=(r"(?i)run_me\.py|program",)),
    Row("trace -o cap --force -- no-such-program-x", id="1-trace-keeps-old-until-new", setup=(capture,), exit=2,
        says=(r"no-such-program-x",)),
    Row("dump {kernels}/../bad.py -k arange_not_power_of_two --target sm90 -o out --force",
        id="1-dump-keeps-old-on-failure", setup=(tool_output,), exit=1, then=OUT_OK),
    Row("dump sample:double --target sm90 -o out --force", id="1-dump-force-own-output", setup=(tool_output,),
        changes=("out",), check=out_complete),
    # 2. An interrupted --force swap.
    Row("dump sample:double --target sm90 -o out --force", id="2-next-run-restores-swap", setup=(interrupted_swap,),
        changes=("out", ".out.k2x9q7wa", ".out.old.3hd8s0ft"), check=out_complete),  # restored, then replaced
    Row("dump sample:double --target sm90 -o out --force", id="2-sigterm-while-writing", setup=(tool_output,),
        signal=TERM, ready=staging_appeared, changes=("out",), then=OUT_OK),
    Row("dump sample:double --target sm90 -o out --force", id="2-sigint-while-writing", setup=(tool_output,),
        signal=INT, ready=staging_appeared, changes=("out",), then=OUT_OK),
    Row("dump sample:double --target sm90 -o out --force", id="2-sigterm-during-swap", setup=(tool_output,),
        signal=TERM, ready=swap_started, changes=("out",), then=OUT_OK),
    Row("dump sample:double --target sm90 -o out --force", id="2-sigint-during-swap", setup=(tool_output,),
        signal=INT, ready=swap_started, changes=("out",), then=OUT_OK),
    # 3. grid with 1 to 4 programs.
    Row("grid sample:vector_add -a n_elements=4096 --target sm90", id="3-grid-4-programs",
        shows=(r"output_ptr\[3072:4096\]",)),
    Row("grid sample:double -a n_elements=1000 --target sm90", id="3-grid-1-program", shows=(r"output_ptr\[0:1000\]",)),
    # 4. layout: shapes and fields Triton asserts on.
    Row(f"layout '{LAYOUT_2D}' --shape 64", id="4-layout-rank-1-of-2", exit=2, says=(r"(?i)rank|dimension|2-d",)),
    Row(f"layout '{LAYOUT_2D}' --shape 64x64x64", id="4-layout-rank-3-of-2", exit=2, says=(r"(?i)rank|dimension|2-d",)),
    Row(f"layout '{MMA_ODD}' --shape 64x64", id="4-layout-odd-instrShape", exit=2, says=(r"instrShape",)),
    # 5. Signals: every child dies with its parent, temporary folders removed.
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256", id="5-diff-sigterm",
        signal=TERM, ready=child_started),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256", id="5-diff-sigint",
        signal=INT, ready=child_started),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1", id="5-grid-sigterm", signal=TERM, ready=child_started),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1", id="5-grid-sigint", signal=INT, ready=child_started),
    Row("passes {kernels}/hang_heuristic.py --target sm90", id="5-passes-sigterm", signal=TERM, ready=child_started),
    Row("passes {kernels}/hang_heuristic.py --target sm90", id="5-passes-sigint", signal=INT, ready=child_started),
    # 6. Unbounded work: each gets a limit and a clear message.
    Row("dump sample:double --target sm90 --lines 1-100000000000", id="6-lines-huge-range", exit=2, timeout=20,
        says=(r"(?i)outside|at most|too (many|large)",)),
    Row(f"grid sample:double {DEFAULTS_OF_DOUBLE} --grid 100000000 --timeout 5", id="6-grid-huge-grid", exit=2,
        timeout=20, says=(r"(?i)time|too many|at most|limit",)),
    Row(f"layout '{LAYOUT_2D}' --shape 65536x65536", id="6-layout-huge-shape", exit=2, timeout=20,
        says=(r"(?i)too (large|big|many)|at most|limit|exceed",)),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --timeout nan", id="6-diff-timeout-nan", exit=2,
        says=(r"--timeout", r"nan")),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --timeout -1", id="6-diff-timeout-negative",
        exit=2, says=(r"--timeout",)),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256 --timeout 3",
        id="6-diff-hung-variant-times-out", exit=1, timeout=20, says=(), shows=(r"(?i)timed out",)),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1 --timeout 3", id="6-grid-kernel-loops", exit=2,
        timeout=20, says=(r"(?i)time",)),
    Row("dump {kernels}/import_loop.py --target sm90 --timeout 3", id="6-dump-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    Row("passes {kernels}/import_loop.py --target sm90 --timeout 3", id="6-passes-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    Row("diff {kernels}/import_loop.py --target sm90 --vary num_warps=4,8 --timeout 3", id="6-diff-import-loops",
        exit=2, timeout=20, says=(r"import_loop\.py", r"(?i)time")),
    Row("list {kernels}/import_loop.py --timeout 3", id="6-list-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    # 7. -j capped at the cores.
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=64,128,256,512,1024,2048 --stage ttgir -j 64",
        id="7-diff-jobs-capped", count_processes=True, says=(r"(?i)\b(cores?|cpus?)\b",),
        check=at_most_one_worker_per_core),
    # 8. Bad files in tritonscope's own caches are rebuilt, never shown.
    Row("dump sample:double --target sm90 --json", id="8-sass-memo-truncated", setup=(sass_memos(lambda b: b[:1200]),),
        json=True, check=same_sass, then=Step("dump sample:double --target sm90 --json", json=True, check=same_sass)),
    Row("dump sample:double --target sm90 --json", id="8-sass-memo-garbage",
        setup=(sass_memos(lambda b: b"\xff\xfe\x00 garbage \x80"),), json=True, check=same_sass),
    Row("dump sample:double --target sm90 --json", id="8-triton-key-garbage", setup=(garbage_triton_key,), json=True,
        check=same_sass, then=Step("dump sample:vector_add --target sm90 --stage ttir", shows=(r"add_kernel",))),
    # 9. Location stripping leaves string literals alone.
    Row("dump {kernels}/device_print.py --target sm90 --stage ttir", id="9-loc-in-string-literal",
        shows=(r'tt\.print " value loc\(x\) =: "',)),  # Triton's own text: the literal, then ": "
    # 10. Values beyond 64 bits.
    Row("dump sample:double --target sm90 -a n_elements=18446744073709551616", id="10-value-above-u64", exit=2,
        says=(r"n_elements", r"(?i)out of range|too (large|big)|does not fit|overflow|beyond|64.bit")),
    Row("dump sample:double --target sm90 -a n_elements=-9223372036854775809", id="10-value-below-i64", exit=2,
        says=(r"n_elements", r"(?i)out of range|too (large|big|small)|does not fit|overflow|beyond|64.bit")),
    # 11. --json is only the document.
    Row("dump {kernels}/printer.py --target sm90 --json", id="11-dump-json-file-prints", json=True),
    Row("list {kernels}/printer.py --json", id="11-list-json-file-prints", json=True),
    Row("diff {kernels}/printer.py --target sm90 --vary BLOCK_SIZE=512,1024 --stage ttgir --json",
        id="11-diff-json-file-prints", json=True),
    Row("grid {kernels}/printer.py --target sm90 --json", id="11-grid-json-file-prints", json=True),
    Row("dump {kernels}/scale.py --target sm90 -c SCALE=nan --json", id="11-json-nan-constexpr", json=True),
    # 12. A user's or the machine's problem is a clear exit 2, not an internal error.
    Row("dump sample:double --target sm90 -o ro/out", id="12-out-read-only-folder", setup=(folder("{work}/ro", 0o555),),
        exit=2, says=(r"ro/out|/ro\b", r"(?i)permission|read-only|not writable")),
    Row("dump sample:double --target sm90 -o afile/out", id="12-out-under-regular-file",
        setup=(regular_file("{work}/afile"),), exit=2, says=(r"afile",)),
    Row("report sample:double --target sm90 -o afile/r.html", id="12-report-under-regular-file",
        setup=(regular_file("{work}/afile"),), exit=2, says=(r"afile",)),
    Row("dump sample:double --target sm90 -o out", id="12-out-disk-full", fsize=16384, exit=2,
        says=(r"\bout\b", r"(?i)file too large|no space|disk")),
    Row("dump sample:double --target sm90", id="12-tmp-disk-full", fsize=4096, exit=2,
        says=(r"(?i)file too large|no space|disk",)),
    Row("dump sample:double --target sm90 -o 'o[/x]'", id="12-markup-in-out-path", changes=("o[",),
        says=(r"o\[/x\]",)),
    Row("report sample:double --target sm90 -o 'r[/x].html'", id="12-markup-in-report-path", changes=("r[",),
        says=(r"r\[/x\]\.html",)),
    # `[/x]` is a string constexpr (issue 13's rule); its variant fails to compile (exit 1) and the
    # table shows the value as typed, not eaten as rich markup.
    Row("diff sample:double --target sm90 --vary 'BLOCK_SIZE=[/x],256'", id="12-markup-in-vary-value", exit=1,
        shows=(r"BLOCK_SIZE=\[/x\]",)),
    Row("list {kernels}/markup_defaults.py", id="12-markup-in-defaults", shows=(r"\[/x\]",)),
    Row("dump {cache}/:double_kernel --stage ttir", id="12-markup-in-cache-metadata",
        setup=(metadata(lambda d: {**d, "triton_version": "3.6.0[/x]"}),), shows=(r"3\.6\.0\[/x\]",)),
    Row("cache list 'c[/x]'", id="12-markup-in-cache-path", setup=(cache_at("c[/x]"),), shows=(r"c\[/x\]",)),
    Row("dump sample:double --target sm80 --num-ctas 2", id="12-num-ctas-on-sm80", exit=2,
        says=(r"--num-ctas|num_ctas", r"sm90")),
    Row("dump {kernels}/heuristic_object.py --target sm90", id="12-heuristic-returns-object", exit=2,
        says=(r"BLOCK_SIZE", r"(?i)heuristic")),
    Row("dump {kernels}/accented_text.py --target sm90", id="12-ascii-stdout-nonascii-kernel",
        env={"PYTHONIOENCODING": "ascii"}, shows=(r"text_kernel",)),
    Row("dump sample:double --target sm90 --json", id="12-stdout-closed-json", stdout="closed", exit=2,
        says=(r"(?i)stdout|standard output",)),
    Row("dump sample:double --target sm90", id="12-stdout-closed", stdout="closed", exit=2,
        says=(r"(?i)stdout|standard output",)),
    # 13. Cache and capture readers skip bad entries with a one-line notice.
    Row("dump {kc}/:double_kernel --stage ttir", id="13-cached-source-syntax-error",
        setup=(own_cache, append_to_source(b"\ndef (\n")), shows=(r"@double_kernel",), says=(r"k\.py",)),
    Row("dump {kc}/:double_kernel --stage ttir", id="13-cached-source-not-utf8",
        setup=(own_cache, append_to_source(b"\n# \xff\xfe\n")), shows=(r"@double_kernel",), says=(r"k\.py",)),
    Row("dump {cache}/:double_kernel", id="13-metadata-without-num-warps", setup=(metadata(without("num_warps")),),
        exit=2, says=(r"double_kernel\.json|num_warps",)),
    Row("dump {cache}/:double_kernel", id="13-artifact-not-utf8", setup=(artifact_not_utf8,), exit=2,
        says=(r"double_kernel\.ttir",)),
    Row("cache list {cache}", id="13-metadata-target-string", setup=(metadata(lambda d: {**d, "target": "cuda"}),),
        shows=(r"add_kernel",), says=(r"double_kernel\.json",)),
    Row("cache list {cache}", id="13-metadata-null", setup=(metadata(lambda d: None),), shows=(r"add_kernel",),
        says=(r"double_kernel\.json",)),
    Row("cache list cap", id="13-capture-log-not-objects", setup=(capture_with_bad_log,), shows=(r"double_kernel",),
        says=(r"kernels\.jsonl",)),
    Row("dump cap/:double_kernel --stage ttir", id="13-capture-log-not-objects-dump", setup=(capture_with_bad_log,),
        shows=(r"@double_kernel",), says=(r"kernels\.jsonl",)),
    # 14. The environment's problems name the path and what to do (exit 2, not "failed to compile").
    Row("dump sample:double --target sm90", id="14-triton-cache-is-a-file", setup=(regular_file("{work}/afile"),),
        env={"TRITON_CACHE_DIR": "{work}/afile"}, exit=2, says=(r"afile", r"TRITON_CACHE_DIR")),
    Row("dump sample:double --target sm90", id="14-triton-cache-read-only", setup=(folder("{work}/ro", 0o555),),
        env={"TRITON_CACHE_DIR": "{work}/ro"}, exit=2, says=(r"/ro\b", r"TRITON_CACHE_DIR")),
    Row("dump sample:double --target sm90", id="14-home-read-only", setup=(folder("{home}", 0o555),),
        env={"TRITON_CACHE_DIR": None}, exit=2, says=(r"/home\b", r"TRITON_CACHE_DIR|\bHOME\b")),
    # A damaged entry is moved aside and the kernel compiled afresh, said in one line (issue 27, item 8).
    Row("dump sample:double --target sm90 --json", id="14-triton-metadata-corrupt", setup=(truncated_metadata,),
        json=True, check=same_sass, says=(r"(?i)damaged", r"(?i)compiled again"),
        then=Step("dump sample:double --target sm90 --json", json=True, check=same_sass, forbid=(r"(?i)damaged",))),
    # 15. Clear messages.
    # Older ptxas refuse a non-ASCII path in the PTX: it is given an ASCII spelling (issue 27, item 5;
    # Triton 3.5 has no hook to do that in, and says what to do).
    Row("dump src/dé.py --target sm90", id="15-non-ascii-path", setup=(copy_to("src/dé.py"),), exit=2,
        says=(r"dé\.py", r"(?i)non-ascii"))
    if _TRITON < (3, 6) else
    Row("dump src/dé.py --target sm90 --json", id="15-non-ascii-path", setup=(copy_to("src/dé.py"),), json=True,
        check=every_stage_maps_to("src/dé.py")),
    Row("dump {kernels}/accented_name.py --target sm90", id="15-non-ascii-kernel-name", exit=1,
        says=(r"café_kernel", r"(?i)ascii")),
    Row("dump sample:double --target sm90 --num-ctas 3", id="15-num-ctas-3", exit=2,
        says=(r"--num-ctas|num_ctas", r"(?i)power of (2|two)"), forbid=(r"module \{", r"mlir_reproducer")),
    Row("dump sample:double --target sm90", id="15-pipe-to-head", stdout="head", forbid=(r"(?i)broken ?pipe",)),
    Row("dump sample:double --target sm90 --json", id="15-json-pipe-closed", stdout="gone",
        forbid=(r"(?i)broken ?pipe",)),
]
# fmt: on

# fmt: off
ROWS += [
    # 16. Single-file outputs never replace what the run reads, nor a device or a pipe.
    Row("report k.py --target sm90 -o k.py", id="27-16-report-over-kernel", exit=2, says=(r"k\.py", r"(?i)reads")),
    Row("diff k.py --target sm90 --vary BLOCK_SIZE=256,512 --stage ttir --html k.py", id="27-16-diff-html-over-kernel",
        exit=2, says=(r"--html", r"k\.py", r"(?i)reads")),
    Row("passes k.py --target sm90 --html k.py", id="27-16-passes-html-over-kernel", exit=2,
        says=(r"--html", r"(?i)reads")),
    Row("check k.py --target sm90 --budget spills=0 --junit k.py", id="27-16-junit-over-kernel", exit=2,
        says=(r"--junit", r"(?i)reads")),
    Row("check k.py --target sm90 --baseline k.py --update-baseline", id="27-16-baseline-over-kernel", exit=2,
        says=(r"--update-baseline", r"(?i)reads")),
    Row("check --project pyproject.toml --update-baseline", id="27-16-project-baseline-over-pyproject",
        setup=(project(ENTRY + 'baseline = "pyproject.toml"\n'),), exit=2, says=(r"pyproject\.toml", r"(?i)reads")),
    Row("check --project pyproject.toml --update-baseline", id="27-16-project-baseline-over-kernel",
        setup=(project(ENTRY + 'baseline = "k.py"\n'),), exit=2, says=(r"k\.py", r"(?i)reads")),
    Row("report k.py --target sm90 -o pipe.html", id="27-16-report-into-pipe-without-reader",
        setup=(fifo("{work}/pipe.html"),), exit=2, timeout=60, says=(r"pipe\.html",)),
    Row("check k.py --target sm90 --budget spills=0 --junit null", id="27-16-junit-through-a-device",
        setup=(null_device("{work}/null"),), check=still_char_device("{work}/null")),
    Row("check k.py --target sm90 --budget spills=0 --junit /dev/stdout", id="27-16-junit-through-stdout",
        shows=(r"<testsuites?",)),
    Row("report k.py --target sm90 -o loop.html", id="27-16-20-report-symlink-loop",
        setup=(symlink_loop("{work}/loop.html"),),
        exit=2, says=(r"loop\.html",)),
    Row("check k.py --target sm90 --budget spills=0 --junit same.xml --baseline same.xml --update-baseline",
        id="27-16-two-outputs-one-file", changes=("same.xml",), exit=2, says=(r"same\.xml", r"(?i)already wrote")),
    # 5. Non-ASCII folders and files: every command works there (Triton 3.6 on).
    *([] if _TRITON < (3, 6) else [
        Row(f"dump {NON_ASCII} --target sm90 --json", id="27-5-dump-chinese-folder", setup=(copy_to(NON_ASCII),),
            json=True, check=every_stage_maps_to(NON_ASCII)),
        Row(f"explain {NON_ASCII} --target sm90", id="27-5-explain-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"double_kernel",)),
        Row(f"diff {NON_ASCII} --target sm90 --vary BLOCK_SIZE=256,512 --stage sass", id="27-5-diff-chinese-folder",
            setup=(copy_to(NON_ASCII),), shows=(r"BLOCK_SIZE",)),
        Row(f"passes {NON_ASCII} --target sm90", id="27-5-passes-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"(?i)pass",)),
        Row(f"check {NON_ASCII} --target sm90 --budget spills=0", id="27-5-check-chinese-folder",
            setup=(copy_to(NON_ASCII),), shows=(r"PASS 项目/café/dé\.py",)),
        Row(f"report {NON_ASCII} --target sm90 -o 报告.html", id="27-5-report-chinese-folder",
            setup=(copy_to(NON_ASCII),), changes=("报告.html",), says=(r"报告\.html",)),
        Row(f"grid {NON_ASCII} --target sm90", id="27-5-grid-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"output_ptr",)),
    ]),
    # 6. Kernel files inside packages, module references, missing modules (and issue 32, item 4).
    Row("dump {kernels}/kpkg/kernels/scale.py --target sm90 --stage ttir", id="27-6-file-in-package",
        shows=(r"@scale_kernel",)),
    Row("dump kpkg.kernels.scale:scale_kernel --target sm90 --stage ttir", id="27-6-module-reference",
        cwd="{kernels}", shows=(r"@scale_kernel",)),
    Row("list kpkg.kernels.scale", id="27-6-module-reference-list", cwd="{kernels}", shows=(r"scale_kernel",)),
    Row("diff {kernels}/kpkg/kernels/scale.py --target sm90 --vary BLOCK_SIZE=128,256 --stage ttir",
        id="27-6-diff-file-in-package", shows=(r"BLOCK_SIZE=128",), forbid=(r"FAILED",)),
    Row("dump kpkg.kernels.absent:k --target sm90", id="27-6-module-reference-missing", cwd="{kernels}", exit=2,
        says=(r"kpkg\.kernels\.absent",)),
    Row("dump {kernels}/kpkg/kernels/needs_zmq.py --target sm90", id="27-6-missing-module-of-library", exit=2,
        says=(r"zmq_not_installed_anywhere", r"needs_zmq\.py:6", r"transport\.py:3")),
    Row("diff {kernels}/kpkg/kernels/needs_zmq.py --target sm90 --vary num_warps=4,8",
        id="27-6-missing-module-of-library-diff", exit=2, says=(r"zmq_not_installed_anywhere",)),
    Row("dump {kernels}/kpkg/kernels/cuda_ext.py --target sm90", id="32-4-missing-extension-is-a-missing-module",
        exit=2, says=(r"kpkg\.kernels\.cuda_utils", r"(?i)not installed"), forbid=(r"(?i)GPU",)),
    # 10. User code that never returns: past --timeout, the file and the line it was stuck on.
    Row("dump {kernels}/import_loop.py --target sm90 --timeout 3", id="27-10-import-loop-line", exit=2, timeout=30,
        says=(r"import_loop\.py:9",)),
    Row("dump {kernels}/hang_heuristic.py --target sm90 --timeout 3", id="27-10-heuristic-line", exit=2, timeout=30,
        says=(r"hang_heuristic\.py:11",)),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1 --timeout 15", id="27-10-grid-loop-line", exit=2,
        timeout=60, says=(r"loop_interp\.py:1[01]",)),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256 --timeout 10",
        id="27-10-vary-loop-line", exit=1, timeout=60, shows=(r"hang_heuristic\.py:11",)),
    # 11. os._exit() at import is said, not obeyed.
    Row("dump {kernels}/exits_at_import.py --target sm90", id="27-11-os-exit-at-import", exit=2,
        says=(r"os\._exit\(7\)", r"exits_at_import\.py:8")),
    Row("diff {kernels}/exits_at_import.py --target sm90 --vary num_warps=4,8", id="27-11-os-exit-at-import-diff",
        exit=2, says=(r"os\._exit\(7\)",)),
    Row("list {kernels}/exits_at_import.py", id="27-11-os-exit-at-import-list", exit=2, says=(r"os\._exit\(7\)",)),
    # 12, 19, 20. Damaged capture files, baselines, pipes: one message naming the file, line and field.
    Row("dump cap/:double_kernel --stage ttir", id="27-12-signature-is-a-list",
        setup=(capture_records("kernels.jsonl", lambda r: {**r, "signature": [1, 2]}),), shows=(r"@double_kernel",),
        says=(r"kernels\.jsonl:1", r"signature")),
    Row("dump cap/:double_kernel --stage ttir", id="27-12-attrs-malformed-key",
        setup=(capture_records("kernels.jsonl", lambda r: {**r, "attrs": {"(0": [["tt.divisibility", 16]]}}),),
        shows=(r"@double_kernel",), says=(r"kernels\.jsonl:1", r"attrs")),
    Row("dump cap/:double_kernel --stage ttir", id="27-12-constants-wrong-type",
        setup=(capture_records("kernels.jsonl", lambda r: {**r, "constants": {"(3,)": {"a": [1]}}}),),
        shows=(r"@double_kernel",), says=(r"kernels\.jsonl:1", r"constants")),
    Row("diff cap/:double_kernel --vary num_warps=4,8 --stage ttir", id="27-12-diff-signature-is-a-list",
        setup=(capture_records("kernels.jsonl", lambda r: {**r, "signature": "text"}),), shows=(r"num_warps=8",)),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-capture-record-deeply-nested",
        setup=(capture_records("kernels.jsonl", lambda r: DEEP),), shows=(r"@double_kernel",),
        says=(r"kernels\.jsonl:1", r"(?i)nested")),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-launch-without-grid",
        setup=(capture_records("launches.jsonl", without("grid")),), shows=(r"@double_kernel",),
        says=(r"launches\.jsonl:1", r"grid")),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-launch-args-not-objects",
        setup=(capture_records("launches.jsonl", lambda r: {**r, "args": [1, "x"]}),), shows=(r"@double_kernel",),
        says=(r"launches\.jsonl:1", r"args")),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-launch-tensor-shape-text",
        setup=(capture_records("launches.jsonl", lambda r: {**r, "args": [{"kind": "tensor", "shape": "x",
                                                                             "dtype": "f"}]}),),
        shows=(r"@double_kernel",), says=(r"launches\.jsonl:1",)),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-metadata-without-warp-size", exit=2,
        setup=(capture_metadata(lambda d: {**d, "target": without("warp_size")(d["target"])}),),
        says=(r"double_kernel\.json", r"warp_size")),
    Row("dump cap/:double_kernel --stage ttir", id="27-20-metadata-nested", exit=2,
        setup=(capture_metadata(lambda d: {**d, "num_warps": {"a": {"b": [4]}}}),),
        says=(r"double_kernel\.json", r"num_warps")),
    Row("cache list cap", id="27-19-capture-log-is-a-pipe", timeout=30,
        setup=(capture, lambda env: (env.root / "work" / "cap" / "kernels.jsonl").unlink(),
               lambda env: os.mkfifo(env.root / "work" / "cap" / "kernels.jsonl")),
        shows=(r"double_kernel",), says=(r"kernels\.jsonl", r"(?i)pipe")),
    Row("cache list {cache}", id="27-19-cache-json-is-a-pipe", timeout=30, setup=(fifo_in_cache,),
        shows=(r"double_kernel",), says=(r"stuck\.json", r"(?i)pipe")),
    Row("check sample:double --target sm90 --baseline base.json", id="27-20-baseline-missing-field",
        setup=(baseline(lambda d: {**d, "resources": without("spills")(d["resources"])}),), exit=2,
        says=(r"base\.json", r"resources\.spills")),
    Row("check sample:double --target sm90 --baseline base.json", id="27-20-baseline-wrong-type",
        setup=(baseline(lambda d: {**d, "variant": {**d["variant"], "target": ["sm90"]}}),), exit=2,
        says=(r"base\.json", r"variant\.target")),
    Row("check sample:double --target sm90 --baseline base.json", id="27-20-baseline-deep-nesting",
        setup=(baseline(DEEP),), exit=2, says=(r"base\.json", r"(?i)nested")),
    Row("check sample:double --target sm90 --baseline base.json", id="27-19-baseline-is-a-pipe", timeout=30,
        setup=(fifo("{work}/base.json"),), exit=2, says=(r"base\.json", r"(?i)pipe")),
    # 8. A damaged Triton cache entry: compiled around, said once.
    Row("dump sample:double --target sm90 --json", id="27-8-cubin-cut-short", json=True, check=same_sass,
        setup=(lambda env: double_entry(env, "cubin").write_bytes(double_entry(env, "cubin").read_bytes()[:2000]),),
        says=(r"(?i)damaged", r"(?i)cut short"),
        then=Step("dump sample:double --target sm90 --json", json=True, check=same_sass, forbid=(r"(?i)damaged",))),
    Row("dump sample:double --target sm90 --json", id="27-8-group-index-garbage", json=True, check=same_sass,
        setup=(lambda env: [p.write_bytes(b"\x00garbage{") for p in (env.root / "cache").glob("*/__grp__double*")],),
        says=(r"(?i)damaged",),
        then=Step("dump sample:double --target sm90 --json", json=True, check=same_sass, forbid=(r"(?i)damaged",))),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=1024,512 --stage sass", id="27-8-metadata-garbage-diff",
        setup=(metadata(lambda d: "garbage"), truncated_metadata), shows=(r"BLOCK_SIZE=512",), forbid=(r"FAILED",)),
    # 9. A capture left half-swapped is put back by the next run that reads it.
    Row("cache list cap", id="27-9-half-swapped-capture-put-back", setup=(interrupted_capture_swap,),
        changes=("cap", ".cap.new.999999.k2x9q7wa", ".cap.old.999999.3hd8s0ft"), shows=(r"double_kernel",),
        check=lambda env, result: None if (env.root / "work" / "cap" / "kernels.jsonl").is_file() else pytest.fail(
            "cap was not put back")),
    # 13. layout: a wrong number is named before Triton's bindings see it.
    Row(f"layout '{LAYOUT_2D}' --shape -64x64", id="27-13-layout-negative-shape", exit=2, says=(r"-64",)),
    Row(f"layout '{LAYOUT_2D.replace('[1, 4]', '[1, -4]')}' --shape 64x64", id="27-13-layout-negative-field", exit=2,
        says=(r"sizePerThread", r"-4"), forbid=(r"incompatible function arguments",)),
    Row(f"layout '{LAYOUT_2D.replace('[1, 4]', '[1, 99999999999]')}' --shape 64x64", id="27-13-layout-huge-field",
        exit=2, says=(r"sizePerThread", r"99999999999"), forbid=(r"incompatible function arguments",)),
    Row(f"layout '{LAYOUT_2D.replace('order = [1, 0]', 'order = [1, 1]')}' --shape 64x64", id="27-13-layout-bad-order",
        exit=2, says=(r"order",)),
    Row(f"layout '#ttg.slice<{{dim = 7, parent = {LAYOUT_2D}}}>' --shape 64", id="27-13-layout-slice-dim-too-big",
        exit=2, says=(r"dim = 7",)),
    # 14. A value for a pointer is a usage error naming the pointer and the forms a pointer takes.
    Row("dump sample:double --target sm90 -a x_ptr=4096", id="27-14-number-for-pointer", exit=2,
        says=(r"x_ptr", r"\*fp16", r"None"), forbid=(r"does not compile",)),
    Row("dump sample:double --target sm90 -a x_ptr=fp32", id="27-14-scalar-type-for-pointer", exit=2,
        says=(r"x_ptr", r"\*fp16")),
    Row("dump sample:double --target sm90 -a x_ptr=true", id="27-14-bool-for-pointer", exit=2, says=(r"x_ptr",)),
    # 15. --json is strict JSON, whatever the kernel file does to stdout at import.
    *[Row(f"{cmd.format(f'{{kernels}}/{file}.py')} --json", id=f"27-15-{file}-{cmd.split()[0]}", json=True)
      for file in ("writes_fd1", "closes_stdout")
      for cmd in ("dump {} --target sm90 --stage ttir", "list {}", "explain {} --target sm90",
                  "diff {} --target sm90 --vary num_warps=4,8 --stage ttir",
                  "check {} --target sm90 --budget spills=0")],
    # 21. Smaller ones: a JUnit report stays XML; trace passes a signal's death on as a shell does.
    Row("check --project pyproject.toml --junit j.xml", id="27-21-junit-control-character", changes=("j.xml",),
        setup=(project(ENTRY + 'name = "bell\\u0007 nul\\u0000 esc\\u001b"\n'),), check=junit_parses),
    Row("trace -o capk -- {py} -c 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'",
        id="27-21-trace-program-sigkill", exit=137, changes=("capk",)),
    Row("trace -o capk -- {py} -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'",
        id="27-21-trace-program-sigterm", exit=143, changes=("capk",)),
    # ptxas refusing a low --maxnreg is ptxas's own line in every command that compiles, not Triton's
    # wrapper and its 900-line PTX reproducer (issue 27 item 21).
    *[Row(f"{cmd} sample:matmul --target sm90 --maxnreg 24", id=f"27-21-maxnreg-refused-{cmd.split()[0]}", exit=1,
          timeout=180, forbid=(r"Generated by LLVM", r"Repro command", r"reproducer", r"\.version \d"),
          **{where: (r"ptxas(-blackwell)? fatal : \(C7602\) Insufficient registers \(24\)", r"matmul_kernel")})
      for cmd, where in (("explain", "says"), ("dump", "says"), ("check --budget spills=0", "shows"),
                         ("diff --vary num_warps=4,8 --stage ptx", "shows"))],
    # 18. Ctrl-C or SIGTERM while ptxas runs (a cold cache): its .ptx and .log files go with the run.
    *[Row(f"{cmd} sample:fused_attention --target sm90", id=f"27-18-{cmd.split()[0]}-{name}-while-ptxas-runs",
          env={"TRITON_CACHE_DIR": "{kc}"}, signal=sig, ready=ptxas_running, timeout=120)
      for cmd in ("check --budget spills=0", "diff --vary num_warps=4,8 --stage sass")
      for name, sig in (("sigint", INT), ("sigterm", TERM))],
    # 18. A signal to trace ends the traced program and the programs it started (the terminal's group).
    *[Row("trace -o capg -- {py} {kernels}/spawns_child.py", id=f"27-18-trace-{name}-program-s-child", signal=sig,
          ready=file_appeared("started"), changes=("capg", "started"))
      for name, sig in (("sigterm", TERM), ("sighup", signal.SIGHUP), ("sigint", INT))],
    # 18. A signal during a release environment's setup: pip (and ensurepip) and what they started
    # end with tritonscope; the staging folder and pip's temporary files go (an offline index).
    *[Row("envs add 3.5.0", id=f"27-18-envs-{name}-while-{moment}", env=PIP_OFFLINE, setup=(package_index,),
          signal=sig, ready=ready, timeout=120, changes=("index",))
      for moment, ready in (("pip-builds", file_appeared("index/building")),
                            *([("ensurepip", program_running("ensurepip"))] if _PIP < (24, 1) else []))
      for name, sig in (("sigterm", TERM), ("sighup", signal.SIGHUP))],
    # The cluster executor given an address where no Ray cluster answers: one line at once, exit 2
    # (where Ray is not installed, as in the other releases' runs: one line saying how to get it).
    *[Row(f"diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --cluster {address}",
          id=f"27-sweep-cluster-address-{name}", exit=2, timeout=60,
          says=(r"--cluster", said) if _HAS_RAY else (r"--cluster needs Ray, which is not installed",
                                                     r"pip install 'tritonscope\[cluster\]'"))
      for name, address, said in (("refused", "127.0.0.1:1", r"127\.0\.0\.1:1"),
                                  ("client-refused", "ray://127.0.0.1:1", r"127\.0\.0\.1:1"),
                                  ("unknown-host", "no-such-host.invalid:6379", r"no-such-host\.invalid"),
                                  ("port-out-of-range", "127.0.0.1:99999", r"99999"),
                                  ("not-an-address", "not-an-address", r"not-an-address"))],
    # Round 3's features as they are on main (issue 27's sweep): capture diffs, Gluon, trace --target.
    Row("diff cap nothere", id="27-sweep-capdiff-missing-folder", setup=(capture,), exit=2, says=(r"nothere",)),
    Row("diff cap notes.txt", id="27-sweep-capdiff-regular-file", setup=(capture,), exit=2, says=(r"notes\.txt",)),
    Row("diff cap pipe", id="27-sweep-capdiff-named-pipe", setup=(capture, fifo("{work}/pipe")), exit=2, timeout=30,
        says=(r"pipe",)),
    Row("diff cap cap", id="27-sweep-capdiff-damaged-record",
        setup=(capture_records("kernels.jsonl", lambda r: {**r, "hash": 5}),), exit=2,
        says=(r"kernels\.jsonl:1", r"hash")),
    Row("diff cap cap", id="27-sweep-capdiff-deep-nesting", setup=(capture_records("kernels.jsonl", lambda r: DEEP),),
        exit=2, says=(r"kernels\.jsonl:1", r"(?i)nested")),
    Row("dump {kernels}/../gluon/layouts_basic.py -k row_sum -c ROWS=16 -c COLS=64 --target sm90 -w 3",
        id="27-sweep-gluon-warps-not-power-of-two", exit=2, says=(r"num_warps|--num-warps",)),
    Row("dump {kernels}/../gluon/layouts_basic.py -k row_sum -c ROWS=-16 -c COLS=64 --target sm90",
        id="27-sweep-gluon-negative-shape", exit=1, says=(r"layouts_basic\.py:\d+", r"power of 2")),
    Row("dump {kernels}/../gluon/hopper.py -k wgmma_tile -c BLOCK_M=64 -c BLOCK_N=64 -c BLOCK_K=64 --target sm80",
        id="27-sweep-gluon-hopper-kernel-on-sm80", exit=1, says=(r"hopper\.py:\d+",)),
    Row("trace --target sm999 -o capt -- {py} -c pass", id="27-sweep-trace-target-unknown", exit=2,
        says=(r"sm999",)),
    Row("trace --target sm90 -o capt -- {py} {kernels}/exits_at_import.py", id="27-sweep-trace-target-program-exits",
        exit=7, changes=("capt",)),
    # 17. An environment holding the wrong Triton is refused once, not entered again and again.
    *([] if _TRITON[:2] == (3, 7) else [
        Row("dump sample:double --target sm90 --stage ttir --triton 3.7.0", id="27-17-env-holds-wrong-triton", exit=2,
            setup=(mislabelled_env,), timeout=120, count_processes=True, says=(r"triton-3\.7\.0", r"envs remove"),
            check=lambda env, result: None if result.peak_processes <= 2 else pytest.fail(
                f"{result.peak_processes} workers at once")),
    ]),
    # 20. A damaged pyproject.toml: one message naming the file and the key, exit 2.
    Row("check --project pyproject.toml", id="27-20-pyproject-not-utf8", setup=(project(b"[tool]\nx = '\xff\xfe'\n"),),
        exit=2, says=(r"pyproject\.toml", r"(?i)utf-8")),
    Row("check --project pyproject.toml", id="27-20-pyproject-tool-not-table", setup=(project("tool = 3\n"),),
        exit=2, says=(r"pyproject\.toml", r"tool")),
    Row("check --project pyproject.toml", id="27-20-pyproject-budgets-not-list",
        setup=(project(ENTRY.replace('budgets = ["spills=0"]', "budgets = 3")),), exit=2, says=(r"budgets",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-budget-not-string",
        setup=(project(ENTRY.replace('["spills=0"]', "[{a = 1}]")),), exit=2, says=(r"budgets",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-common-budgets-not-list",
        setup=(project("[tool.tritonscope]\nbudgets = 1\n" + ENTRY),), exit=2, says=(r"budgets",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-flags-wrong-type",
        setup=(project(ENTRY.replace('flags = "-t sm90 -a n_elements=4096"', "flags = 7")),), exit=2, says=(r"flags",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-flags-unbalanced-quote",
        setup=(project(ENTRY.replace('"-t sm90 -a n_elements=4096"', "\"-t 'sm90\"")),), exit=2, says=(r"flags",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-baseline-wrong-type",
        setup=(project(ENTRY + "baseline = [1]\n"),), exit=2, says=(r"baseline",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-kernel-wrong-type",
        setup=(project(ENTRY + "kernel = {a = 1}\n"),), exit=2, says=(r"kernel",)),
    Row("check --project pyproject.toml", id="27-20-pyproject-deep-nesting",
        setup=(project("x = " + "[" * 100000 + "]" * 100000 + "\n" + ENTRY),), exit=2, says=(r"pyproject\.toml",)),
    Row("check --project pyproject.toml", id="27-19-pyproject-is-a-pipe", setup=(fifo("{work}/pyproject.toml"),),
        exit=2, timeout=30, says=(r"pyproject\.toml", r"(?i)pipe")),
]
# fmt: on


# --- the cluster executor on a real Ray head --------------------------------------------------

# A kernel for the cluster rows: its heuristic, run on the node, holds the BLOCK_SIZE 512 variant
# (writing the Ray worker's pid into {marker} first) and raises for BLOCK_SIZE 256.
ON_CLUSTER = """import os, time
import triton
import triton.language as tl


def _held(args):
    if args["BLOCK_SIZE"] == 256:
        raise ValueError("no tiles of 256 here")
    if args["BLOCK_SIZE"] == 512:
        with open({marker!r}, "x") as marker:
            marker.write(str(os.getpid()))
        time.sleep(600)
    return 1


@triton.heuristics({{"HELD": _held}})
@triton.jit
def held_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr, HELD: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {{"n_elements": 4096}}
"""
HELD = ("held.pid",)  # what the cluster rows write in the work folder


def on_cluster(env: Env) -> None:
    (env.root / "work" / "held.py").write_text(ON_CLUSTER.format(marker=str(env.root / "work" / "held.pid")))


def kill_held_worker(env: Env, child: subprocess.Popen, marker: str) -> None:
    os.kill(int((env.root / "work" / "held.pid").read_text()), signal.SIGKILL)


def held_worker_started(env: Env, child: subprocess.Popen, marker: str) -> bool:
    path = env.root / "work" / "held.pid"
    return path.exists() and path.read_text().strip() != ""


def variant_failed(block: str, pattern: str, worker_ends: bool = False) -> Callable[[Env, Result], None]:
    """The variant BLOCK_SIZE=block alone failed, its error matching `pattern`; with `worker_ends`, the
    Ray worker held by it is stopped (cancelled by force)."""

    def check(env: Env, result: Result) -> None:
        try:
            variants = strict_json(result.out)["variants"]
        except ValueError as exc:
            raise AssertionError(f"stdout is not the sweep's JSON ({exc}); stderr: {result.err[-1500:]}") from None
        failed = [(v["label"]["BLOCK_SIZE"], v["error"]) for v in variants if v["error"]]
        assert len(failed) == 1 and failed[0][0] == block and re.search(pattern, failed[0][1]), failed
        assert "\n" not in failed[0][1], f"the error is not one line: {failed[0][1]!r}"
        if worker_ends:
            pid, deadline = int((env.root / "work" / "held.pid").read_text()), time.monotonic() + 30
            while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3] != " Z ":
                assert time.monotonic() < deadline, f"the Ray worker {pid} still runs the cancelled task"
                time.sleep(0.2)

    return check


SWEEP_ON = "diff held.py --target sm90 --json --cluster {cluster} --vary BLOCK_SIZE="
UNCAPPED = {"memory": None}  # Ray's driver maps the node's whole object store: no address-space cap
# fmt: off
CLUSTER_ROWS = [
    Row(SWEEP_ON + "128,256", id="cluster-variant-raises", setup=(on_cluster,), **UNCAPPED, exit=1, json=True,
        timeout=300, check=variant_failed("256", r"held_kernel raised ValueError: no tiles of 256 here")),
    Row(SWEEP_ON + "128,512 --timeout 300", id="cluster-worker-killed", setup=(on_cluster,), **UNCAPPED, exit=1,
        json=True, timeout=300, ready=held_worker_started, action=kill_held_worker, changes=HELD,
        check=variant_failed("512", r"crashed on the cluster")),
    Row(SWEEP_ON + "128,512 --timeout 20", id="cluster-variant-past-timeout", setup=(on_cluster,), **UNCAPPED,
        exit=1, json=True, timeout=300, changes=HELD,
        check=variant_failed("512", r"^timed out after 20 s$", worker_ends=True)),
    Row(SWEEP_ON + "128,512 --timeout 300", id="cluster-sigint-mid-sweep", setup=(on_cluster,), **UNCAPPED, signal=INT,
        timeout=300, ready=held_worker_started, changes=HELD),
]
# fmt: on


@pytest.fixture(scope="module")
def ray_cluster():
    """One Ray head for the module's cluster rows (started only when one runs; seconds)."""
    pytest.importorskip("ray")
    from ray_head import ray_head

    with ray_head() as (address, _):
        yield address


@pytest.mark.parametrize("row", CLUSTER_ROWS, ids=[r.id for r in CLUSTER_ROWS])
def test_cluster_fault(row: Row, ray_cluster, warm, tmp_path):
    check_row(row, warm, tmp_path, {"{cluster}": ray_cluster})


def test_cluster_head_gone_mid_sweep(warm, tmp_path):
    """The head of the cluster stops while a variant runs: one line naming the cluster, exit 2, and
    nothing of the run left (a head of its own: this one is stopped)."""
    pytest.importorskip("ray")
    from ray_head import ray_head, stop

    with ray_head() as (address, session):
        row = Row(
            SWEEP_ON + "128,512 --timeout 300",
            id="cluster-head-gone",
            setup=(on_cluster,),
            **UNCAPPED,
            exit=2,
            timeout=300,
            ready=held_worker_started,
            action=lambda *_: stop(session),
            changes=HELD,
            says=(rf"--cluster {re.escape(address)}", r"(?i)stopped answering"),
            forbid=(r"SystemExit",),
        )
        check_row(row, warm, tmp_path, {"{cluster}": address})


# --- the test -------------------------------------------------------------------------------


def user_files(root: Path, double: Path) -> None:
    """What a user keeps around: a kernel, notes, data, a program to trace, a home with files."""
    work, home = root / "work", root / "home"
    (work / "data").mkdir(parents=True)
    shutil.copy(double, work / "k.py")
    (work / "notes.txt").write_text("do not lose me\n")
    (work / "data" / "table.csv").write_bytes(bytes(range(256)) * 4)
    (work / "run_me.py").write_text(RUN_ME)
    (home / "docs").mkdir(parents=True)
    (home / ".bashrc").write_text("export PATH=$PATH\n")
    (home / "docs" / "thesis.txt").write_text("chapter 1\n")
    (root / "tmp").mkdir()


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A Triton cache and user cache warmed once (sample:double and sample:vector_add), the SASS of
    sample:double from a clean run, and the sample's path."""
    root = tmp_path_factory.mktemp("warm")
    for name in ("tmp", "work"):
        (root / name).mkdir()
    env = Env(root, "")
    samples, _ = run(env, Run("samples --json"))
    double = Path(next(s["path"] for s in json.loads(samples.out)["samples"] if s["name"] == "double"))
    reference, _ = run(env, Run("dump sample:double --target sm90 --json"))
    assert reference.code == 0, reference.err
    setup_run(env, "dump sample:vector_add --target sm90 --stage ttir")
    return root, strict_json(reference.out)["stages"]["sass"], double


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


def check_row(row: Row, warm, tmp_path: Path, places: dict[str, str] | None = None) -> None:
    """Runs a row in fresh folders (the warm caches copied in) and asserts all of the module's checks."""
    warm_root, reference_sass, double = warm
    env = Env(tmp_path, reference_sass, places or {})
    user_files(tmp_path, double)
    for name in ("cache", "xdg"):
        shutil.copytree(warm_root / name, tmp_path / name)
    for group in (tmp_path / "cache").glob("*/__grp__*.json"):  # Triton's index holds absolute paths
        group.write_text(group.read_text().replace(str(warm_root / "cache"), str(tmp_path / "cache")))
    for step in row.setup:
        step(env)
    work_before = snapshot(tmp_path / "work", row.changes)
    home_before = snapshot(tmp_path / "home")

    result, survivors = run(env, row)
    problems = problems_of(env, "run", result, survivors, row.exit, row)
    for folder_name, before in (("work", work_before), ("home", home_before)):
        after = snapshot(tmp_path / folder_name, row.changes if folder_name == "work" else ())
        lost = sorted(set(before) - set(after))
        changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
        added = sorted(set(after) - set(before))
        if lost or changed or added:
            problems.append(f"{folder_name} changed: lost {lost[:4]} changed {changed[:4]} added {added[:4]}")
    if row.then is not None:
        then, then_survivors = run(env, row.then)
        problems += problems_of(env, "next run", then, then_survivors, row.then.exit, row.then)
    for path in tmp_path.rglob("*"):  # let pytest remove what a row made read-only
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    assert not problems, "\n".join(
        [*problems, f"exit {result.code}; stderr: {result.err.strip()[-600:]}", f"stdout: {result.out.strip()[:300]}"]
    )


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped): no process has it now."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_run_s_temporary_folder_is_removed_by_the_next_run(warm, tmp_path):
    """SIGKILL leaves the run's TMPDIR folder (ptxas's files in it); the next run removes it, and
    nothing else: not the folder of a run still alive, not a user's file of a similar name."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    tmp = tmp_path / "tmp"
    abandoned, alive = tmp / f"tritonscope-run.{dead_pid()}.k2x9q7wa", tmp / f"tritonscope-run.{os.getpid()}.x"
    for folder in (abandoned, alive, tmp / "tritonscope-run.notes"):
        folder.mkdir()
        (folder / "tmpabc.ptx").write_text("// ptx\n")
    (tmp / "tritonscope-run.1.txt").write_text("a user's file\n")
    result, survivors = run(env, Run("dump sample:double --target sm90 --stage ttir"))
    assert result.code == 0 and not survivors, result.err
    left = sorted(p.name for p in tmp.iterdir())
    assert left == sorted([alive.name, "tritonscope-run.notes", "tritonscope-run.1.txt"])


def test_sigkill_during_an_install_leaves_what_the_next_install_removes(warm, tmp_path):
    """SIGKILL to tritonscope while pip builds: pip and its build backend (pip's own child) end with it,
    and the staging folder and temporary folder it left are removed by the next install."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    package_index(env)
    killed = Run(
        "envs add 3.5.0", env=PIP_OFFLINE, signal=signal.SIGKILL, ready=file_appeared("index/building"), timeout=120
    )
    result, survivors = run(env, killed)
    assert result.code == -signal.SIGKILL and not survivors, f"{len(survivors)} process(es) left: {result.err}"
    envs = tmp_path / "xdg" / "tritonscope" / "envs"
    assert [p.name for p in envs.glob(".triton-3.5.0.new.*")], "the killed install left no staging folder"
    (tmp_path / "work" / "index" / "triton-3.5.0.tar.gz").unlink()  # the next install fails at once
    then, survivors = run(env, Run("envs add 3.5.0", env=PIP_OFFLINE, timeout=120))
    assert then.code == 2 and not survivors and found(r"3\.5\.0", then.err), then.err
    assert "Traceback" not in then.err
    assert not list(envs.iterdir()), "a staging folder is left"
    assert not list((tmp_path / "tmp").iterdir()), "pip's or the run's temporary files are left"
