"""The docs build's sphinx-gallery hooks: lecture flags, argv, and the PNG scraper (no Sphinx)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import PNG_1PX, REPO, load_extension

from common.files import atomic

docs_hooks = load_extension("docs_hooks")

LECTURES = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))


def declaring(folder: Path, body: str, after: str = "", name: str = "99_toy.py") -> Path:
    """A lecture file whose make_parser() runs `body` on `parser`; `after` follows it."""
    folder.mkdir(parents=True, exist_ok=True)
    lecture = folder / name
    lecture.write_text(
        '"""Toy lecture"""\n\nfrom common.shell import cli\n\n\n'
        "def make_parser():\n    parser = cli.lecture_parser(__doc__)\n"
        + "".join(f"    {line}\n" for line in body.splitlines())
        + "    return parser\n\n\n"
        + after,
        encoding="utf-8")  # fmt: skip
    return lecture


def flags(lecture: Path) -> list[str]:
    """The flags the docs build passes `lecture`, without their values."""
    return [a for a in docs_hooks.lecture_argv(lecture, Path("/o"), Path("/r")) if a[:2] == "--"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [("cli.add_png_flags(parser)", ["--png", "--outdir"]),  # with --results: test_reset_argv
     ("cli.add_outdir_flag(parser)", ["--outdir"]),
     ("parser.add_argument('--png', action='store_true')\nparser.add_argument('--results')",
      ["--png", "--results"]),
     ("parser.add_argument('--quick', action='store_true')", [])],
)  # fmt: skip
def test_lecture_flags_from_its_declared_parser(tmp_path: Path, body: str, expected: list) -> None:
    # only the imports and make_parser() run: the lecture's work (here: a crash) does not
    assert flags(declaring(tmp_path, body, after="raise SystemExit(3)\n")) == expected


def test_reset_argv_points_every_output_into_the_build_folder(tmp_path: Path) -> None:
    body = "cli.add_png_flags(parser)\ncli.add_results_flag(parser)"
    lecture = declaring(tmp_path / "lectures", body, name="09_demo.py")
    docs = tmp_path / "docs"
    argv = docs_hooks.reset_argv({"src_dir": str(docs)}, {"src_file": str(lecture)})
    outdir = docs / "_build" / "lecture_outputs" / "figures" / "09_demo"
    results = docs / "_build" / "lecture_outputs" / "results" / "machine.json"
    assert argv == ["--png", "--outdir", str(outdir), "--results", str(results)]
    assert outdir.is_dir() and results.parent.is_dir()
    assert sorted(p.name for p in lecture.parent.iterdir()) == ["09_demo.py"]
    # a lecture that declares no parser is named
    lecture = tmp_path / "99_toy.py"
    lecture.write_text("print('--png --outdir')\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"99_toy.py declares no make_parser\(\)"):
        flags(lecture)
    # a lecture that exits is named, unless the gallery ran to its end
    lecture = declaring(
        tmp_path / "exits", "", after="import sys\nsys.exit(2)\n", name="09_demo.py")  # fmt: skip
    docs_hooks.reset_argv({"src_dir": str(tmp_path / "exits")}, {"src_file": str(lecture)})
    assert "09_demo.py" in docs_hooks.exit_message()
    docs_hooks._RUNNING.clear()  # the gallery ran to the end: nothing to report
    assert docs_hooks.exit_message() == ""


@pytest.mark.parametrize(("path", "caption", "alt"), [
    ("/x/02_roofline-a100.png", "", "02 roofline a100"),  # no caption: the file's name
    ("/x/a.png", "Look at it.", "a"),  # no description: the name
    # the sentence that says what the figure shows, its markup dropped
    ("/x/05_rooflines.png",
     "Look at the slope first. The A100 roof with every ``add`` on the slope. Tap it to zoom.",
     "Figure 05 rooflines: The A100 roof with every add on the slope."),
    ("x/06_speed.png", "斜线是带宽上限。看 ridge point 的两侧。", "图 06 speed：斜线是带宽上限。"),
])  # fmt: skip
def test_alt_text_says_what_the_figure_shows(path: str, caption: str, alt: str) -> None:
    assert docs_hooks.alt_text(path, *([caption] if caption else [])) == alt


def test_the_figure_rest_links_the_image_and_keeps_the_caption() -> None:
    caption = ["First line,", "second."]
    rst = docs_hooks.figure_block("/_build/f.png", "alt\n text", caption, "rl-figure-img", "f")
    head = [".. figure:: /_build/f.png", "   :alt: alt text", "   :width: 100%"]
    assert rst.splitlines()[1:4] == head
    assert rst.rstrip().splitlines()[-2:] == ["   First line,", "   second."]


def test_the_page_rewrites() -> None:
    # gallery cards numbered, with their question
    index = (
        '<div class="sphx-glr-thumbcontainer" tooltip="How fast is it? It measures.">\n'
        "  :doc:`/auto_lectures/07_llm_capacity`\n"
        '      <div class="sphx-glr-thumbnail-title">LLM capacity</div>\n'
        '<div class="sphx-glr-thumbcontainer" tooltip="No question here. More.">\n'
        "  :doc:`/auto_lectures/08_levers`\n"
        '      <div class="sphx-glr-thumbnail-title">Levers</div>\n')  # fmt: skip
    out = docs_hooks.number_cards(index)
    assert (
        '<span class="rl-card-number">Lecture 07</span>LLM capacity'
        '<span class="rl-card-question">How fast is it?</span></div>'
    ) in out
    assert '<span class="rl-card-number">Lecture 08</span>Levers' in out
    assert '<span class="rl-card-question">No question here.</span>' in out
    # navigation captions get a heading level
    html = '<p class="caption" role="heading"><span class="caption-text">Contents</span></p>'
    context = {"body": html, "furo_navigation_tree": None}
    docs_hooks._page_context(None, "", "", context, None)
    assert context["body"] == (
        '<p class="caption" role="heading" aria-level="2">'
        '<span class="caption-text">Contents</span></p>')  # fmt: skip
    # index terms go under the page title
    page = ".. _label:\n\n\nA title\n=======\n\nText.\n"
    out = docs_hooks.with_index_terms(page, ["KV cache", "  "])
    assert out == ".. _label:\n\n\nA title\n=======\n\n.. index::\n   ! KV cache\n\n\nText.\n"
    assert docs_hooks.with_index_terms(page, []) == page
    assert docs_hooks.with_index_terms("no title\n", ["x"]) == "no title\n"
    # build folders shown as a student's run prints them, index terms under the title
    source = [
        "T\n=\n\nsaved results: docs/_build/lecture_outputs/results/machine.json; "
        "wrote 4 figure(s) to docs/_build/lecture_outputs/figures/04_make_figures\n"
        "   x = f(1, 2)  # fmt: skip\n"]  # fmt: skip
    app = SimpleNamespace(config=SimpleNamespace(course_index_terms={"04_x": ["KV"]}))
    docs_hooks._source_read(app, "auto_lectures/04_x", source)
    assert source == [  # and a code cell shows no formatter directive
        "T\n=\n\n.. index::\n   ! KV\n\n\n"
        "saved results: results/machine.json; wrote 4 figure(s) to figures\n   x = f(1, 2)\n"
    ]


def _write_atomically(path: Path, data: bytes) -> None:  # a temporary renamed over the target
    atomic.atomic_write_with(path, lambda handle: handle.write(data))


def _cell(tmp_path: Path, *earlier: str) -> tuple[Path, Callable[[], str], Path, Any]:
    """A fake lecture run, with `earlier` figures left in its outdir by an earlier build:
    (outdir, the scraper on the cell run so far, images folder, image path iterator)."""
    from sphinx_gallery.scrapers import ImagePathIterator

    docs = tmp_path / "docs"
    lecture = declaring(tmp_path / "lectures", "cli.add_png_flags(parser)", name="09_demo.py")
    images = docs / "auto_lectures" / "images"
    images.mkdir(parents=True)
    for name in earlier:
        (outdir := docs_hooks.figure_dir(docs, lecture)).mkdir(parents=True, exist_ok=True)
        (outdir / name).write_bytes(PNG_1PX)
    iterator = ImagePathIterator(str(images / "sphx_glr_09_demo_{0:03}.png"))
    gallery_conf = {"src_dir": str(docs)}
    argv = docs_hooks.reset_argv(gallery_conf, {"src_file": str(lecture)})
    block_vars = {"src_file": str(lecture), "image_path_iterator": iterator}
    # the code block (first argument) stands in for sphinx-gallery's: the scraper ignores it
    scrape = lambda: docs_hooks.scrape_pngs(None, block_vars, gallery_conf)  # noqa: E731
    return Path(argv[argv.index("--outdir") + 1]), scrape, images, iterator


def _caption(rst: str) -> str:
    """The caption paragraph of the one figure directive in `rst`."""
    body = rst.split(".. figure::", 1)[1].split("\n\n", 1)[1]
    return " ".join(line.strip() for line in body.strip().splitlines())


def test_scraper_embeds_each_new_or_rewritten_png_once(tmp_path: Path) -> None:
    outdir, scrape, images, iterator = _cell(tmp_path)
    assert scrape() == ""  # the cell drew nothing

    _write_atomically(outdir / "first.png", PNG_1PX)
    rst = scrape()
    assert rst.count(".. figure::") == 1 and ":alt: first" in rst
    assert _caption(rst) == "first"  # no caption given: its alt text
    assert ".. figure:: /auto_lectures/images/sphx_glr_09_demo_001.png" in rst
    assert (images / "sphx_glr_09_demo_001.png").read_bytes() == PNG_1PX

    assert scrape() == ""  # nothing new

    _write_atomically(outdir / "second.png", PNG_1PX)
    _write_atomically(outdir / "first.png", PNG_1PX)  # rewritten with identical bytes
    rst = scrape()
    assert re.findall(r":alt: (\w+)", rst) == ["second", "first"] and len(iterator) == 3


def test_each_figure_gets_the_caption_the_lecture_gave_it(tmp_path: Path) -> None:
    from common.present import display
    from common.present.say import say

    assert _cell(tmp_path / "rerun", "old.png")[1]() == ""  # left by an earlier build: not new
    outdir, scrape, images, _ = _cell(tmp_path)
    # The lecture writes the PNG under a path of its own spelling (relative, with '..')
    # and records its caption; the scraper finds it under the resolved path.
    spelled = outdir / ".." / outdir.name / "roofline.png"
    _write_atomically(outdir / "roofline.png", PNG_1PX)
    shown = display.figure(spelled, "The A100 roof: every ``add`` sits on the slope.")
    assert str(shown) == f"saved figure: {spelled}"
    rst = scrape()
    assert rst.count(".. figure::") == 1
    assert _caption(rst) == "The A100 roof: every ``add`` sits on the slope."
    assert ":alt: Figure roofline: The A100 roof: every add sits on the slope." in rst
    assert ":width: 100%" in rst  # Sphinx then links the image to its full-size file
    # two figures of one cell keep their own captions; a template is left beside its image
    # (the Chinese edition reads the template and fields there: docs/_ext/i18n.py)
    captions = ("First: the slope.", say("Peak {p}, {side}.", p="1.0 TB/s", side=say("left")))
    for name, caption in zip(("a.png", "b.png"), captions, strict=True):
        _write_atomically(outdir / name, PNG_1PX)
        display.figure(outdir / name, caption)
    got = [_caption(".. figure::" + p) for p in scrape().split(".. figure::")[1:]]
    assert got == ["First: the slope.", "Peak 1.0 TB/s, left."]
    names = sorted(p.name for p in images.glob("*.png"))
    assert names == [f"sphx_glr_09_demo_00{k}.png" for k in (1, 2, 3)]
    sidecar = docs_hooks.caption_file(images / "sphx_glr_09_demo_003.png")
    assert json.loads(sidecar.read_text(encoding="utf-8")) == {
        "caption": {
            "say": "Peak {p}, {side}.",
            "fields": {"p": "1.0 TB/s", "side": {"say": "left", "fields": {}}},
        },
        "name": "b.png"}  # fmt: skip


@pytest.mark.parametrize(
    "text", ["plain words", "I* = P_peak / beta; |x| and *stars* [1]_ stay as typed, a_b_",
     "keep ``code_like *this*`` as code", "- not a list", "2. not a list either", "two\n  lines"],
)  # fmt: skip
def test_an_escaped_caption_renders_as_the_text_it_came_from(text: str) -> None:
    from docutils.core import publish_doctree

    tree = publish_doctree(docs_hooks.rst_text(text), settings_overrides={"report_level": 2})
    assert tree.astext() == " ".join(text.replace("``", "").split())
    code = [n.astext() for n in tree.findall(lambda n: n.tagname == "literal")]
    assert code == (["code_like *this*"] if "``" in text else [])


def _conf(monkeypatch: pytest.MonkeyPatch, run: str = "") -> dict:
    """Execute docs/conf.py with the environment and sys.path restored afterwards."""
    monkeypatch.setenv("ROOFLINE_RESULTS", "unchanged")  # conf.py sets it; restored at teardown
    monkeypatch.setenv("ROOFLINE_HTML", "0")  # likewise: later lectures must print as text
    monkeypatch.setenv("ROOFLINE_DOCS_RUN", run)  # empty: every lecture
    monkeypatch.setattr(sys, "path", list(sys.path))
    conf = runpy.run_path(str(REPO / "docs" / "conf.py"))
    assert os.environ["ROOFLINE_RESULTS"] == str(docs_hooks.results_file(REPO / "docs"))
    return conf["sphinx_gallery_conf"]


@pytest.mark.parametrize("installed", [True, False])
def test_gallery_runs_every_numbered_lecture_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch, installed: bool
) -> None:
    real = importlib.util.find_spec

    def fake(name: str, *args: object) -> object:
        if name == "torch":
            return object() if installed else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    gallery = _conf(monkeypatch)
    run, ignore = gallery["filename_pattern"], gallery["ignore_pattern"]
    for lecture in LECTURES:  # lecture 12 needs torch: without it, its page shows it unrun
        assert bool(re.search(run, str(lecture))) is (installed or "12_" not in lecture.name)
        assert not re.search(ignore, lecture.name), lecture.name
    for helper in ("helpers.py", "_util.py", "1_short.py", "01-dash.py"):
        assert re.search(ignore, helper), helper
    assert gallery["reset_argv"] == "docs_hooks.reset_argv"  # strings keep the config picklable
    assert gallery["image_scrapers"] == ("docs_hooks.scrape_pngs",)
    assert gallery["write_computation_times"] is False
    # $ROOFLINE_DOCS_RUN narrows the executed lectures
    run = _conf(monkeypatch, "03_")["filename_pattern"]
    assert re.search(run, "/r/lectures/03_memory_ledger.py")
    assert not re.search(run, "/r/lectures/01_machine_probe.py")
    assert not re.search(run, "/r/03_x/lectures/01_machine_probe.py")  # a folder name is no match
