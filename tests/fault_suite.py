"""The fault suite of issues 14 and 27, its machinery: hostile input, faults, signals, bad caches
and odd folders, one table row per hostile case (the rows are in tests/test_faults_*.py, one file
per subject, numbered by the issue's class).

Each row runs `python -m tritonscope` in a subprocess, with private folders: a work folder holding
user files (the cwd), HOME, TRITON_CACHE_DIR and XDG_CACHE_HOME (copies of a cache warmed once per
test module: the `warm` fixture, tests/conftest.py) and TMPDIR. Then, for every row and every
follow-up run:

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
    """Triton has written ptxas's input (tmpXXXX.ptx, in TMPDIR or a folder of the run's there).
    os.walk, not rglob: the run makes and removes folders while this looks, and rglob raises on
    a folder gone between listing and reading it (os.walk skips it)."""
    return any(name.endswith(".ptx") for _, _, names in os.walk(env.root / "tmp") for name in names)


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


# rustup's own state, which its proxies write in HOME when a process that installing a release environment
# starts (pip, a package's build) asks for a Rust toolchain: the toolchain's files, not tritonscope's.
HOME_TOOLCHAINS = (".rustup",)


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
# A backslash before digits, as MLIR, LLVM, PTX and nvdisasm escape it (`\\`), and a byte escape beside it.
BACKSLASHED = "a\\303/k\\001é.py"
ENTRY = '[[tool.tritonscope.check]]\nfile = "k.py"\nflags = "-t sm90 -a n_elements=4096"\nbudgets = ["spills=0"]\n'


OUT_OK = Step("dump sample:double --target sm90 -o out --force", check=out_complete)
TERM, INT = signal.SIGTERM, signal.SIGINT
DEFAULTS_OF_DOUBLE = "--target sm90 -a n_elements=4096"

# --- a row's run ---------------------------------------------------------------------------


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


def warm_caches(tmp_path_factory):
    """The `warm` fixture (tests/conftest.py): a Triton cache and user cache warmed once
    (sample:double and sample:vector_add), the SASS of sample:double from a clean run, and the
    sample's path."""
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
    home_before = snapshot(tmp_path / "home", HOME_TOOLCHAINS)

    result, survivors = run(env, row)
    problems = problems_of(env, "run", result, survivors, row.exit, row)
    for folder_name, before in (("work", work_before), ("home", home_before)):
        after = snapshot(tmp_path / folder_name, row.changes if folder_name == "work" else HOME_TOOLCHAINS)
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
