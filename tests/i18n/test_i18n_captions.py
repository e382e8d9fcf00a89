"""The lecture figures' captions in the Chinese edition: the same numbers and branch of every
``say(...)`` choice, the words from captions.po; a tiny Sphinx project walks the route."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import PNG_1PX, REPO, computed_project, load_extension, sphinx, translations

from lectures.words.hierarchical_roofline import roofline_caption

CATALOG = REPO / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / "captions.po"
PLACEHOLDER = re.compile(r"\{(\w*)\}")

i18n = load_extension("i18n")
docs_hooks = load_extension("docs_hooks")


def test_every_template_in_the_code_has_its_chinese_with_the_same_fields() -> None:
    chinese = translations(CATALOG)
    templates = {template for template, _, _ in i18n.caption_templates()}
    assert "{n} of the {m}" in templates  # claims.n_of_m: the scan reaches common/
    assert "sits on its roof" in templates and "reaches its roof" in templates  # both branches
    for template in templates:
        assert chinese.get(template), f"untranslated caption template: {template!r}"
        said = chinese[template]
        assert sorted(PLACEHOLDER.findall(said)) == sorted(PLACEHOLDER.findall(template))


# Three adds on three levels' roofs: two touch their own level's roof, one does not.
OPERATIONS = [
    {"label": f"add {level}", "intensity": 1 / 12, "closest_roof": closest, "predicted_roof": level}
    for level, closest in (("L1", "L1"), ("L2", "L2"), ("DRAM", "L2"))
]
PAGE = """
.. figure:: /auto_lectures/images/fig.png
   :alt: {alt}
   :width: 100%
   :class: sphx-glr-single-img rl-figure-img
   :figclass: rl-figure

   {caption}
"""


def _project(tmp_path: Path, caption: str, tree: object) -> Path:
    """A page holding one lecture figure as the scraper writes it, its template beside it."""
    alt = docs_hooks.alt_text("fig.png", caption)
    page = PAGE.format(alt=alt, caption=docs_hooks.rst_text(caption))
    src = computed_project(tmp_path / "src", page, 'extensions = ["i18n"]')
    images = src / "auto_lectures" / "images"
    images.mkdir(parents=True)
    (images / "fig.png").write_bytes(PNG_1PX)
    sidecar = docs_hooks.caption_file(images / "fig.png")
    record = {"caption": tree, "name": "09_roofline.png"}
    sidecar.write_text(json.dumps(record), encoding="utf-8")
    return src


def test_a_caption_comes_out_chinese_with_its_numbers_and_its_branch(tmp_path: Path) -> None:
    caption = roofline_caption(OPERATIONS, 1.2e11)
    assert "2 of the 3 sit closest" in caption  # by hand: L1 and L2 touch their own roof
    src = _project(tmp_path, caption, caption.tree())
    run = sphinx(src, tmp_path / "zh", "-b", "html", "-D", "language=zh_CN")
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "zh" / "index.html").read_text(encoding="utf-8")
    figure = re.search(r'<figure class="[^"]*rl-figure.*?</figure>', html, re.DOTALL)
    assert figure is not None
    text = figure.group(0)
    assert "3 个中有 2 个" in text  # the branch n_of_m took, its numbers
    peak, intensity = re.search(r"of (\S+ \S+)\. .* I = (\S+) FLOP/byte", caption).groups()
    assert peak in text and f"I = {intensity} FLOP/byte" in text  # the numbers computed
    assert "sit closest" not in text and "离自己那一级带宽上限最近" in text
    assert 'alt="图 09 roofline：每一级存储' in text  # the alt text follows the caption


def test_a_template_missing_from_the_catalog_fails_the_chinese_build(tmp_path: Path) -> None:
    tree = {"say": "A caption nobody {verb}", "fields": {"verb": "translated"}}
    src = _project(tmp_path, "A caption nobody translated", tree)
    run = sphinx(src, tmp_path / "zh", "-b", "html", "-D", "language=zh_CN")
    assert run.returncode != 0
    assert "no translation of the caption template 'A caption nobody {verb}'" in run.stderr


def test_make_gettext_puts_every_template_in_the_catalog_of_captions(tmp_path: Path) -> None:
    src = computed_project(tmp_path / "src", "Text.\n", 'extensions = ["i18n"]')
    run = sphinx(src, tmp_path / "pot", "-b", "gettext")
    assert run.returncode == 0, run.stderr
    pot = (tmp_path / "pot" / "captions.pot").read_text(encoding="utf-8")
    assert 'msgid "every bar stays under it"' in pot  # a branch no run may take
    assert "common/present/figures.py" in pot
