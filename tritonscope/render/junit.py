"""`check --junit FILE`: the result as JUnit XML, which CI systems (GitLab, Jenkins, GitHub
actions' reporters) show as tests: one test case per entry, a failure per broken budget."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from ..results.check import CheckResult

# What XML 1.0 cannot hold at all, even escaped: control characters but tab and newlines, lone
# surrogates, U+FFFE and U+FFFF. A kernel's name or a compiler's message may carry them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Text XML can hold: each character it cannot shown as its code (`\\x07`)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


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
                name=_xml_text(outcome.entry.name),
                classname=_xml_text(
                    c.kernel.name if c else (outcome.entry.request.kernel or outcome.entry.request.file)
                ),
                time=f"{c.compile_seconds:.3f}" if c else "0",
            )
            if outcome.error is not None:
                error = _xml_text(outcome.error)
                ElementTree.SubElement(case, "error", message=error).text = error
            for broken in outcome.broken:
                message = f"{broken.figure} = {broken.value_said}, limit {broken.limit}"
                failure = ElementTree.SubElement(case, "failure", message=message, type=broken.figure)
                failure.text = _xml_text(message + (f"\n{broken.finding}" if broken.finding else ""))
        ElementTree.indent(suite)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"
