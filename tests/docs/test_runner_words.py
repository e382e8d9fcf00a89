"""The Run-it-here panel's own words in Chinese, read from runner.js without a browser.

``docs/_static/runner/runner.js`` writes its English where it uses it, through
``say("...")``, and keeps one table, ``WORDS``, of the other languages; a page's
``<html lang>`` picks one. A label added without a Chinese entry, an entry whose
placeholders differ from its English, or an English label not passed through ``say``
would show English (or a raw ``{name}``) on a Chinese page.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO, load_extension, translations

runner = load_extension("runner")

SOURCE = (REPO / "docs" / "_static" / "runner" / "runner.js").read_text(encoding="utf-8")
STRING = r'"(?:[^"\\]|\\.)*"'
PLACEHOLDER = re.compile(r"\{(\w+)\}")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _unquote(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def table(language: str) -> dict[str, str]:
    """One language's entries of WORDS: English -> translation."""
    block = re.search(r"const WORDS = \{\n(.*?)\n  \};", SOURCE, re.DOTALL)
    assert block, "runner.js has no WORDS table"
    part = re.search(rf"\n    {language}: \{{\n(.*?)\n    \}},", "\n" + block.group(1), re.DOTALL)
    assert part, f"WORDS has no {language!r}"
    entries = re.findall(rf"({STRING}|\w+):\s*({STRING}),", part.group(1))
    return {(_unquote(k) if k.startswith('"') else k): _unquote(v) for k, v in entries}


def said() -> set[str]:
    """The English of every say("...") in runner.js (literals joined by + read as one)."""
    calls = re.findall(rf"say\(\s*((?:{STRING}\s*\+?\s*)+)", SOURCE)
    return {"".join(_unquote(s) for s in re.findall(STRING, call)) for call in calls}


def test_every_label_of_the_panel_has_chinese_with_its_placeholders() -> None:
    zh, labels = table("zh"), said()
    # the reader finds the calls (literals joined by + too) and the table
    assert {"Run", "Stop", "Ran in {seconds} s."} <= labels and zh["Stop"] == "停止"
    assert (
        "Edit the hardware table, then press Run: your browser works this answer out again "
        "with the course's own code." in labels
    )
    missing = sorted(labels - set(zh))
    assert not missing, "labels with no Chinese in runner.js's WORDS:\n" + "\n".join(missing)
    unused = sorted(set(zh) - labels)
    assert not unused, "Chinese for labels runner.js no longer has:\n" + "\n".join(unused)
    for english, chinese in zh.items():
        assert sorted(PLACEHOLDER.findall(english)) == sorted(PLACEHOLDER.findall(chinese)), english
        assert CJK.search(chinese), f"{english!r} is not translated: {chinese!r}"


def test_no_label_bypasses_say() -> None:
    """A label, title or status given as a bare literal would stay English on a Chinese
    page (a template starting with ${...}, such as a line link, is program output)."""
    bare = re.findall(
        r'(?:\b(?:text|title|label)|"aria-label"):\s*(?:"[^"]|`(?!\$\{))[^\n]*'
        r'|\b(?:setStatus\(panel|stale\(view|announce\(|boot\()\s*,?\s*(?:"[^"]|`)[^\n]*',
        SOURCE,
    )
    assert not bare, "labels not passed through say():\n" + "\n".join(bare)
    # nor as text or a label written into the panel's HTML template
    html = re.findall(r'>[A-Za-z][^<$`]*<|(?:title|aria-label)="[A-Za-z][^"]*"', SOURCE)
    assert not html, "HTML text not passed through say():\n" + "\n".join(html)


# ---------------------------------------------------------------------------
# The status line the page itself carries (a reader without JavaScript sees it)
# ---------------------------------------------------------------------------
RUNNER_PO = REPO / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / f"{runner.MESSAGES_DOMAIN}.po"


def test_each_status_line_has_its_chinese_with_its_placeholders() -> None:
    """make gettext writes runner.po from PANEL_WORDS; a changed English line not yet in it
    (make gettext not run) would stay English on Chinese pages."""
    entries = translations(RUNNER_PO)
    assert set(entries) == set(runner.PANEL_WORDS)
    for english, chinese in entries.items():
        assert CJK.search(chinese), f"{english!r} is not translated"
        assert sorted(PLACEHOLDER.findall(english)) == sorted(PLACEHOLDER.findall(chinese))
        assert re.findall(r"</?\w+>", english) == re.findall(r"</?\w+>", chinese), english


def test_a_chinese_page_carries_the_chinese_title_and_status_line() -> None:
    zh = translations(RUNNER_PO)
    on = runner.Runtime(Path("node_modules/pyodide"), version="1")
    data = {"kind": "exercise", "target": "v5e-int8", "options": "[]"}
    page = runner.panel_html(data, on, "", say=zh.__getitem__)
    assert zh[runner.STATUS_READY] in page and "needs JavaScript" not in page
    assert zh[runner.TITLE] in page and "Run it here" not in page
    off = runner.Runtime(Path("node_modules/pyodide"), reason="npm is <missing>")
    page = runner.panel_html(data, off, "", say=zh.get)
    status = re.search(r'class="rl-runner-status" role="status">(.*?)</span>', page).group(1)
    assert CJK.search(status) and "npm is &lt;missing&gt;" in status  # the reason escaped
    assert "unavailable in this build" not in status
    english = runner.panel_html(data, off, "")
    assert "unavailable in this build" in english and "npm is &lt;missing&gt;" in english
