"""The Run-it-here panel's words in Chinese, without a browser: every ``say("...")`` of
runner.js has its Chinese in runner.po (placeholders kept), and no label bypasses say()."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO, load_extension, translations

runner = load_extension("runner")

SOURCE = (REPO / "docs" / "_static" / "runner" / "runner.js").read_text(encoding="utf-8")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
CJK = re.compile(r"[\u4e00-\u9fff]")
RUNNER_PO = REPO / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / f"{runner.MESSAGES_DOMAIN}.po"


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


def test_the_panel_words_are_the_runner_catalog() -> None:
    """make gettext writes runner.po from PANEL_WORDS and runner.js's say()s; a changed
    English line not yet in it (make gettext not run) would stay English on Chinese pages."""
    words = runner.script_words()
    assert {"Run", "Stop", "Ran in {seconds} s."} <= set(words)  # the reader finds say()s
    assert (
        "Edit the hardware table, then press Run: your browser works this answer out again "
        "with the course's own code." in words
    )
    assert set(translations(RUNNER_PO)) == {*runner.PANEL_WORDS, *words}


def test_each_panel_word_has_its_chinese_with_its_placeholders() -> None:
    for english, chinese in translations(RUNNER_PO).items():
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
