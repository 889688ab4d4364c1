"""The files `check` writes, for a project's entries and a capture's alike: baselines and JUnit."""

from __future__ import annotations

from pathlib import Path

from ..output import File


def written_files(result, update: bool, junit: Path | None) -> tuple[File, ...]:
    """What check writes: with --update-baseline, each compiled entry's `dump --json` report as its
    baseline; with --junit, the JUnit report."""
    from ...results.dump import DumpResult

    written = []
    if update:
        written += [
            File(
                Path(o.entry.baseline),
                "json",
                "--update-baseline",
                (o.entry.request.file,),
                result=DumpResult(c, tuple(c.stages)),
            )
            for o in result.outcomes
            if (c := o.compilation) is not None and o.entry.baseline
        ]
    if junit is not None:
        written.append(File(junit, "junit", "--junit"))
    return tuple(written)
