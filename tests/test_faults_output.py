"""Output files and folders (issue 14 and 27's fault suite, tests/fault_suite.py): the user's files never
lost, a --force swap cut short put right, single-file outputs that never replace what the run
reads, and --json that is only the document."""

from __future__ import annotations

import pytest
from fault_suite import (
    ENTRY,
    INT,
    OUT_OK,
    TERM,
    Row,
    capture,
    check_row,
    copy_to,
    fifo,
    interrupted_swap,
    junit_parses,
    null_device,
    out_complete,
    project,
    regular_file,
    staging_appeared,
    still_char_device,
    swap_started,
    symlink_loop,
    tool_output,
)

# fmt: off
ROWS = [
    # 1. Data loss: an output folder that holds the user's files.
    Row("dump k.py --target sm90 -o . --force", id="1-dump-out-cwd", exit=2,
        says=(r"(?i)current (working )?directory|working directory",)),
    Row("dump ../k.py --target sm90 -o .. --force", id="1-dump-out-parent", cwd="{work}/data", exit=2,
        says=(r"(?i)current (working )?directory|working directory|contains",)),
    *[Row(f"{cmd} sample:double --target sm90 -o afile/{name}", id=f"r4-{cmd}-out-below-a-file", exit=2,
          setup=(regular_file("{work}/afile"),), says=(r"cannot write there: \S*afile is not a folder",))
      for cmd, name in (("dump", "x"), ("report", "x.html"))],
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
    # 11. --json is only the document.
    Row("dump {kernels}/printer.py --target sm90 --json", id="11-dump-json-file-prints", json=True),
    Row("list {kernels}/printer.py --json", id="11-list-json-file-prints", json=True),
    Row("diff {kernels}/printer.py --target sm90 --vary BLOCK_SIZE=512,1024 --stage ttgir --json",
        id="11-diff-json-file-prints", json=True),
    Row("grid {kernels}/printer.py --target sm90 --json", id="11-grid-json-file-prints", json=True),
    Row("dump {kernels}/scale.py --target sm90 -c SCALE=nan --json", id="11-json-nan-constexpr", json=True),
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
    # 15. --json is strict JSON, whatever the kernel file does to stdout at import.
    *[Row(f"{cmd.format(f'{{kernels}}/{file}.py')} --json", id=f"27-15-{file}-{cmd.split()[0]}", json=True)
      for file in ("writes_fd1", "closes_stdout")
      for cmd in ("dump {} --target sm90 --stage ttir", "list {}", "explain {} --target sm90",
                  "diff {} --target sm90 --vary num_warps=4,8 --stage ttir",
                  "check {} --target sm90 --budget spills=0")],
    # 21. Smaller ones: a JUnit report stays XML.
    Row("check --project pyproject.toml --junit j.xml", id="27-21-junit-control-character", changes=("j.xml",),
        setup=(project(ENTRY + 'name = "bell\\u0007 nul\\u0000 esc\\u001b"\n'),), check=junit_parses),
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)
