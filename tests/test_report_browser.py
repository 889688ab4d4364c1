"""The HTML report in a real headless Chromium (Debian's chromium and chromium-driver).

Driven with Selenium pointed at the system browser and driver, so nothing is downloaded.
Without them on a developer machine these tests skip with the reason; in CI (CI=true)
they must run, and a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from cli_process import tritonscope
from conftest import KERNELS, compiled

from tritonscope.analysis import linemap
from tritonscope.app.explain import explain_compilation
from tritonscope.core.stages import Stage
from tritonscope.render import html

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    missing = [name for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not path]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package")
    if missing:
        reason = f"no {', '.join(missing)}: apt-get install chromium chromium-driver; pip install selenium"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests, but there is {reason}")
        pytest.skip(reason)
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch browsers or drivers
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--window-size=1600,1000",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",  # the network is off
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    yield driver
    driver.quit()


def _open(browser, tmp_path, compilation, name):
    page = tmp_path / f"{name}.html"
    stages = [s for s in compilation.stages if s is not Stage.SOURCE]
    page.write_text(
        html.compilation_report(compilation, stages, explained=explain_compilation(compilation, live=False))
    )
    browser.get(page.as_uri())
    return page


def _lit(browser, stage: Stage) -> set[int]:
    from selenium.webdriver.common.by import By

    return {
        int(e.get_attribute("data-line"))
        for e in browser.find_elements(By.CSS_SELECTOR, f'.l.hl[data-stage="{stage.value}"]')
    }


def test_clicking_the_dot_line_lights_exactly_its_ptx_and_sass(browser, tmp_path):
    from selenium.webdriver.common.by import By

    c = compiled("sample:matmul", "sm90")
    _open(browser, tmp_path, c, "matmul")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    dot = next(e for e in browser.find_elements(By.CSS_SELECTOR, '.l[data-stage="source"]') if "tl.dot(" in e.text)
    dot.click()
    line = int(dot.get_attribute("data-py"))
    for stage in (Stage.PTX, Stage.SASS):
        expected = set(linemap.stage_lines(c, stage, {(c.kernel.file, line)}))
        assert expected and _lit(browser, stage) == expected, stage
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "report-matmul-dot.png"))


def test_clicking_a_stage_line_lights_its_python_line(browser, tmp_path):
    from selenium.webdriver.common.by import By

    c = compiled("sample:vector_add", "sm90")
    _open(browser, tmp_path, c, "vector_add")
    lines = browser.find_elements(By.CSS_SELECTOR, '.l[data-stage="sass"]')
    # textContent, not .text: the text a line holds, whether or not the browser has painted it yet
    load = next((e for e in lines if "LDG.E.128" in e.get_attribute("textContent")), None)
    assert load is not None, f"no LDG.E.128 among {len(lines)} SASS lines; the SASS: {c.stages[Stage.SASS][:600]}"
    browser.execute_script("arguments[0].scrollIntoView()", load)
    load.click()
    source = [e.text for e in browser.find_elements(By.CSS_SELECTOR, '.l.hl[data-stage="source"]')]
    assert any("tl.load(x_ptr" in text or "tl.load(y_ptr" in text for text in source), source
    assert "sel" in load.get_attribute("class")


def test_injected_script_is_shown_as_text_and_never_runs(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException

    c = compiled(str(KERNELS / "injection.py"), "sm90")
    _open(browser, tmp_path, c, "injection")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - raises when no alert is open
    assert browser.execute_script("return window.pwned === undefined")
    assert "</script><script>window.pwned = 1; alert(1)</script>" in browser.find_element("tag name", "body").text
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "report-injection.png"))


def test_the_heatmap_and_a_finding_lead_to_the_stages(browser, tmp_path):
    from selenium.webdriver.common.by import By

    c = compiled("sample:matmul", "sm80")
    _open(browser, tmp_path, c, "matmul-sm80")
    cells = {
        int(e.find_element(By.XPATH, "..").get_attribute("data-line")) + c.kernel.first_line - 1: e
        for e in browser.find_elements(
            By.CSS_SELECTOR, '.l[data-stage="source"] .cost.h1, .cost.h2, .cost.h3, .cost.h4'
        )
    }
    dot = next(n for n, code in enumerate(c.kernel.source.splitlines(), start=c.kernel.first_line) if "tl.dot(" in code)
    assert "matrix 64" in cells[dot].get_attribute("title")
    link = next(e for e in browser.find_elements(By.CSS_SELECTOR, "a[data-goto]") if e.text == "line 44")
    link.click()
    expected = set(linemap.stage_lines(c, Stage.SASS, {(c.kernel.file, 44)}))
    assert expected and _lit(browser, Stage.SASS) == expected
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "report-matmul-heat.png"))


def _injected(browser) -> tuple[list[str], list[str]]:
    """What markup from a hostile kernel did in the open page: the `__pwned*` globals its scripts
    set, and the b/img/h2 elements its text made (the page's own tags carry no hostile words)."""
    return browser.execute_script(
        "return [Object.keys(window).filter(k => k.startsWith('__pwned')),"
        " Array.from(document.querySelectorAll('b, img, h1, script:not([id]), iframe'))"
        "  .map(e => e.outerHTML).filter(h => /pwned|bold|printed|device|escaped|>tag</.test(h))]"
    )


def test_pages_built_from_markup_show_it_as_text_in_every_html_output(browser, tmp_path):
    """report, diff --html (a variant that fails, whose message carries the markup) and
    passes --html of a kernel whose docstring, comments, prints and constexprs are markup."""
    kernel = KERNELS / "faults" / "markup_kernel.py"
    bad = "<script>window.__pwned_vary=1</script><b>bold vary</b>"
    pages = {
        "report": ("report", kernel, "--target", "sm90", "-o", tmp_path / "report.html"),
        "diff": ("diff", kernel, "--target", "sm90", "--vary", f"BLOCK=16,{bad}", "--html", tmp_path / "diff.html"),
        "passes": ("passes", kernel, "--target", "sm90", "--html", tmp_path / "passes.html"),
    }
    for name, args in pages.items():
        tritonscope(*args, expect=None)
        page = tmp_path / f"{name}.html"
        assert page.is_file(), name
        browser.get(page.as_uri())
        ran, made = _injected(browser)
        assert ran == [] and made == [], f"{name}: scripts ran {ran}, markup rendered {made}"
    browser.get((tmp_path / "report.html").as_uri())
    body = browser.find_element("tag name", "body").text
    assert "<script>window.__pwned_comment = 1</script> <b>bold comment</b>" in body
    assert "<script>window.__pwned_tag=1</script><b>tag</b>" in body


def test_only_the_pages_own_script_may_run(browser, tmp_path):
    """Defence in depth: markup that slipped past escaping still cannot run (the policy lists the
    page's own script by digest), while the page's own script does run."""
    c = compiled("sample:double", "sm90")
    page = html.compilation_report(c, [Stage.TTIR])
    hostile = '<img src="x" onerror="window.__pwned_img=1"><script>window.__pwned_script=1</script>'
    (tmp_path / "slipped.html").write_text(page.replace("<header>", hostile + "<header>", 1))
    browser.get((tmp_path / "slipped.html").as_uri())
    assert browser.execute_script("return Object.keys(window).filter(k => k.startsWith('__pwned'))") == []
    load = next(e for e in browser.find_elements("css selector", '.l[data-stage="source"]') if "tl.load" in e.text)
    load.click()
    assert browser.find_elements("css selector", '.l.hl[data-stage="ttir"]'), "the page's own script did not run"
