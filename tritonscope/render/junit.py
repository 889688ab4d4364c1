"""`check --junit FILE`: the result as JUnit XML, which CI systems (GitLab, Jenkins, GitHub
actions' reporters) show as tests: one test case per entry, a failure per broken budget."""

from __future__ import annotations

from xml.etree import ElementTree

from ..results.check import CheckResult


class JunitReport:
    def render(self, result: CheckResult) -> str:
        outcomes = result.outcomes
        suite = ElementTree.Element(
            "testsuite",
            name="tritonscope check",
            tests=str(len(outcomes)),
            failures=str(sum(1 for o in outcomes if o.error is None and o.broken)),
            errors=str(sum(1 for o in outcomes if o.error is not None)),
        )
        for outcome in outcomes:
            c = outcome.compilation
            case = ElementTree.SubElement(
                suite,
                "testcase",
                name=outcome.entry.name,
                classname=c.kernel.name if c else (outcome.entry.request.kernel or outcome.entry.request.file),
                time=f"{c.compile_seconds:.3f}" if c else "0",
            )
            if outcome.error is not None:
                ElementTree.SubElement(case, "error", message=outcome.error).text = outcome.error
            for broken in outcome.broken:
                value = "none" if broken.value is None else f"{broken.value:g}"
                message = f"{broken.figure} = {value}, limit {broken.limit}"
                failure = ElementTree.SubElement(case, "failure", message=message, type=broken.figure)
                failure.text = message + (f"\n{broken.finding}" if broken.finding else "")
        ElementTree.indent(suite)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"
