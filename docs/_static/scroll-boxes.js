/* Boxes that scroll sideways are reachable by keyboard and named for screen readers.

   A table, a code block, captured output or a display equation wider than its
   column scrolls inside its own box (course.css). A keyboard user scrolls such a
   box with the arrow keys once it has focus, so every box that actually overflows
   gets tabindex="0", role="region" and a name: the table's caption, or what the box
   holds ("Code", "Output", "Equation"). Boxes that fit get nothing (no useless tab
   stops); the check runs again after MathJax has typeset and when the window is
   resized (a phone turned sideways). Uncaptioned boxes are named after the heading
   above them. On a phone a result table (table.rl-table) wider than its column
   reflows into cards (course.css), each value labelled with its column's header. */
(function () {
  "use strict";

  const BOXES = [
    ["div.rl-table-scroll", "Table"],
    ["article .table-wrapper", "Table"],
    ["div.math", "Equation"],
    ["figure.rl-figure > a.image-reference", "Figure"],
    ["div.sphx-glr-script-out pre", "Output"],
    ["pre.rl-pre", "Output"],
    ["div.highlight pre", "Code"],
  ];

  const clean = (node) => (node ? node.textContent.replace(/[\s¶]+/g, " ").trim() : "");

  // The caption, else the nearest heading above the box (a result's title or the section's).
  function nameOf(box, kind) {
    const caption = clean(box.querySelector("caption"));
    if (caption) return `${kind}: ${caption}`;
    const above = Array.from(document.querySelectorAll("article :is(h1, h2, h3, h4, p.rl-heading)"))
      .filter((h) => h.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING)
      .at(-1);
    return `${kind} under "${clean(above) || document.title}"`;
  }

  function cards() {
    const narrow = window.innerWidth < 640;
    for (const table of document.querySelectorAll("table.rl-table")) {
      const heads = Array.from(table.querySelectorAll("thead th"), clean);
      table.querySelectorAll("thead th:empty").forEach((th) => {
        th.innerHTML = `<span class="rl-sr-only">${th.cellIndex ? "note" : "item"}</span>`;
      });
      for (const row of table.querySelectorAll("tbody tr")) {
        Array.from(row.cells).forEach((cell, i) => (cell.dataset.label = heads[i] || ""));
      }
      table.classList.remove("rl-cards");
      const box = table.closest(".rl-table-scroll") || table.parentElement;
      if (narrow && table.scrollWidth > box.clientWidth + 1) table.classList.add("rl-cards");
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
          ["tabindex", "role", "aria-label", "data-rl-scroll-box"].forEach((a) => box.removeAttribute(a));
        }
      }
    }
  }

  let pending = 0;
  function later() {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(mark);
  }

  function start() {
    mark();
    window.addEventListener("resize", later);
    const mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(mark);
    // Revealed answers and late content (the Run panel's output) change widths.
    document.addEventListener("toggle", later, true);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  // MathJax may load after this script: check once more when everything has loaded.
  window.addEventListener("load", () => {
    const mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(mark);
    else mark();
  });
})();
