// "Run it here" panels (docs/_ext/runner.py writes their HTML): edit common/hw_specs.py
// in the page, press Run, and read what the terminal would print. Python runs in a web
// worker (runner-worker.mjs) with Pyodide served from this site: nothing leaves it.
//
// The page keeps one copy of the hardware table; every panel on the page edits that copy,
// as every lecture in the repository reads the one file.
(() => {
  "use strict";

  // Loaded with `async` on pages that have a panel: start Python at once, in parallel with
  // the rest of the page, and build the panels as soon as the document is parsed.
  const script = document.currentScript;
  if (!script) {
    return;
  }
  const here = new URL(".", script.src);
  let panels = [];
  const onDocument = (run) => {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", run, { once: true });
    } else {
      run();
    }
  };
  const TABLE_PATH = "common/hw_specs.py";
  const TRACEBACK = "Traceback (most recent call last):";
  const SERVE = "python3 -m http.server -d docs/_build/html 8000";

  function element(tag, props = {}, children = []) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "text") {
        node.textContent = value;
      } else if (key in node && typeof value !== "string") {
        node[key] = value;
      } else {
        node.setAttribute(key, value);
      }
    }
    for (const child of children) {
      node.append(child);
    }
    return node;
  }

  function setStatus(panel, text, kind = "") {
    const status = panel.querySelector(".rl-runner-status");
    status.textContent = text;
    status.dataset.state = kind;
  }

  // ---- Opened from file:// : browsers refuse to start WebAssembly workers there. ------
  if (location.protocol === "file:") {
    onDocument(() => {
      const root = document.documentElement.dataset.content_root || "";
      const page = new URL(root || ".", location.href);
      const rest = location.pathname.slice(page.pathname.length);
      for (const panel of document.querySelectorAll(".rl-runner")) {
        setStatus(
          panel,
          "Run it here needs the site served over HTTP, because browsers do not run " +
            `WebAssembly from file:// pages: run \`${SERVE}\` in the repository and open ` +
            `http://127.0.0.1:8000/${rest}`,
          "off",
        );
      }
    });
    return;
  }

  // ---- Shared state: the table as in the repository, and as edited. ------------------
  let original = "";
  const state = {
    table: "",
    ready: false,
    status: ["Starting Python in your browser…", "busy"],
    busy: false,
    nextId: 1,
    waiting: new Map(),
  };
  const editors = [];

  function chipsIn(text) {
    const chips = [];
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      const match = /^([A-Z][A-Z0-9_]*) = Chip\(/.exec(line);
      if (match) {
        const name = lines.slice(index, index + 4).join("\n").match(/name="([^"]+)"/);
        chips.push({ label: name ? name[1] : match[1], line: index });
      }
    });
    return chips;
  }

  function showEdited() {
    const edited = state.table !== original;
    for (const panel of panels) {
      const badge = panel.querySelector(".rl-runner-edited");
      if (badge) {
        badge.hidden = !edited;
      }
    }
  }

  // An edited table follows the reader from page to page in this tab (sessionStorage),
  // as long as the site's own table has not changed since.
  const STORE = "rl-runner-table";

  function saveTable() {
    try {
      if (state.table === original) {
        sessionStorage.removeItem(STORE);
      } else {
        sessionStorage.setItem(STORE, JSON.stringify({ base: original, table: state.table }));
      }
    } catch {
      // storage refused (private mode, quota): the edit simply stays on this page
    }
  }

  function savedTable() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
      if (saved && saved.base === original && typeof saved.table === "string") {
        return saved.table;
      }
    } catch {
      // nothing usable stored
    }
    return original;
  }

  function setTable(text, from) {
    state.table = text;
    saveTable();
    for (const area of editors) {
      if (area !== from && area.value !== text) {
        area.value = text;
      }
    }
    showEdited();
  }

  function jumpTo(area, line, focus = true) {
    const lines = area.value.split("\n");
    const offset = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0);
    if (focus) {
      area.focus({ preventScroll: true });
      area.setSelectionRange(offset, offset);
    }
    const height = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, line * height - height);
  }

  // The editor first shows the chips, not the file's docstring and imports.
  const firstChip = () =>
    Math.max(
      0,
      original.split("\n").findIndex((line) => /^# The table\b/.test(line)),
    );

  // ---- Controls of one panel ------------------------------------------------------
  function commandLine(panel, values) {
    const parts = [panel.dataset.command];
    for (const { flag, value, fallback } of values) {
      if (value !== "" && value !== fallback) {
        parts.push(flag, value);
      }
    }
    return parts.join(" ");
  }

  function build(panel) {
    const options = JSON.parse(panel.dataset.options || "[]");
    const controls = panel.querySelector(".rl-runner-controls");
    const inputs = [];

    const flags = element("div", { class: "rl-runner-flags" });
    for (const option of options) {
      const id = `rl-${panel.dataset.target}-${option.flag.slice(2)}`;
      let input;
      if (option.choices.length) {
        input = element("select", { id });
        if (!option.choices.includes(option.default)) {
          input.append(element("option", { value: "", text: "(default)" }));
        }
        for (const choice of option.choices) {
          input.append(element("option", { value: choice, text: choice }));
        }
        input.value = option.choices.includes(option.default) ? option.default : "";
      } else {
        input = element("input", {
          id,
          type: "text",
          value: option.default,
          size: 8,
          spellcheck: false,
          autocomplete: "off",
        });
      }
      if (option.help) {
        input.title = option.help;
      }
      inputs.push({ option, input });
      flags.append(
        element("label", { class: "rl-runner-flag", for: id }, [
          element("code", { text: option.flag }),
          input,
        ]),
      );
    }

    const area = element("textarea", {
      class: "rl-runner-table-edit",
      rows: 16,
      spellcheck: false,
      autocapitalize: "off",
      autocomplete: "off",
      wrap: "off",
      "aria-label": `${TABLE_PATH}, editable`,
    });
    area.value = state.table;
    editors.push(area);
    const jump = element("select", { class: "rl-runner-jump", "aria-label": "Jump to a chip" });
    jump.append(element("option", { value: "", text: "Jump to a chip…" }));
    for (const chip of chipsIn(original)) {
      jump.append(element("option", { value: String(chip.line), text: chip.label }));
    }
    jump.addEventListener("change", () => {
      if (jump.value !== "") {
        jumpTo(area, Number(jump.value));
      }
      jump.value = "";
    });
    const editor = element("details", { class: "rl-runner-editor" }, [
      element("summary", {}, [
        "Hardware table ",
        element("code", { text: TABLE_PATH }),
        element("span", { class: "rl-runner-edited", text: "edited", hidden: true }),
      ]),
      element("div", { class: "rl-runner-editor-bar" }, [
        jump,
        element("span", {
          class: "rl-runner-hint",
          text: "Change a literal such as 989e12, then Run (Ctrl+Enter).",
        }),
      ]),
      area,
    ]);
    let placed = false;
    const place = () => {
      if (editor.open && !placed) {
        placed = true;
        jumpTo(area, firstChip(), false);
      }
    };
    editor.addEventListener("toggle", place);
    if (panel.dataset.kind === "lecture") {
      editor.open = true;
      requestAnimationFrame(place);
    }

    const run = element("button", { type: "button", class: "rl-runner-run", text: "Run" });
    run.disabled = true;
    const reset = element("button", {
      type: "button",
      class: "rl-runner-reset",
      text: "Reset table",
      title: `Put ${TABLE_PATH} back as it is in the repository`,
    });
    const command = element("code", { class: "rl-runner-command" });
    const showCommand = () => {
      command.textContent = commandLine(panel, values());
    };
    const values = () =>
      inputs.map(({ option, input }) => ({
        flag: option.flag,
        value: input.value.trim(),
        fallback: option.default,
      }));
    const actions = element("div", { class: "rl-runner-actions" }, [run, reset, command]);

    const output = element("pre", { class: "rl-runner-output" });
    const outputBox = element("div", { class: "highlight rl-runner-output-box", hidden: true }, [
      output,
    ]);

    controls.append(flags, editor, actions, outputBox);
    if (!options.length) {
      flags.remove();
    }
    controls.hidden = false;
    showCommand();

    area.addEventListener("input", () => setTable(area.value, area));
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        run.click();
      }
    });
    for (const { input } of inputs) {
      input.addEventListener("input", showCommand);
      input.addEventListener("change", showCommand);
    }
    reset.addEventListener("click", () => setTable(original, null));
    run.addEventListener("click", () => {
      const args = [];
      for (const { flag, value, fallback } of values()) {
        if (value !== "" && value !== fallback) {
          args.push(flag, value);
        }
      }
      execute(panel, args, output, outputBox);
    });
  }

  // ---- Output, as the terminal prints it ---------------------------------------------
  function render(output, chunks) {
    output.replaceChildren();
    let traceback = "";
    for (const [stream, text] of chunks) {
      if (stream === "stderr" && text.includes(TRACEBACK)) {
        // An error the lecture has no one line for: show Python's last line, keep the rest.
        const at = text.indexOf(TRACEBACK);
        const lines = text.slice(at).trimEnd().split("\n");
        traceback = lines.join("\n");
        const before = text.slice(0, at);
        if (before) {
          output.append(element("span", { class: "rl-runner-stderr", text: before }));
        }
        output.append(element("span", { class: "rl-runner-stderr", text: `${lines.at(-1)}\n` }));
      } else if (stream === "stderr") {
        output.append(element("span", { class: "rl-runner-stderr", text }));
      } else {
        output.append(text);
      }
    }
    const box = output.parentElement;
    const previous = box.nextElementSibling;
    if (previous && previous.classList.contains("rl-runner-traceback")) {
      previous.remove();
    }
    if (traceback) {
      box.after(
        element("details", { class: "rl-runner-traceback" }, [
          element("summary", { text: "Python traceback" }),
          element("pre", { text: traceback }),
        ]),
      );
    }
  }

  function setBusy(busy) {
    state.busy = busy;
    for (const button of document.querySelectorAll(".rl-runner-run")) {
      button.disabled = busy || !state.ready;
    }
  }

  function execute(panel, args, output, outputBox) {
    if (state.busy || !state.ready) {
      return;
    }
    const started = performance.now();
    const id = state.nextId++;
    setBusy(true);
    setStatus(panel, "Running…", "busy");
    const request = JSON.stringify({
      kind: panel.dataset.kind,
      target: panel.dataset.target,
      args,
      table: state.table,
    });
    state.waiting.set(id, (message) => {
      setBusy(false);
      const ms = performance.now() - started;
      panel.dataset.runMs = String(Math.round(ms));
      if (message.error) {
        setStatus(panel, `The run failed inside the browser: ${message.error}`, "error");
        return;
      }
      const result = JSON.parse(message.result);
      outputBox.hidden = false;
      render(output, result.chunks);
      const seconds = (ms / 1000).toFixed(2);
      if (result.status === 0) {
        setStatus(panel, `Ran in ${seconds} s.`, "done");
      } else {
        setStatus(panel, `Stopped with exit status ${result.status} (${seconds} s).`, "error");
      }
      panel.dataset.runs = String(Number(panel.dataset.runs || 0) + 1);
    });
    worker.postMessage({ type: "run", id, request });
  }

  // ---- Start Python once for the page, then build its panels -------------------------
  function announce(text, kind) {
    state.status = [text, kind];
    for (const panel of panels) {
      setStatus(panel, text, kind);
    }
  }

  const version = `?v=${script.dataset.assets || ""}`;
  const worker = new Worker(new URL(`runner-worker.mjs${version}`, here), { type: "module" });
  worker.addEventListener("message", (event) => {
    const message = event.data;
    if (message.type === "ready") {
      state.ready = true;
      const root = document.documentElement;
      root.dataset.rlRunnerReadyMs = String(Math.round(performance.now()));
      const started = message.phases.origin - performance.timeOrigin; // the worker's own clock
      root.dataset.rlRunnerPhases = JSON.stringify({ worker: started, ...message.phases });
      announce(`Ready: Python ${message.python} runs in this page, offline.`, "ready");
      setBusy(false);
    } else if (message.type === "failed") {
      announce(`Python could not start in this browser: ${message.message}`, "error");
    } else if (message.type === "result") {
      const done = state.waiting.get(message.id);
      state.waiting.delete(message.id);
      done?.(message);
    }
  });
  worker.addEventListener("error", (event) => {
    announce(`Python could not start in this browser: ${event.message || "error"}`, "error");
  });
  worker.postMessage({
    type: "init",
    runtime: new URL(script.dataset.runtime, here).href,
    course: new URL(script.dataset.course, here).href,
    harness: new URL(`harness.py${version}`, here).href,
    warm: JSON.parse(script.dataset.warm || "[]"),
  });

  onDocument(() => {
    const source = document.querySelector("script.rl-runner-table");
    original = source ? JSON.parse(source.textContent) : "";
    state.table = savedTable();
    panels = Array.from(document.querySelectorAll(".rl-runner"));
    for (const panel of panels) {
      build(panel);
      setStatus(panel, ...state.status);
    }
    showEdited();
    setBusy(state.busy);
  });
})();
