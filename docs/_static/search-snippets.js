/* Search results quote a page's prose, never its hidden answers, code, tables or TeX
   (inline math as plain text); it acts where searchtools.js defined `Search`, deferred, so
   before the search runs. Ranking: lecture and concept pages first, API entries, which
   have no snippet, after every page result. */
(function () {
  "use strict";
  if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;

  Scorer.score = (result) => {
    const [docname, , , , score, , kind] = result;
    if (kind === "object") return score - 1000;
    if (/^(auto_lectures\/\d\d_|concepts\/)/.test(docname)) return score + 3;
    if (docname.startsWith("api/")) return score - 3;
    return score;
  };

  const LEAVE_OUT = [".no-search", "div.highlight", "pre", "div.math", "table", "dt.sig",
    ".sphx-glr-script-out", ".sphx-glr-download-link-note", ".sphx-glr-footer",
    ".sphx-glr-signature", "figure", "nav"].join(", ");

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
