// The panel's figure: Vega-Lite specifications from the run (common/present/live.py),
// drawn with vega-embed (npm), bundled for the site by runner_bundle.mjs.
// window.RLRunnerChart.draw(element, spec) resolves to the Vega view, kept as element.rlView.
import embed from "vega-embed";

async function draw(element, spec) {
  const result = await embed(element, spec, { actions: false, renderer: "svg" });
  element.rlView = result.view;
  return result.view;
}

window.RLRunnerChart = { draw };
