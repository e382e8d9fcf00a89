/* Every box that overflows sideways gets tabindex="0", role="region" and a name (its
   caption, else what it holds under which heading); on a phone a too-wide table reflows
   into cards labelled by its headers, a long one folded. */
(function () {
  "use strict";

  const ZH = document.documentElement.lang.startsWith("zh");
  const SAY = ZH
    ? {
        Table: "表格", Equation: "公式", Figure: "图", Code: "代码",
        captioned: (kind, caption) => `${kind}：${caption}`,
        under: (kind, heading) => `“${heading}”下的${kind}`,
        named: "只显示首行、末行和正文提到的行",
        ends: (head, tail) => `只显示前 ${head} 行和后 ${tail} 行`,
        between: (n, all) => `显示中间的 ${n} 行（共 ${all} 行）`,
      }
    : {
        Table: "Table", Equation: "Equation", Figure: "Figure", Code: "Code",
        captioned: (kind, caption) => `${kind}: ${caption}`,
        under: (kind, heading) => `${kind} under "${heading}"`,
        named: "Show only the first, the last and the rows the text names",
        ends: (head, tail) => `Show only the first ${head} and last ${tail} rows`,
        between: (n, all) => `Show the ${n} rows between (all ${all})`,
      };

  const BOXES = [
    ["div.rl-table-scroll", SAY.Table],
    ["article .table-wrapper", SAY.Table],
    ["div.math", SAY.Equation],
    ["figure.rl-figure > a.image-reference", SAY.Figure],
    ["div.highlight pre", SAY.Code],
  ];

  const clean = (node) => (node ? node.textContent.replace(/[\s¶]+/g, " ").trim() : "");

  // The caption, else the nearest heading above the box (a result's title or the section's).
  function nameOf(box, kind) {
    const caption = clean(box.querySelector("caption"));
    if (caption) return SAY.captioned(kind, caption);
    const above = Array.from(document.querySelectorAll("article :is(h1, h2, h3, h4, p.rl-heading)"))
      .filter((h) => h.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING)
      .at(-1);
    return SAY.under(kind, clean(above) || document.title);
  }

  // A repeated header is labelled with the one before it: "ratio (at spec)".
  function labels(table) {
    const heads = Array.from(table.querySelectorAll("thead tr:first-child > th"), clean);
    return heads.map((h, i) =>
      h && heads.indexOf(h) !== heads.lastIndexOf(h) && i > 0 ? `${h} (${heads[i - 1]})` : h,
    );
  }

  // A long table of cards shows its first and last rows (and those marked tr.rl-keep);
  // the rest wait behind a button.
  const FOLD_ROWS = 8; // tables of fewer rows never fold
  const FOLD_SCREENS = 1.25; // nor do those shorter than this many window heights
  const KEEP_HEAD = 3; // rows shown before the fold
  const KEEP_TAIL = 2; // and after it
  function fold(table, folds) {
    table.querySelectorAll("tr.rl-fold").forEach((tr) => tr.remove());
    const rows = Array.from(table.querySelectorAll("tbody > tr"));
    rows.forEach((tr) => tr.classList.remove("rl-folded"));
    if (!folds || rows.length < FOLD_ROWS) return;
    if (table.offsetHeight <= FOLD_SCREENS * window.innerHeight) return;
    const named = rows.some((tr) => tr.classList.contains("rl-keep"));
    const [head, tail] = named ? [1, 1] : [KEEP_HEAD, KEEP_TAIL];
    const hidden = rows
      .slice(head, rows.length - tail)
      .filter((tr) => !tr.classList.contains("rl-keep"));
    if (!hidden.length) return;
    const open = table.dataset.rlUnfolded === "1";
    if (!open) hidden.forEach((tr) => tr.classList.add("rl-folded"));
    const shrink = named ? SAY.named : SAY.ends(KEEP_HEAD, KEEP_TAIL);
    const label = open ? shrink : SAY.between(hidden.length, rows.length);
    const row = `<tr class="rl-fold"><td colspan="${rows[0].cells.length}"><button type="button"`;
    hidden[0].insertAdjacentHTML("beforebegin",
      `${row} class="rl-fold-button" aria-expanded="${open}">${label}</button></td></tr>`);
    hidden[0].previousElementSibling.querySelector("button").addEventListener("click", () => {
      table.dataset.rlUnfolded = open ? "0" : "1";
      fold(table, true);
      table.querySelector(".rl-fold-button").focus();
    });
  }

  // Result tables (table.rl-table) and the reference pages' tables with one header row.
  const CARD_TABLES = "table.rl-table, article .table-wrapper table:has(> thead)";
  function cards() {
    const narrow = window.innerWidth < 640;
    for (const table of document.querySelectorAll(CARD_TABLES)) {
      if (table.querySelectorAll("thead tr").length > 1 || table.querySelector("[rowspan]")) {
        continue;
      }
      const heads = labels(table);
      table.querySelectorAll("thead th:empty").forEach((th) => {
        th.innerHTML = `<span class="rl-sr-only">${th.cellIndex ? "note" : "item"}</span>`;
      });
      for (const row of table.querySelectorAll("tbody tr:not(.rl-fold)")) {
        Array.from(row.cells).forEach((cell, i) => (cell.dataset.label = heads[i] || ""));
      }
      fold(table, false);
      table.classList.remove("rl-cards");
      const box = table.closest(".rl-table-scroll, .table-wrapper") || table.parentElement;
      if (narrow && table.scrollWidth > box.clientWidth + 1) table.classList.add("rl-cards");
      fold(table, table.classList.contains("rl-cards"));
    }
  }

  function mark() {
    cards();
    const seen = new Set();
    const names = new Map();
    for (const [selector, kind] of BOXES) {
      for (const box of document.querySelectorAll(selector)) {
        if (seen.has(box)) continue;
        seen.add(box);
        const overflows = box.scrollWidth > box.clientWidth + 1;
        const ours = box.dataset.rlScrollBox === "1";
        if (overflows && box.matches("a[href]")) {
          box.dataset.rlScrollBox = "1"; // a link: focusable and named already
        } else if (overflows && (ours || !box.hasAttribute("tabindex"))) {
          box.setAttribute("tabindex", "0");
          box.setAttribute("role", "region");
          let name = nameOf(box, kind);
          names.set(name, (names.get(name) || 0) + 1);
          if (names.get(name) > 1) name += ` (${names.get(name)})`;
          box.setAttribute("aria-label", name);
          box.dataset.rlScrollBox = "1";
        } else if (!overflows && ours) {
          for (const a of ["tabindex", "role", "aria-label", "data-rl-scroll-box"]) box.removeAttribute(a);
        }
      }
    }
  }

  let pending = 0;
  function later() {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(mark);
  }

  mark(); // a deferred script (conf.py): the page is parsed
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);
  // Again once MathJax (loaded after this script) has typeset.
  window.addEventListener("load", () =>
    (window.MathJax?.startup?.promise ?? Promise.resolve()).then(mark),
  );
})();
