/* Boxes that scroll sideways are reachable by keyboard and named for screen readers.

   A table, a code block, captured output or a display equation wider than its
   column scrolls inside its own box (course.css). A keyboard user scrolls such a
   box with the arrow keys once it has focus, so every box that actually overflows
   gets tabindex="0", role="region" and a name: the table's caption, or what the box
   holds ("Code", "Output", "Equation"). Boxes that fit get nothing (no useless tab
   stops); the check runs again after MathJax has typeset and when the window is
   resized (a phone turned sideways). */
(function () {
  "use strict";

  const BOXES = [
    ["div.rl-table-scroll", "Table"],
    ["article .table-wrapper", "Table"],
    ["div.math", "Equation"],
    ["div.sphx-glr-script-out pre", "Output"],
    ["pre.rl-pre", "Output"],
    ["div.highlight pre", "Code"],
  ];

  function nameOf(box, kind) {
    const caption = box.querySelector("caption");
    const text = caption ? caption.textContent.replace(/[\s¶]+/g, " ").trim() : "";
    return text ? `${kind}: ${text}` : `${kind}, scrolls sideways`;
  }

  function mark() {
    const seen = new Set();
    for (const [selector, kind] of BOXES) {
      for (const box of document.querySelectorAll(selector)) {
        if (seen.has(box)) continue;
        seen.add(box);
        const overflows = box.scrollWidth > box.clientWidth + 1;
        const ours = box.dataset.rlScrollBox === "1";
        if (overflows && !box.hasAttribute("tabindex")) {
          box.setAttribute("tabindex", "0");
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", nameOf(box, kind));
          box.dataset.rlScrollBox = "1";
        } else if (!overflows && ours) {
          box.removeAttribute("tabindex");
          box.removeAttribute("role");
          box.removeAttribute("aria-label");
          delete box.dataset.rlScrollBox;
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
