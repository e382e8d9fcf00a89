// node docs/_ext/runner_bundle.mjs OUTPUT_DIR: the panels' editor.js (CodeMirror) and
// chart.js (vega-embed), bundled offline from node_modules, and LICENSES.txt.
import { build } from "esbuild";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [output] = process.argv.slice(2);
if (!output) {
  console.error("usage: node runner_bundle.mjs OUTPUT_DIR");
  process.exit(2);
}
const here = join(dirname(fileURLToPath(import.meta.url)), "runner_bundle");
const result = await build({
  entryPoints: [join(here, "editor.mjs"), join(here, "chart.mjs")],
  outdir: output,
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "eof",
  logLevel: "warning",
  metafile: true,
});

// Each package whose files went into a bundle, with its licence text.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) packages.add(match[1]);
}
const sections = [];
for (const name of [...packages].sort()) {
  const folder = join("node_modules", name);
  const meta = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const file = readdirSync(folder).find((f) => /^licen[cs]e/i.test(f));
  const text = file && existsSync(join(folder, file)) ? readFileSync(join(folder, file), "utf8") : "";
  sections.push(`${name} ${meta.version} (${meta.license || "see its package"})\n\n${text.trim()}\n`);
}
writeFileSync(
  join(output, "LICENSES.txt"),
  `The npm packages bundled into editor.js and chart.js, and their licences.\n\n${sections.join("\n" + "-".repeat(72) + "\n\n")}`,
);
console.log(`bundled editor.js and chart.js (${packages.size} packages) into ${output}`);
