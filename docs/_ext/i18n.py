"""The Chinese edition: the same sources built again with the catalogs (README: "The
Chinese edition"); it shares the English edition's runtime, MathJax and figures, searches
with jieba and the glossary, and fails on an untranslated entry or caption template."""

from __future__ import annotations

import ast
import csv
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript
from sphinx.config import Config
from sphinx.locale import _ as sphinx_gettext
from sphinx.util import logging
from sphinx.util.nodes import extract_messages

logger = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
LOCALE_DIR = DOCS / "locale"
GLOSSARY = LOCALE_DIR / "glossary.csv"  # English term(s), Chinese term, definition
CJK_WORD = re.compile(r"[\u4e00-\u9fff]+")
ZH, ZH_SUBDIR, ZH_TITLE = "zh_CN", "zh", "Roofline 讲义"  # language, folder under the site
#: What the Chinese pages take from the English edition, under the site's root.
SHARED_STATIC = ("_static/runner/", "_static/mathjax/")
SHARED_ROOT_FILES = ("runner-sw.js",)
LECTURE_FIGURE = "rl-figure"  # a figure a lecture draws (docs_hooks.py): program output
CAPTIONS = "captions"  # the catalog of every say(...) template (common/present/say.py)
SAY_SOURCES = (DOCS.parent / "common", DOCS.parent / "lectures")
#: Not prose: the gallery's timing line changes with every build.
NOT_PROSE = re.compile(r"^\*\*Total running time of the script:\*\*")


def is_zh(config: Config) -> bool:
    """True in the Chinese build."""
    return (config.language or "").replace("-", "_").startswith("zh")


def catalog(page: str) -> Path:
    """The ``.po`` file of one page (``concepts/index`` -> ``.../concepts/index.po``)."""
    return LOCALE_DIR / ZH / "LC_MESSAGES" / f"{page}.po"


def catalogs() -> list[Path]:
    """Every ``.po`` file of the Chinese edition: one per page, and the Run panel's."""
    return sorted((LOCALE_DIR / ZH / "LC_MESSAGES").rglob("*.po"))


def _entries(path: Path) -> list[Any]:
    """The messages of a ``.po`` file (babel's), the header and the timing line left out."""
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return [m for m in read_po(handle) if m.id and not NOT_PROSE.match(str(m.id))]


def missing_entries(path: Path) -> list[str]:
    """The English text of every entry of a ``.po`` file that is untranslated or fuzzy."""
    if not path.is_file():
        return [f"(no catalog {path})"]
    return [str(m.id) for m in _entries(path) if m.fuzzy or not m.string]


def configure(app: Sphinx, config: Config) -> None:
    """config-inited: the catalogs, the templates, and Chinese search in the Chinese build."""
    config.locale_dirs = [str(LOCALE_DIR)]
    config.gettext_compact = False  # one catalog per page: a page is translated or not
    config.gettext_additional_targets = ["index"]  # search ranks main entries first
    config.gettext_last_translator = "roofline-lectures"
    config.gettext_language_team = "roofline-lectures"
    if (templates := str(DOCS / "_templates")) not in config.templates_path:
        config.templates_path = [*config.templates_path, templates]
    if is_zh(config):
        config.html_search_language = "zh"
        # a jieba dictionary of the glossary's Chinese terms, so search keeps each one whole
        terms = sorted({row["chinese"] for row in glossary() if CJK_WORD.fullmatch(row["chinese"])})
        words = Path(app.doctreedir) / "jieba-glossary.txt"
        words.parent.mkdir(parents=True, exist_ok=True)
        words.write_text("".join(f"{word} 100000 n\n" for word in terms), "utf-8")
        config.html_search_options = {**config.html_search_options, "dict": str(words)}
        config.html_title = ZH_TITLE


def check_catalogs(app: Sphinx) -> None:
    """builder-inited: every catalog is complete (Chinese build)."""
    if not is_zh(app.config) or app.builder.format != "html":
        return
    for path in catalogs():
        page = path.relative_to(LOCALE_DIR / ZH / "LC_MESSAGES").with_suffix("").as_posix()
        missing = missing_entries(path)
        for text in missing[:5]:
            logger.warning("i18n: %s: untranslated or fuzzy entry: %.70r", page, text)
        if len(missing) > 5:
            logger.warning("i18n: %s: %d more untranslated or fuzzy", page, len(missing) - 5)


def _lecture_output(node: nodes.Node) -> bool:
    """True inside a lecture's figure: its caption is program output, not the page's prose."""
    while node is not None:
        if isinstance(node, nodes.figure) and LECTURE_FIGURE in node.get("classes", []):
            return True
        node = node.parent
    return False


def check_doctree(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read, Chinese build: every message of a page with a catalog is translated."""
    path = catalog(app.env.docname)
    if not is_zh(app.config) or not path.is_file():
        return
    # Entries translated as themselves (markup, math): Sphinx does not mark those.
    same = {str(m.id) for m in _entries(path) if m.string == m.id}
    for node, message in extract_messages(doctree):
        if node.get("translated") or message in same or NOT_PROSE.match(message):
            continue
        # A lecture figure's caption is program output; a toctree caption is translated in
        # place, never marked.
        toctree = isinstance(node, addnodes.toctree) and node.get("caption") != message
        if not toctree and not _lecture_output(node):
            logger.warning("i18n: no translation (run make gettext, then translate): %.70r",
                           message, location=node)  # fmt: skip


def caption_templates() -> list[tuple[str, Path, int]]:
    """(template, file, line) of every ``say(...)`` call in common/ and lectures/: the string
    literals its first argument can give whole (``a if c else b``, ``{...}[key]``)."""
    import computed  # docs/_ext, on the build's path (conf.py)

    found = []
    for path in sorted(p for folder in SAY_SOURCES for p in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "say":
                said = computed._phrase_nodes(node.args[0], {}, lambda t: isinstance(t, str))
                found += [(t.value, path, node.lineno) for t in said]
    return found


def add_caption_templates(app: Sphinx) -> None:
    """builder-inited, in ``make gettext``: the captions' templates become a catalog."""
    import computed  # docs/_ext, on the build's path (conf.py)

    computed.add_messages(app, CAPTIONS, caption_templates)


def translate_captions(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read, Chinese build: lecture figures' captions and alt texts from their templates."""
    import computed
    from course import inline
    from docs_hooks import alt_text, caption_file

    from common.present.say import filled

    if not is_zh(app.config):
        return
    words = None  # the catalog of captions, read at the first caption to translate
    for figure in doctree.findall(nodes.figure):
        image = next(iter(figure.findall(nodes.image)), None)
        caption = next(iter(figure.findall(nodes.caption)), None)
        if image is None or caption is None or LECTURE_FIGURE not in figure["classes"]:
            continue
        source = Path(app.srcdir, str(image["uri"]).lstrip("/"))
        if not caption_file(source).is_file():
            continue  # a concept figure: its caption is the page's prose
        record = json.loads(caption_file(source).read_text(encoding="utf-8"))
        said = record["caption"]
        if isinstance(said, str):  # a caption not built by say(): nothing to translate
            if said:
                logger.warning("i18n: a figure caption without a template", location=figure)
            continue
        app.env.note_dependency(str(catalog(CAPTIONS)))  # re-read when a translation changes
        words = words or computed.catalog_words(app.env, CAPTIONS, "caption template")
        text = filled(said, words)
        caption.children = []
        caption.extend(inline(text))
        image["alt"] = alt_text(record.get("name", source), text)


def glossary() -> list[dict[str, str]]:
    """The glossary's rows: english (alternatives joined by |), chinese, definition."""
    with GLOSSARY.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """html-page-context: the language switch; in Chinese, the shared runner files."""
    page = pagename + app.builder.out_suffix
    up = "../" * pagename.count("/")
    zh = is_zh(app.config)
    href, lang, text, label = (
        (f"../{up}{page}", "en", "English", "Read this page in English")
        if zh
        else (f"{up}{ZH_SUBDIR}/{page}", "zh-CN", "中文", "阅读本页的中文版"))  # fmt: skip
    context["lang_switch"] = {"href": href, "hreflang": lang, "text": text, "label": label}
    if not zh:
        return
    # The English edition's copy of each "Run it here" and MathJax script, seen from the
    # Chinese root.
    assets = context.get("script_files") or []
    for i, asset in enumerate(assets):
        if isinstance(asset, _JavaScript) and str(asset.filename).startswith(SHARED_STATIC):
            attributes = dict(asset.attributes)
            if attributes.get("data-service-worker") in SHARED_ROOT_FILES:
                attributes["data-service-worker"] = "../" + attributes["data-service-worker"]
            assets[i] = _JavaScript(f"../{asset.filename}", priority=asset.priority, **attributes)


#: Build outputs the Chinese pages take from the English edition where the bytes match.
SHARED_OUTPUTS = ("_images", "_downloads")
_OUTPUT_LINK = re.compile(r"(?<=[\"\s,])((?:\.\./)*)((?:_images|_downloads)/[^\"\s,?#]+)")


def share_outputs(outdir: Path, english: Path) -> set[str]:
    """Delete each Chinese figure or download the English edition holds the same; their paths."""
    shared = set()
    for folder in SHARED_OUTPUTS:
        for path in sorted((outdir / folder).rglob("*")):
            twin = english / path.relative_to(outdir)
            if path.is_file() and twin.is_file() and twin.read_bytes() == path.read_bytes():
                shared.add(path.relative_to(outdir).as_posix())
                path.unlink()
    return shared


#: Words furo writes into every page without gettext (a label, a link, an icon's title);
#: the Chinese pages take theirs from ``sphinx.po``, where furo's translatable words are.
FIXED_CHROME = (
    "Skip to content", "Toggle site navigation sidebar", "Toggle table of contents sidebar",
    "Toggle Light / Dark / Auto color theme", "Menu", "Expand", "Light mode", "Dark mode",
    "Auto light/dark, in light mode", "Auto light/dark, in dark mode")  # fmt: skip
_CHROME = re.compile(
    r'(?<=>)(\s*)({0})(?=\s*<)|(?<=aria-label=")({0})(?=")'.format(
        "|".join(map(re.escape, FIXED_CHROME))
    ))  # fmt: skip
_NAV_LABEL = re.compile(r'(?<=aria-label=")Toggle navigation of ([^"]*)(?=")')


def translate_chrome(text: str, gettext: Callable[[str], str]) -> str:
    """A Chinese page with furo's fixed English words (FIXED_CHROME and the label of each
    navigation fold, "Toggle navigation of <title>") put in `gettext`'s words."""
    text = _CHROME.sub(lambda m: (m[1] or "") + gettext(m[2] or m[3]), text)
    return _NAV_LABEL.sub(lambda m: gettext("Toggle navigation of %s") % m[1], text)


def rewrite_page(page: Path, shared: set[str], gettext: Callable[[str], str]) -> None:
    """A Chinese page's links to shared figures and downloads one level up, and furo's
    fixed words in Chinese."""
    text = page.read_text(encoding="utf-8")

    def up(match: re.Match[str]) -> str:
        ups, target = match.groups()
        return f"../{ups}{target}" if target in shared else match.group(0)

    if (new := translate_chrome(_OUTPUT_LINK.sub(up, text), gettext)) != text:
        page.write_text(new, encoding="utf-8")


def drop_shared_copies(app: Sphinx, exception: Exception | None) -> None:
    """build-finished: the Chinese edition keeps no copy of the shared files."""
    if exception is not None or not is_zh(app.config) or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for folder in SHARED_STATIC:
        shutil.rmtree(outdir / folder, ignore_errors=True)
    for name in SHARED_ROOT_FILES:
        (outdir / name).unlink(missing_ok=True)
    shared = share_outputs(outdir, outdir.parent)
    for page in outdir.rglob("*.html"):
        rewrite_page(page, shared, sphinx_gettext)
    # Sphinx 9.0's Chinese search names an undefined ChineseStemmer: use the English one.
    language_data = outdir / "_static" / "language_data.js"
    text = language_data.read_text(encoding="utf-8")
    language_data.write_text(text.replace("= ChineseStemmer;", "= EnglishStemmer;"), "utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the hooks (after runner's own: priority 900)."""
    app.connect("config-inited", configure)
    app.connect("builder-inited", check_catalogs)
    app.connect("doctree-read", check_doctree)
    app.connect("doctree-read", translate_captions)
    app.connect("builder-inited", add_caption_templates)
    app.connect("html-page-context", page_context, priority=900)
    app.connect("build-finished", drop_shared_copies, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
