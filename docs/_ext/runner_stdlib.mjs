// node docs/_ext/runner_stdlib.mjs RUNTIME_DIR HARNESS_PY OUTPUT_ZIP: Pyodide's standard
// library compiled to bytecode by Pyodide itself (harness.compile_zip).
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
