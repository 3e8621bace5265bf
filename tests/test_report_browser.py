"""The report opened in a real browser: Debian's Chromium, headless, with no network (every
host name resolves to nothing).  No console message (an error, an uncaught exception, a
failed load), the sections in the DOM after the scripts ran, sorting and filtering from the
page's address (``#sort=-row&filter=error``), and a screenshot kept as a test artefact.

Chromium is required: ``apt-get install chromium`` (what ``.ci/run`` does when it is
missing); without it these tests fail, they are not skipped.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_report import ALL, awkward_model

import xpg
from xpg.report import write_report

pytestmark = pytest.mark.slow

SECTIONS = ("summary", "attribution", "classes", "distributions", "rows", "details")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "Chromium is not installed: install Debian's package (apt-get install chromium); "
            "the report's browser tests need it"
        )
    return found


def browse(page: Path, tmp_path: Path, *args: str, fragment: str = "") -> tuple[str, list[str]]:
    """Open ``page`` headless with no network: standard output and the console messages."""
    proc = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            *args,
            page.resolve().as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, re.findall(r":CONSOLE[^\]]*\] (.*)", proc.stderr)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    rows = [
        {"<b>radius</b>": i % 5, "seconds": (i * 7) % 3, "inflated": ["red", "<i>blue</i>"][i % 2],
         "robustness": i % 10}
        for i in range(30)
    ]  # fmt: skip
    rows[4]["robustness"] = 99  # outside the domain: an error record
    records = xpg.explain_many(awkward_model(), rows, kinds=ALL)
    source = folder / "records.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    write_report(source, folder / "report.html")
    return folder / "report.html"


def _rows(dom: str) -> list[tuple[int, bool]]:
    """The row table's rows in page order: (row number, hidden)."""
    body = dom[dom.index('<table id="row-table"') :]
    body = body[: body.index("</table>")]
    return [
        (int(number), "hidden" in attributes)
        for attributes, number in re.findall(
            r"<tr([^>]*)><td[^>]*><a href=\"#row-\d+\">(\d+)", body
        )
    ]


def test_the_page_opens_with_its_sections_and_no_console_message(
    page: Path, tmp_path: Path
) -> None:
    dom, console = browse(page, tmp_path, "--dump-dom")
    assert console == []
    for name in SECTIONS:
        assert f'<section id="{name}">' in dom, name
    assert dom.count("<svg") == 3
    assert [n for n, _ in _rows(dom)] == list(range(30))
    assert "&lt;b&gt;radius&lt;/b&gt;" in dom and "<b>radius" not in dom


def test_sorting_and_filtering_from_the_address(page: Path, tmp_path: Path) -> None:
    dom, console = browse(page, tmp_path, "--dump-dom", fragment="#sort=-row")
    assert console == []
    assert [n for n, _ in _rows(dom)] == list(range(29, -1, -1))
    assert '<th data-key="row" aria-sort="descending">' in dom
    dom, _ = browse(page, tmp_path, "--dump-dom", fragment="#sort=robustness&filter=error")
    shown = [n for n, hidden in _rows(dom) if not hidden]
    assert shown == [4]
    assert '<span id="row-status">1 of 30 rows match</span>' in dom
    distances = re.findall(r'<td class="num" data-sort="([^"]*)"[^>]*>[^<]*</td></tr>', dom)
    numbers = [float(d) for d in distances if d]
    assert numbers == sorted(numbers) and len(numbers) == 29  # the error row has none


@pytest.mark.parametrize(
    "bad",
    ['<script>console.error("deliberate")</script>', "<script>undefinedFunction()</script>"],
)
def test_a_console_error_is_seen(page: Path, tmp_path: Path, bad: str) -> None:
    """The check above can fail: a page that logs an error, or throws, is caught."""
    broken = tmp_path / "broken.html"
    broken.write_text(page.read_text().replace("</body>", bad + "</body>"))
    _, console = browse(broken, tmp_path, "--dump-dom")
    assert len(console) == 1 and ("deliberate" in console[0] or "Uncaught" in console[0])


def test_screenshot(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    _, console = browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1200,3000",
                        "--hide-scrollbars")  # fmt: skip
    assert console == []
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 3000)
    assert len(data) > 50_000  # text, tables and plots, not a blank page
