/* Search ranking of the course site (Sphinx's html_search_scorer hook).

   A student who searches a term wants the lecture or concept page about it, not an
   API entry. Pages declare the terms they are about with main index entries
   (".. index:: ! KV cache" on a concept page, conf.py's course_index_terms for a
   lecture), which Sphinx already ranks first; this scorer adds two rules:

   - a result on a lecture or concept page outranks the same match elsewhere;
   - an API entry (a function, class or module found by its name) comes after every
     page result: it has no snippet to show, only its name. */
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
