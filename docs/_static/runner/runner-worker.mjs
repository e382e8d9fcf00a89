// The panels' Python: Pyodide in a web worker. In: init {runtime, course, harness, warm},
// then (once ready) run {request}; out: ready {python}, failed {message}, result {result | error}.
const HOME = "/home/pyodide";
let harness = null;

const describe = (error) => String(error?.message || error);

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return response;
}

async function start({ runtime, course, harness: harnessUrl, warm }) {
  const { loadPyodide } = await import(`${runtime}pyodide.mjs`);
  const quiet = () => {};
  const [pyodide, zip, source] = await Promise.all([
    loadPyodide({ indexURL: runtime, stdout: quiet, stderr: quiet }),
    fetchOk(course).then((r) => r.arrayBuffer()),
    fetchOk(harnessUrl).then((r) => r.text()),
  ]);
  pyodide.unpackArchive(zip, "zip", { extractDir: `${HOME}/course` });
  pyodide.FS.writeFile(`${HOME}/rl_harness.py`, source);
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(HOME)})`);
  harness = pyodide.pyimport("rl_harness");
  harness.setup(`${HOME}/course`);
  self.postMessage({ type: "ready", python: pyodide.runPython("sys.version.split()[0]") });
  harness.warm_up(pyodide.toPy(warm)); // compile the modules the page uses, once
}

self.onmessage = ({ data: message }) => {
  if (message.type === "init") {
    start(message).catch((error) => self.postMessage({ type: "failed", message: describe(error) }));
  } else {
    try {
      self.postMessage({ type: "result", result: harness.run_json(message.request) });
    } catch (error) {
      self.postMessage({ type: "result", error: describe(error) });
    }
  }
};
