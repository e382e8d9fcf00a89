// "Run it here" panels: edit common/hw_specs.py in the page, press Run, read what the
// terminal prints and the figure redrawn. Python (Pyodide, runner-worker.mjs) loads only
// when a panel is used; every panel on a page edits the page's one copy of the table.
(() => {
  "use strict";

  const script = document.currentScript; // deferred: it runs once the page is parsed
  const here = new URL(".", script.src);
  const root = document.documentElement;
  const panels = Array.from(document.querySelectorAll(".rl-runner"));
  // The panel's words on a page in another language: the catalog runner.po (runner.py).
  const words = JSON.parse(script.dataset.words || "{}");
  const say = (english, values = {}) =>
    (words[english] || english).replace(/\{(\w+)\}/g, (all, name) => values[name] ?? all);
  const esc = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const TABLE_PATH = "common/hw_specs.py";
  const TRACEBACK = "Traceback (most recent call last):";
  const SERVE = "python3 -m http.server -d docs/_build/html 8000";
  // A line of the table an error names (a slip's, a traceback's).
  const TABLE_LINE = /(common\/hw_specs\.py"?,? line )(\d+)/g;
  const LIMIT_S = 30; // a run still going after this is stopped

  function setStatus(panel, text, kind = "") {
    const status = panel.querySelector(".rl-runner-status");
    status.textContent = text;
    status.dataset.state = kind;
  }

  // ---- Opened from file:// : browsers refuse to start WebAssembly workers there. ------
  if (location.protocol === "file:") {
    const site = new URL(root.dataset.content_root || ".", location.href).pathname;
    const rest = location.pathname.slice(site.length);
    const said = say("Run it here needs the site served over HTTP, because browsers do not run " +
      "WebAssembly from file:// pages: run `{serve}` in the repository and open " +
      "http://127.0.0.1:8000/{rest}", { serve: SERVE, rest });
    panels.forEach((panel) => setStatus(panel, said, "off"));
    return;
  }

  // ---- Shared state: the table as in the repository, and as edited. ------------------
  const source = document.querySelector("script.rl-runner-table");
  const original = source ? JSON.parse(source.textContent) : "";
  const megabytes = (Number(script.dataset.download || 0) / 1e6).toFixed(1);
  // What using a panel costs, said once per panel before Python loads.
  const COST = say("Python loads when you use this panel: the first time it downloads {mb} MB " +
    "(kept by your browser for the next page), and the first run waits a few seconds " +
    "while Python starts; later runs take under a second.", { mb: megabytes });
  const state = {
    table: original,
    phase: "idle", // idle, starting, ready
    status: [say("Python is not loaded yet."), "idle"],
    busy: null, // the run in progress: {panel, timer, done(message)}
    queued: null, // a run asked for while Python starts
  };
  const editors = [];

  // The chips of the table: their name, key and the line (from 0) their Chip( opens on.
  const chips = [];
  original.split("\n").forEach((line, index, lines) => {
    const match = /^([A-Z][A-Z0-9_]*) = Chip\(/.exec(line);
    if (match) {
      const near = lines.slice(index, index + 4).join("\n");
      const [name, key] = ["name", "key"].map((f) => near.match(new RegExp(`${f}="([^"]+)"`)));
      chips.push({ label: name ? name[1] : match[1], key: key ? key[1] : "", line: index });
    }
  });

  // The line the table opens at: the chip `key` names, else the start of the table.
  function chipLine(key) {
    const chip = chips.find((c) => c.key === key || c.label === key);
    const start = original.split("\n").findIndex((line) => /^# The table\b/.test(line));
    return chip ? chip.line : Math.max(0, start);
  }

  // An exercise's panel opens at the first chip its section names.
  function chipMentioned(panel) {
    const text = (panel.closest("section") || panel).textContent;
    const named = chips.filter((c) => text.includes(c.label));
    named.sort((a, b) => text.indexOf(a.label) - text.indexOf(b.label));
    return named.length ? named[0].key : "";
  }

  // An edited table follows the reader in this tab (sessionStorage) with how its last run
  // ended: one that failed, was stopped or never finished is offered, not loaded.
  const STORE = "rl-runner-table";

  function saveTable(outcome) {
    try {
      if (state.table === original) {
        sessionStorage.removeItem(STORE);
      } else {
        const previous = JSON.parse(sessionStorage.getItem(STORE) || "null");
        const kept = previous && previous.table === state.table ? previous.outcome : "edited";
        const saved = { base: original, table: state.table, outcome: outcome || kept };
        sessionStorage.setItem(STORE, JSON.stringify(saved));
      }
    } catch {
      // storage refused (private mode, quota): the edit simply stays on this page
    }
  }

  function savedTable() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
      return saved?.base === original && typeof saved.table === "string" ? saved : null;
    } catch {
      return null; // nothing usable stored
    }
  }

  function setTable(text, from) {
    state.table = text;
    saveTable();
    for (const editor of editors) {
      if (editor !== from && editor.value !== text) editor.value = text;
    }
    const edited = text !== original;
    for (const badge of document.querySelectorAll(".rl-runner-edited")) badge.hidden = !edited;
  }

  // The editor (CodeMirror, vendor/editor.js) is made when its table is first shown; until
  // then its text is the page's.
  function lazyEditor(host, options, create) {
    let real = null;
    const editor = {
      make: () => (real ||= create(host, { ...options, doc: state.table })),
      get view() {
        return editor.make().view;
      },
      get value() {
        return real ? real.value : state.table;
      },
      set value(text) {
        if (real) real.value = text;
      },
      jumpTo: (line, focus = true) => editor.make().jumpTo(line, focus),
    };
    return editor;
  }

  // The chart bundle (vega-embed) loads once a run has a figure to draw.
  let chartScript = null;
  function loadChart() {
    chartScript ||= new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = new URL(`vendor/chart.js?v=${script.dataset.vendor}`, here).href;
      tag.onload = resolve;
      tag.onerror = () => reject(new Error(say("vendor/{name} did not load", { name: "chart.js" })));
      document.head.append(tag);
    });
    return chartScript;
  }

  // ---- One panel: the page's template, brought to life ----------------------------
  function flagHtml(option, target) {
    const id = `rl-${target}-${option.flag.slice(2)}`;
    const help = option.help ? ` title="${esc(option.help)}"` : "";
    let control = `<input id="${id}" type="text" value="${esc(option.default)}" size="8"` +
      ` spellcheck="false" autocomplete="off"${help}>`;
    if (option.choices.length) {
      const listed = option.choices.includes(option.default);
      const choices = option.choices.map((c) =>
        `<option value="${esc(c)}"${c === option.default ? " selected" : ""}>${esc(c)}</option>`);
      const fallback = listed ? "" : `<option value="">${esc(say("(default)"))}</option>`;
      control = `<select id="${id}"${help}>${fallback}${choices.join("")}</select>`;
    }
    return `<label class="rl-runner-flag" for="${id}"><code>${option.flag}</code>${control}</label>`;
  }

  function build(panel, create) {
    const { kind, target } = panel.dataset;
    const options = JSON.parse(panel.dataset.options || "[]");
    const what = kind === "lecture"
      ? say("Edit the hardware table, then press Run: your browser reruns lecture {target}.py " +
          "with the course's own code and shows what the terminal prints.", { target })
      : say("Edit the hardware table, then press Run: your browser works this answer out " +
          "again with the course's own code.");
    const hint = say("Change a literal of the chip shown, then Run (Ctrl+Enter).") +
      say(" Tab leaves the editor; line numbers on the left.");
    const jumps = chips.map((c) => `<option value="${c.line}">${esc(c.label)}</option>`);
    panel.insertAdjacentHTML("beforeend", `
<p class="rl-runner-what">${esc(what)}</p>
<p class="rl-runner-cost">${esc(COST)}</p>
${options.length ? `<div class="rl-runner-flags">${options.map((o) => flagHtml(o, target)).join("")}</div>` : ""}
<details class="rl-runner-editor"><summary>${esc(say("Hardware table "))}<code>${TABLE_PATH}</code><span
 class="rl-runner-edited" hidden>${esc(say("edited"))}</span></summary>
<div class="rl-runner-editor-bar"><select class="rl-runner-jump" aria-label="${esc(say("Jump to a chip"))}"><option
 value="">${esc(say("Jump to a chip…"))}</option>${jumps.join("")}</select><span class="rl-runner-hint">${esc(hint)}</span></div>
<div class="rl-runner-table-host"></div></details>
<div class="rl-runner-actions"><button type="button" class="rl-runner-run">${esc(say("Run"))}</button><button
 type="button" class="rl-runner-stop" hidden title="${esc(say("End this run; Python restarts and your table stays as it is"))}">${esc(say("Stop"))}</button><button
 type="button" class="rl-runner-reset" title="${esc(say("Put {path} back as it is in the repository", { path: TABLE_PATH }))}">${esc(say("Reset table"))}</button><code
 class="rl-runner-command"></code></div>
<div class="highlight rl-runner-output-box" role="region" aria-label="${esc(say("Output of the run"))}" aria-live="polite"
 hidden><pre class="rl-runner-output" tabindex="0"></pre></div>
<figure class="rl-runner-chart" hidden></figure>`);
    const $ = (selector) => panel.querySelector(selector);
    const [details, jump, run, command] = [$("details"), $(".rl-runner-jump"), $(".rl-runner-run"), $(".rl-runner-command")];
    const inputs = options.map((option) => ({ option, input: $(`#rl-${target}-${option.flag.slice(2)}`) }));
    const editor = lazyEditor($(".rl-runner-table-host"), {
      label: say("{path}, editable", { path: TABLE_PATH }),
      onChange: (text) => {
        startPython();
        setTable(text, editor);
      },
      onRun: () => run.click(),
    }, create);
    panel.rlEditor = editor;
    editors.push(editor);

    // The chip the table opens at: the --chip flag's value, else the chip the page is
    // about (data-chip), else the first chip an exercise names.
    const chipInput = inputs.find(({ option }) => option.flag === "--chip");
    const pageChip = () =>
      (chipInput && chipInput.input.value) || panel.dataset.chip || chipMentioned(panel);
    let placed = false;
    details.addEventListener("toggle", () => {
      if (!details.open) return;
      editor.make();
      if (!placed) editor.jumpTo(chipLine(pageChip()), false);
      placed = true;
    });
    details.firstChild.addEventListener("click", () => details.open || startPython());
    details.open = kind === "lecture";
    chipInput?.input.addEventListener("change", () => editor.jumpTo(chipLine(pageChip()), false));
    jump.addEventListener("change", () => {
      startPython();
      if (jump.value !== "") editor.jumpTo(Number(jump.value));
      jump.value = "";
    });

    // The flags that differ from the lecture's defaults, as a terminal would take them.
    const args = () => inputs.flatMap(({ option, input }) => {
      const value = input.value.trim();
      return value === "" || value === option.default ? [] : [option.flag, value];
    });
    const base = kind === "lecture" ? `python3 lectures/${target}.py` : `python3 -m common.exercises ${target}`;
    const showCommand = () => (command.textContent = [base, ...args()].join(" "));
    showCommand();
    for (const { input } of inputs) {
      input.addEventListener("input", showCommand);
      input.addEventListener("change", () => {
        startPython();
        showCommand();
      });
    }
    $(".rl-runner-reset").addEventListener("click", () => setTable(original, null));
    $(".rl-runner-stop").addEventListener("click", () => restart("stopped"));
    run.addEventListener("click", () => execute(panel, args()));
    // "common/hw_specs.py, line N" in an error: a button that shows that line.
    panel.addEventListener("click", (event) => {
      const line = event.target.closest(".rl-runner-line");
      if (line) {
        details.open = true;
        editor.jumpTo(Number(line.dataset.line) - 1, true);
      }
    });
  }

  // ---- Output, as the terminal prints it ---------------------------------------------
  // Text as HTML, with each "common/hw_specs.py, line N" a button to that line.
  function withLineLinks(text) {
    let html = "";
    let last = 0;
    for (const match of text.matchAll(TABLE_LINE)) {
      const title = say("Show line {line} in the table editor", { line: match[2] });
      html += `${esc(text.slice(last, match.index))}<button type="button" class="rl-runner-line"` +
        ` data-line="${match[2]}" title="${esc(title)}">${esc(match[1] + match[2])}</button>`;
      last = match.index + match[0].length;
    }
    return html + esc(text.slice(last));
  }

  function render(panel, chunks) {
    let traceback = "";
    let html = "";
    const stderr = (text) => `<span class="rl-runner-stderr">${withLineLinks(text)}</span>`;
    for (const [stream, text] of chunks) {
      const at = text.indexOf(TRACEBACK);
      if (stream === "stderr" && at >= 0) {
        // An error the lecture has no one line for: show Python's last line, keep the rest.
        traceback = text.slice(at).trimEnd();
        html += (at ? stderr(text.slice(0, at)) : "") + stderr(`${traceback.split("\n").at(-1)}\n`);
      } else {
        html += stream === "stderr" ? stderr(text) : esc(text);
      }
    }
    panel.querySelector(".rl-runner-output").innerHTML = html;
    const box = panel.querySelector(".rl-runner-output-box");
    box.hidden = false;
    panel.querySelector(".rl-runner-traceback")?.remove();
    if (traceback) {
      box.insertAdjacentHTML("afterend", `<details class="rl-runner-traceback"><summary>` +
        `${esc(say("Python traceback"))}</summary><pre>${withLineLinks(traceback)}</pre></details>`);
    }
  }

  // What the redrawn chart shows, from its own specification: axes, colours, numbered points.
  function describeChart(spec) {
    const seen = { x: "", y: "", color: "", shape: "" };
    for (const layer of [spec, ...(spec.layer || [])]) {
      for (const key of Object.keys(seen)) seen[key] ||= layer.encoding?.[key]?.title || "";
    }
    const axes = seen.x && seen.y ? say(": {y} against {x}", seen) : "";
    const colour = seen.color && say("colour: {color}", seen);
    const key = [colour, seen.shape && say("marker: {shape}", seen)].filter(Boolean).join(", ");
    const numbered = (spec.usermeta?.key || []).join("; ");
    const points = numbered ? say(" Numbered points: {numbered}.", { numbered }) : "";
    const title = [].concat(spec.title).join(" "); // its lines, as one sentence
    return say("Redrawn from this run, {title}{axes} ({key}).", { title, axes, key })
      .replace(" ()", "") + points;
  }

  // The run's figure, redrawn from its numbers; the page's own figure stays as built.
  async function drawCharts(panel, specs) {
    const chart = panel.querySelector(".rl-runner-chart");
    chart.hidden = !specs?.length;
    chart.replaceChildren();
    if (chart.hidden) return;
    try {
      await loadChart();
    } catch (error) {
      chart.innerHTML = `<figcaption>${esc(say("The figure cannot be redrawn here: {message}", error))}</figcaption>`;
      return;
    }
    const label = esc(describeChart(specs[0]));
    chart.innerHTML = `<div class="rl-runner-chart-area" role="img" aria-label="${label}"></div>` +
      `<figcaption>${label}</figcaption>`;
    try {
      await window.RLRunnerChart.draw(chart.firstChild, specs[0]);
      panel.dataset.charts = String(Number(panel.dataset.charts || 0) + 1);
    } catch (error) {
      chart.lastChild.textContent = say("The figure could not be drawn: {error}", {
        error: error.message || error,
      });
    }
  }

  function setButtons() {
    for (const panel of panels) {
      panel.querySelector(".rl-runner-run").disabled = Boolean(state.busy); // pressed while Python starts, it waits
      panel.querySelector(".rl-runner-stop").hidden = state.busy?.panel !== panel;
    }
  }

  // Output and chart of an earlier run, dimmed and labelled; an empty `why`: current again.
  function stale(panel, why) {
    for (const box of panel.querySelectorAll(".rl-runner-output-box, .rl-runner-chart")) {
      why ? box.setAttribute("data-stale", why) : box.removeAttribute("data-stale");
    }
  }

  // The run's end: its status line, its outcome kept with the table, the buttons back.
  function finishRun(panel, outcome, status, kind = "error") {
    clearTimeout(state.busy?.timer);
    state.busy = null;
    saveTable(outcome);
    const stopHadFocus = document.activeElement === panel.querySelector(".rl-runner-stop");
    setButtons();
    if (stopHadFocus) panel.querySelector(".rl-runner-run").focus(); // a keyboard user stays
    setStatus(panel, status, kind);
    panel.dataset.runs = String(Number(panel.dataset.runs || 0) + 1);
  }

  function execute(panel, args) {
    if (state.busy || state.queued) return;
    if (state.phase !== "ready") {
      state.queued = () => execute(panel, args);
      startPython();
      setButtons();
      const said = say("{status} The run starts as soon as Python is ready.", { status: state.status[0] });
      setStatus(panel, said, "busy");
      return;
    }
    const started = performance.now();
    const limit = Number(root.dataset.rlRunLimitS || LIMIT_S);
    state.busy = { panel, timer: setTimeout(() => restart("limit", limit), limit * 1000) };
    const runHadFocus = document.activeElement === panel.querySelector(".rl-runner-run");
    setButtons();
    if (runHadFocus) panel.querySelector(".rl-runner-stop").focus(); // Enter now stops
    saveTable("running");
    setStatus(panel, say("Running… (Stop ends the run)"), "busy");
    stale(panel, say("Output of the previous run: a new run is going."));
    const { kind, target, chart } = panel.dataset;
    const request = JSON.stringify({ kind, target, args, table: state.table, chart: chart === "1" });
    state.busy.done = (message) => {
      const ms = performance.now() - started;
      panel.dataset.runMs = String(Math.round(ms));
      if (message.stopped) {
        stale(panel, say("Output of an earlier run: the last run was stopped."));
        finishRun(panel, "stopped", message.stopped);
      } else if (message.error) {
        stale(panel, say("Output of an earlier run: the last run failed."));
        finishRun(panel, "failed", say("The run failed inside the browser: {error}", message));
      } else {
        const result = JSON.parse(message.result);
        stale(panel, "");
        render(panel, result.chunks);
        const seconds = (ms / 1000).toFixed(2);
        if (result.status === 0) {
          finishRun(panel, "ok", say("Ran in {seconds} s.", { seconds }), "done");
        } else {
          const said = say("Stopped with exit status {status} ({seconds} s).", { ...result, seconds });
          finishRun(panel, "failed", said);
        }
        drawCharts(panel, result.charts);
      }
    };
    worker.postMessage({ type: "run", request });
  }

  // ---- Python: started on first use, restarted by Stop --------------------------------
  function announce(text, kind) {
    state.status = [text, kind];
    for (const panel of panels) {
      if (state.busy?.panel !== panel) setStatus(panel, text, kind);
    }
  }

  const version = `?v=${script.dataset.assets || ""}`;
  let worker = null;

  // The service worker keeping the runtime (runner-sw.js); the worker starts once it controls.
  async function serviceWorker() {
    if (!navigator.serviceWorker || !script.dataset.serviceWorker) return;
    const base = new URL(root.dataset.content_root || "./", location.href);
    const url = new URL(script.dataset.serviceWorker, base);
    try {
      await navigator.serviceWorker.register(url, { scope: base.pathname });
      if (!navigator.serviceWorker.controller) {
        await Promise.race([
          new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve)),
          new Promise((resolve) => setTimeout(resolve, 3000)),
        ]);
      }
    } catch {
      // no service worker (private mode, a policy): the HTTP cache does what it can
    }
  }

  function newWorker() {
    const next = new Worker(new URL(`runner-worker.mjs${version}`, here), { type: "module" });
    const failed = (message) => {
      announce(say("Python could not start in this browser: {message}", { message }), "error");
    };
    next.addEventListener("message", (event) => {
      const message = event.data;
      if (next !== worker) return;
      if (message.type === "ready") {
        state.phase = "ready";
        root.dataset.rlRunnerReadyMs = String(Math.round(performance.now()));
        announce(say("Ready: Python {python} runs in this page, offline.", message), "ready");
        setButtons();
        const queued = state.queued;
        state.queued = null;
        queued?.();
      } else if (message.type === "failed") {
        state.queued = null;
        failed(message.message);
        setButtons();
      } else {
        state.busy?.done(message);
      }
    });
    next.addEventListener("error", (event) => next === worker && failed(event.message || say("error")));
    next.postMessage({
      type: "init",
      runtime: new URL(script.dataset.runtime, here).href,
      course: new URL(script.dataset.course, here).href,
      harness: new URL(`harness.py${version}`, here).href,
      warm: JSON.parse(script.dataset.warm || "[]"),
    });
    return next;
  }

  async function boot(text) {
    state.phase = "starting";
    announce(text, "busy");
    await serviceWorker();
    worker = newWorker();
  }

  function startPython() {
    if (state.phase === "idle") boot(say("Starting Python in your browser…"));
  }

  // Stop, or the time limit: end the worker, answer the run, start a fresh Python.
  function restart(why, limit = LIMIT_S) {
    const busy = state.busy;
    if (!busy) return;
    worker.terminate();
    const message = why === "limit"
      ? say("Stopped after {limit} s: the run did not finish (a loop that never ends?). " +
          "Python restarted; your table is kept.", { limit })
      : say("Stopped. Python restarted; your table is kept.");
    busy.done({ stopped: message });
    boot(message);
  }

  // ---- Start: the table kept in this tab, or offered when its last run went wrong -----
  const saved = savedTable();
  const doubtful = saved && ["failed", "stopped", "running"].includes(saved.outcome);
  // CodeMirror's bundle loads before this script; without it no panel can edit the table.
  if (!window.RLRunnerEditor) {
    const said = say("vendor/{name} did not load", { name: "editor.js" });
    panels.forEach((panel) => setStatus(panel, said, "off"));
    return;
  }
  for (const panel of panels) {
    build(panel, window.RLRunnerEditor.create);
    setStatus(panel, ...state.status);
  }
  if (saved && !doubtful) setTable(saved.table, null);
  if (doubtful) {
    const how = { failed: say("ended with an error"), stopped: say("was stopped"),
                  running: say("never finished") }[saved.outcome];
    const text = say("Your edited table from earlier in this tab {how} when it last ran, " +
      "so it is not loaded; the repository's table is.", { how });
    for (const panel of panels) {
      panel.querySelector(".rl-runner-cost").insertAdjacentHTML("beforebegin",
        `<div class="rl-runner-offer" role="group" aria-label="${esc(say("Edited table from earlier"))}">` +
        `<span>${esc(text)}</span><button type="button" class="rl-runner-restore">${esc(say("Use it"))}` +
        `</button><button type="button" class="rl-runner-discard">${esc(say("Discard"))}</button></div>`);
    }
    document.addEventListener("click", (event) => {
      const button = event.target.closest(".rl-runner-restore, .rl-runner-discard");
      if (!button) return;
      if (button.matches(".rl-runner-restore")) {
        setTable(saved.table, null);
        saveTable("edited");
      } else {
        sessionStorage.removeItem(STORE);
      }
      document.querySelectorAll(".rl-runner-offer").forEach((box) => box.remove());
    });
  }
  setButtons();
  root.dataset.rlRunnerBuilt = "codemirror";
})();
