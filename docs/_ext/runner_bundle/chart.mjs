// The panel's figure: Vega-Lite specifications from the run (docs/_static/runner/live.py),
// drawn with vega-embed (npm), bundled for the site by runner_bundle.mjs.
// window.RLRunnerChart.draw(element, spec) resolves to the Vega view, kept as element.rlView.
import embed from "vega-embed";

// A title longer than the chart is wide, as lines that fit (Vega draws a title on one line
// and cuts what does not fit): about 7 px a character of its 13 px bold font.
function titleLines(title, width) {
  const text = typeof title === "string" ? title : title?.text;
  if (typeof text !== "string" || !width) return title;
  const room = Math.max(20, Math.floor(width / 7));
  const lines = [];
  for (const word of text.split(/\s+/)) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= room) lines[lines.length - 1] += ` ${word}`;
    else lines.push(word);
  }
  return typeof title === "string" ? lines : { ...title, text: lines };
}

async function draw(element, spec) {
  // On a phone the axis labels thin out instead of running together.
  const axis = { labelOverlap: "greedy", labelSeparation: 6, ...spec.config?.axis };
  const config = { ...spec.config, axis };
  const title = titleLines(spec.title, element.clientWidth);
  const shown = { ...spec, config, ...(title ? { title } : {}) };
  const result = await embed(element, shown, { actions: false, renderer: "svg" });
  element.rlView = result.view;
  return result.view;
}

window.RLRunnerChart = { draw };
