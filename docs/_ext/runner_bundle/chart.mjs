// window.RLRunnerChart.draw(element, spec): the run's Vega-Lite (live.py) by vega-embed.
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
