"""sphinx-gallery hooks (``reset_argv``: the output flags under ``docs/_build``;
``scrape_pngs``: the PNGs a cell wrote, captioned) and an extension that names a lecture
ending the build by SystemExit, numbers the gallery's cards and adds index terms."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from common.shell import interface

#: Outputs of the lectures run by the docs build, relative to the docs folder.
OUTPUTS_SUBDIR = Path("_build") / "lecture_outputs"

# Per lecture: what its output folder held before the current cell ran.
_SNAPSHOTS: dict[str, dict[str, tuple[int, int, int]]] = {}
# The lecture the gallery is running, until the gallery has finished.
_RUNNING: dict[str, str] = {}


def results_file(docs_dir: str | os.PathLike[str]) -> Path:
    """The results file the lectures share during a docs build."""
    return Path(docs_dir) / OUTPUTS_SUBDIR / "results" / "machine.json"


def figure_dir(docs_dir: str | os.PathLike[str], src_file: str | os.PathLike[str]) -> Path:
    """Where one lecture's figures go during a docs build (one folder per lecture)."""
    return Path(docs_dir) / OUTPUTS_SUBDIR / "figures" / Path(src_file).stem


def lecture_argv(lecture: str | os.PathLike[str], outdir: Path, results: Path) -> list[str]:
    """--png, --outdir OUTDIR and --results RESULTS, each where the lecture's parser has it."""
    declared = interface.flag_actions(interface.declared_parser(lecture))
    given = {"--png": (), "--outdir": (str(outdir),), "--results": (str(results),)}
    return [a for flag, values in given.items() if flag in declared for a in (flag, *values)]


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """(inode, mtime in ns, size) of every image under `folder`; an atomic rewrite changes it."""
    pngs = (p for p in folder.rglob("*") if p.suffix.lower() == ".png" and p.is_file())
    return {str(p): (s.st_ino, s.st_mtime_ns, s.st_size) for p in pngs for s in [p.stat()]}


def alt_text(path: str | os.PathLike[str], caption: str = "") -> str:
    """'Figure NAME: ' and the caption's first sentence that is not a "Look at ...", or NAME."""
    name = Path(path).stem.replace("_", " ").replace("-", " ").strip() or "figure"
    plain = " ".join(caption.replace("``", "").split())
    sentences = [s.strip() for s in _SENTENCE_END.split(plain) if s.strip()]
    described = [s for s in sentences if not s.lower().startswith(("look", "tap", "看"))]
    if not described:
        return name
    if _CJK.search(plain):
        return f"图 {name}：{described[0].rstrip('。')}。"
    return f"Figure {name}: {described[0].rstrip('.')}."


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|(?<=。)")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def caption_file(image: str | os.PathLike[str]) -> Path:
    """Where the scraper keeps a lecture figure's caption template, beside its image."""
    return Path(image).with_suffix(".caption.json")


def reset_argv(gallery_conf: Mapping[str, Any], script_vars: Mapping[str, Any]) -> list[str]:
    """sphinx-gallery hook: the lecture's argv, from the flags its parser declares."""
    src_file = str(script_vars["src_file"])
    docs_dir = gallery_conf["src_dir"]
    outdir = figure_dir(docs_dir, src_file)
    results = results_file(docs_dir)
    outdir.mkdir(parents=True, exist_ok=True)
    results.parent.mkdir(parents=True, exist_ok=True)
    _SNAPSHOTS[src_file] = snapshot(outdir)  # images from an earlier build are not new
    _RUNNING["lecture"] = src_file
    return lecture_argv(src_file, outdir, results)


_CODE_SPAN = re.compile(r"(``.+?``)")
_RST_SPECIAL = re.compile(r"([\\*`|_])")
_LIST_START = re.compile(r"^(?:[-+*#]|\d+[.)]|[A-Za-z][.)]|\(\w+\))\s")


def rst_text(text: str) -> str:
    """One line of plain text as reST: ``code`` spans kept, other markup characters escaped."""
    parts = _CODE_SPAN.split(" ".join(str(text).split()))
    out = "".join(
        part if i % 2 else _RST_SPECIAL.sub(r"\\\1", part) for i, part in enumerate(parts)
    )
    return "\\" + out if _LIST_START.match(out) else out


def figure_block(image: str, alt: str, caption: Iterable[str], classes: str, name: str = "") -> str:
    """A reST figure (rl-figure) at text width, linked to the full-size PNG, over its caption."""
    lines = [f".. figure:: {image}", f"   :alt: {' '.join(alt.split())}", "   :width: 100%"]
    lines += [f"   :class: {classes}", "   :figclass: rl-figure"]
    lines += [f"   :name: {name}"] if name else []
    lines += ["", *(f"   {line}" if line.strip() else "" for line in caption)]
    return "\n" + "\n".join(lines) + "\n\n"


def scrape_pngs(
    block: Any, block_vars: Mapping[str, Any], gallery_conf: Mapping[str, Any], **kwargs: Any
) -> str:
    """sphinx-gallery image scraper: the PNGs this cell wrote, each with the caption
    display.figure gave it (its say() template beside it, for the Chinese edition)."""
    from common.files.atomic import atomic_write_text
    from common.present import display
    from common.present.say import Say

    src_file = str(block_vars["src_file"])
    docs_dir = gallery_conf["src_dir"]
    outdir = figure_dir(docs_dir, src_file)
    before = _SNAPSHOTS.get(src_file, {})
    after = snapshot(outdir)
    _SNAPSHOTS[src_file] = after
    rst = ""
    # One figure per image new or rewritten since the last snapshot keeps each full width,
    # stacked in the order written.
    changed = [path for path, sig in after.items() if before.get(path) != sig]
    for original in sorted(changed, key=lambda path: (after[path][1], path)):
        copy = next(block_vars["image_path_iterator"])
        shutil.copyfile(original, copy)
        caption = display.CAPTIONS.get(str(Path(original).resolve()), "")
        said = caption.tree() if isinstance(caption, Say) else caption
        record = {"caption": said, "name": Path(original).name}  # the alt text names the figure
        atomic_write_text(caption_file(copy), json.dumps(record, ensure_ascii=False))
        alt = alt_text(original, caption)
        image = "/" + Path(os.path.relpath(copy, docs_dir)).as_posix()
        rst += figure_block(
            image, alt, [rst_text(caption or alt)], "sphx-glr-single-img rl-figure-img"
        )
    return rst


def exit_message() -> str:
    """What to say if the process ends while the gallery is running a lecture ('' if not)."""
    lecture = _RUNNING.get("lecture")
    if not lecture:
        return ""
    return (f"docs: the build stopped while running {Path(lecture).name}: it raised SystemExit "
            "(sys.exit(), or a usage error from a flag it does not accept); a lecture must not "
            "exit, so that the gallery can run the next one\n")  # fmt: skip


_CARD = re.compile(
    r'(<div class="sphx-glr-thumbcontainer" tooltip="(?P<tip>[^"]*)">'
    r".*?:doc:`/auto_lectures/(?P<num>\d\d)_[^`]*`"
    r'.*?<div class="sphx-glr-thumbnail-title">)(?P<title>[^<]*)(</div>)',
    re.DOTALL)  # fmt: skip


def number_cards(source: str) -> str:
    """The gallery index's reST with each card numbered and showing its lecture's question:
    its summary (the tooltip, HTML-escaped) up to the first "?", else its first sentence."""

    def card(match: re.Match[str]) -> str:
        text = " ".join(match["tip"].split())
        asked = re.match(r"(.+?[?])(?:\s|$)", text) or re.match(r"(.+?[.!])(?:\s|$)", text)
        question = asked.group(1) if asked else text
        return (
            f'{match[1]}<span class="rl-card-number">Lecture {match["num"]}</span>'
            f'{match["title"]}<span class="rl-card-question">{question}</span>{match[5]}'
        )

    return _CARD.sub(card, source)


_TITLE = re.compile(r"^(?!\.\.)\S.*\n=+\n", re.MULTILINE)


def with_index_terms(source: str, terms: Iterable[str]) -> str:
    """A page's reST with main index entries for `terms` right under its title."""
    terms = [" ".join(t.split()) for t in terms if t.strip()]
    match = _TITLE.search(source)
    if not terms or not match:
        return source
    block = "\n.. index::\n" + "".join(f"   ! {term}\n" for term in terms) + "\n"
    return source[: match.end()] + block + source[match.end() :]


#: The docs build's output folders, which a lecture page shows as a student's run prints them.
_BUILD_OUTPUTS = re.compile(
    r"docs/" + re.escape(OUTPUTS_SUBDIR.as_posix()) + r"/(?:(results/)|figures/\d\d_\w+)"
)


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    if docname == "auto_lectures/index":
        source[0] = number_cards(source[0])
    elif docname.startswith("auto_lectures/"):
        terms = app.config.course_index_terms.get(docname.removeprefix("auto_lectures/"), ())
        as_run = _BUILD_OUTPUTS.sub(lambda m: m[1] or "figures", source[0])
        source[0] = with_index_terms(as_run.replace("  # fmt: skip", ""), terms)


#: A toctree caption is role="heading" without a level (axe-core: aria-required-attr).
_CAPTION = 'class="caption" role="heading"'


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Navigation HTML with every caption heading given its level."""
    for key in ("furo_navigation_tree", "body"):
        if isinstance(context.get(key), str):
            context[key] = context[key].replace(_CAPTION, f'{_CAPTION} aria-level="2"')


def setup(app: Any) -> dict[str, Any]:
    """Register the exit message, the index terms, the cards and the heading levels."""
    atexit.register(lambda: sys.stderr.write(exit_message()))
    # Sphinx reads the documents only after the gallery: every lecture has run.
    app.connect("env-before-read-docs", lambda *args: _RUNNING.clear())
    app.add_config_value("course_index_terms", {}, "env", types=frozenset({dict}))
    app.connect("source-read", _source_read)
    app.connect("html-page-context", _page_context, priority=900)  # after furo's own
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
