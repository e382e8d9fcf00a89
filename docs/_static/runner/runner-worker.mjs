// The panels' Python: Pyodide in a web worker. In: init {runtime, course, harness, warm},
// run {id, request}; out: ready {python}, failed {message}, result {id, result | error}.
const HOME = "/home/pyodide";
const COURSE = `${HOME}/course`;

let harness = null;
let starting = null;

function describe(error) {
  return String(error && error.message ? error.message : error);
}

async function fetchOk(url, how) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return how === "text" ? response.text() : response.arrayBuffer();
}

async function start({ runtime, course, harness: harnessUrl, warm }) {
  const { loadPyodide } = await import(`${runtime}pyodide.mjs`);
  const quiet = () => {};
  const [pyodide, zip, source] = await Promise.all([
    loadPyodide({ indexURL: runtime, stdout: quiet, stderr: quiet }),
    fetchOk(course, "bytes"),
    fetchOk(harnessUrl, "text"),
  ]);
  pyodide.unpackArchive(zip, "zip", { extractDir: COURSE });
  pyodide.FS.writeFile(`${HOME}/rl_harness.py`, source);
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(HOME)})`);
  harness = pyodide.pyimport("rl_harness");
  harness.setup(COURSE);
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  self.postMessage({ type: "ready", python });
  if (warm && warm.length) {
    harness.warm_up(pyodide.toPy(warm)); // compile the modules the page uses, once
  }
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "init") {
    starting = start(message).catch((error) => {
      self.postMessage({ type: "failed", message: describe(error) });
    });
    return;
  }
  if (message.type === "run") {
    try {
      await starting;
      if (harness === null) throw new Error("Python did not start in this browser");
      const result = harness.run_json(message.request);
      self.postMessage({ type: "result", id: message.id, result });
    } catch (error) {
      self.postMessage({
        type: "result",
        id: message.id,
        error: describe(error),
      });
    }
  }
};
