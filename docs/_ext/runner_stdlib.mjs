// Compile Pyodide's standard library to bytecode with Pyodide itself (Node.js 18+).
//
//   node docs/_ext/runner_stdlib.mjs RUNTIME_DIR HARNESS_PY OUTPUT_ZIP
//
// RUNTIME_DIR is the pyodide npm package (node_modules/pyodide); HARNESS_PY is
// docs/_static/runner/harness.py, whose compile_zip does the work. The site serves
// OUTPUT_ZIP as python_stdlib.zip: the page's Python then imports its start-up modules
// from bytecode instead of compiling them (docs/_ext/runner.py caches the result).
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [runtimeDir, harnessPath, output] = process.argv.slice(2);
if (!runtimeDir || !harnessPath || !output) {
  console.error("usage: node runner_stdlib.mjs RUNTIME_DIR HARNESS_PY OUTPUT_ZIP");
  process.exit(2);
}
const runtime = resolve(runtimeDir);
const { loadPyodide } = await import(pathToFileURL(join(runtime, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: `${runtime}/`, stdout: () => {}, stderr: () => {} });
pyodide.FS.writeFile("/tmp/rl_harness.py", readFileSync(harnessPath, "utf8"));
pyodide.runPython("import sys; sys.path.insert(0, '/tmp')");
const harness = pyodide.pyimport("rl_harness");
const stdlib = pyodide.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
const counts = harness.compile_zip(stdlib, "/tmp/python_stdlib.zip").toJs();
writeFileSync(output, pyodide.FS.readFile("/tmp/python_stdlib.zip"));
console.log(`compiled ${counts[0]} modules, kept ${counts[1]} files: ${output}`);
