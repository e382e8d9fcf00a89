/* Search ranking (html_search_scorer): lecture and concept pages first, API entries,
   which have no snippet, after every page result. */
var Scorer = {
  score: (result) => {
    const [docname, , , , score, , kind] = result;
    if (kind === "object") return score - 1000;
    if (/^(auto_lectures\/\d\d_|concepts\/)/.test(docname)) return score + 3;
    if (docname.startsWith("api/")) return score - 3;
    return score;
  },

  // Sphinx's defaults, kept.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
