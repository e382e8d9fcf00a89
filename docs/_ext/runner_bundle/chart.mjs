// The panel's figure: Vega-Lite specifications from the run (docs/_static/runner/live.py,
// which breaks a long title into lines), drawn with vega-embed (npm), bundled for the site
// by runner_bundle.mjs. window.RLRunnerChart.draw(element, spec) resolves to the Vega
// view, kept as element.rlView.
import embed from "vega-embed";

async function draw(element, spec) {
  // On a phone the axis labels thin out instead of running together.
  const axis = { labelOverlap: "greedy", labelSeparation: 6, ...spec.config?.axis };
  const shown = { ...spec, config: { ...spec.config, axis } };
  const result = await embed(element, shown, { actions: false, renderer: "svg" });
  element.rlView = result.view;
  return result.view;
}

window.RLRunnerChart = { draw };
