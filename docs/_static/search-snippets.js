/* Search results quote a page's prose, never its hidden answers, code or TeX.

   Sphinx's search page (searchtools.js) fetches each result page and quotes the
   text of its main content around the search term. Before it does, this script
   removes what a reader should not meet in a result: exercise answers and
   anything else marked "no-search" (also left out of the search index by
   Sphinx), code, API signatures and captured output, display math and tables;
   inline math becomes plain text (P_peak, I*, beta as β). Loaded on every page; it acts
   only where searchtools.js has defined `Search`. */
(function () {
  "use strict";
  if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;

  const LEAVE_OUT = [
    ".no-search",
    "div.highlight",
    "pre",
    "div.math",
    "table",
    "dt.sig",
    ".sphx-glr-script-out",
    ".sphx-glr-download-link-note",
    ".sphx-glr-footer",
    ".sphx-glr-signature",
    "figure",
    "nav",
  ].join(", ");

  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ",
    pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ", omega: "ω", Delta: "Δ", Sigma: "Σ",
    ast: "*", times: "×", cdot: "·", le: "≤", leq: "≤", ge: "≥", geq: "≥", approx: "≈",
    ne: "≠", neq: "≠", to: "→", rightarrow: "→", iff: "⇔", infty: "∞", ldots: "…",
    cdots: "…", top: "T", in: "∈", sqrt: "√",
  };

  /* TeX of inline math as plain text: \text{peak} -> peak, \frac{a}{b} -> a/b. */
  function plainTex(tex) {
    let s = tex.replace(/^\s*\\\(|\\\)\s*$/g, "");
    s = s.replace(/\\(?:text|mathrm|mathbf|mathit|operatorname)\s*\{([^{}]*)\}/g, "$1");
    for (let i = 0; i < 3; i++) s = s.replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "$1/$2");
    s = s.replace(/\\(?:left|right|big|Big|displaystyle)\b/g, "");
    s = s.replace(/\\[,;:!]|\\quad|\\qquad|~/g, " ").replace(/\\ /g, " ");
    s = s.replace(/\\([A-Za-z]+)/g, (m, name) => SYMBOLS[name] || name);
    s = s.replace(/\^\{?\*\}?/g, "*").replace(/[{}]/g, "").replace(/\\/g, "");
    return s.replace(/\s+/g, " ").trim();
  }

  const quoteProse = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(LEAVE_OUT).forEach((el) => el.remove());
    page.querySelectorAll("span.math").forEach((el) => {
      el.replaceWith(page.createTextNode(plainTex(el.textContent)));
    });
    return quoteProse(page.documentElement.outerHTML, anchor);
  };
})();
