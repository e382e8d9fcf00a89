// Bundle the panels' editor (CodeMirror 6) and chart (Vega-Lite, vega-embed) for the site.
//
//   node docs/_ext/runner_bundle.mjs OUTPUT_DIR
//
// Run from the repository, whose node_modules/ holds the versions pinned in
// package-lock.json (npm ci); esbuild writes OUTPUT_DIR/editor.js and OUTPUT_DIR/chart.js,
// minified scripts with no import left, so the site loads them offline from _static.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [output] = process.argv.slice(2);
if (!output) {
  console.error("usage: node runner_bundle.mjs OUTPUT_DIR");
  process.exit(2);
}
const here = join(dirname(fileURLToPath(import.meta.url)), "runner_bundle");
await build({
  entryPoints: [join(here, "editor.mjs"), join(here, "chart.mjs")],
  outdir: output,
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "eof",
  logLevel: "warning",
});
console.log(`bundled editor.js and chart.js into ${output}`);
