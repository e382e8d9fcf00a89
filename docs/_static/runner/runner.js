// "Run it here" panels (docs/_ext/runner.py writes their HTML): edit common/hw_specs.py
// in the page, press Run, and read what the terminal would print, with the lecture's
// figure redrawn from that run. Python runs in a web worker (runner-worker.mjs) with
// Pyodide served from this site: nothing leaves it.
//
// - Python is fetched only when the reader means to use a panel (presses Run, edits the
//   table or a flag, opens the table); a focus passing through or a swipe loads nothing.
//   A service worker (runner-sw.js, at the site's root) keeps it in the
//   browser's Cache Storage, so the next page or a reload does not fetch it again.
// - Stop (or a run past the time limit) ends the worker and starts a fresh one; the
//   reader's table stays as it is.
// - The table is edited in CodeMirror (vendor/editor.js, bundled from npm at build time),
//   or in a plain textarea when the bundle is missing. The figure is drawn with
//   vega-embed (vendor/chart.js) from the Vega-Lite data the run emits
//   (docs/_static/runner/live.py).
//
// The page keeps one copy of the hardware table; every panel on the page edits that copy,
// as every lecture in the repository reads the one file.
(() => {
  "use strict";

  const script = document.currentScript; // loaded with defer: it runs once the page is parsed
  if (!script) {
    return;
  }
  const here = new URL(".", script.src);
  const root = document.documentElement;
  // The panel's own words on a page in another language (<html lang>): English, the
  // default, is written where it is used; say() looks it up and fills in each {name}.
  // What a run prints stays as Python prints it. tests/docs/test_runner_words.py reads this.
  const WORDS = {
    zh: {
      "Run it here": "在这里运行",
      "Edit the hardware table, then press Run: your browser reruns lecture {target}.py with the course's own code and shows what the terminal prints.":
        "改动硬件参数表，再按“运行”：浏览器会用课程自己的代码重跑这一讲（{target}.py），显示终端会打印的内容。",
      "Edit the hardware table, then press Run: your browser works this answer out again with the course's own code.":
        "改动硬件参数表，再按“运行”：浏览器会用课程自己的代码把这道题的答案重算一遍。",
      "Run it here needs the site served over HTTP, because browsers do not run WebAssembly from file:// pages: run `{serve}` in the repository and open http://127.0.0.1:8000/{rest}":
        "“在这里运行”需要通过 HTTP 访问本站，因为浏览器不在 file:// 页面里运行 WebAssembly：请在仓库中运行 `{serve}`，再打开 http://127.0.0.1:8000/{rest}",
      "Python loads when you use this panel: the first time it downloads {mb} MB (kept by your browser for the next page), and the first run waits a few seconds while Python starts; later runs take under a second.":
        "用到这个面板时才加载 Python：第一次要下载 {mb} MB（浏览器会缓存，换一页不用再下），第一次运行要等几秒让 Python 启动；之后每次运行不到一秒。",
      "Python is not loaded yet.": "Python 尚未加载。",
      "(default)": "（默认）",
      "{path}, editable": "{path}，可编辑",
      "Jump to a chip": "跳到某块芯片",
      "Jump to a chip…": "跳到某块芯片…",
      " Tab leaves the editor; line numbers on the left.": "按 Tab 离开编辑器；左侧是行号。",
      "Change a literal of the chip shown, then Run (Ctrl+Enter).":
        "改动所显示芯片的某个数值，然后运行（Ctrl+Enter）。",
      "Hardware table ": "硬件参数表 ",
      edited: "已改动",
      Run: "运行",
      Stop: "停止",
      "End this run; Python restarts and your table stays as it is":
        "结束本次运行；Python 会重启，你的参数表保持不变",
      "Reset table": "还原参数表",
      "Put {path} back as it is in the repository": "把 {path} 恢复成仓库里的样子",
      "Output of the run": "运行输出",
      "Show line {line} in the table editor": "在参数表编辑器中显示第 {line} 行",
      "Python traceback": "Python 回溯（traceback）",
      ": {y} against {x}": "：{y} 随 {x} 的变化",
      "colour: {color}": "颜色：{color}",
      "marker: {shape}": "标记：{shape}",
      " Numbered points: {numbered}.": "编号点：{numbered}。",
      "Redrawn from this run, {title}{axes} ({key}).": "按本次运行重绘：{title}{axes} ({key})。",
      "The figure cannot be redrawn here: {message}": "这里无法重绘这张图：{message}",
      "The figure could not be drawn: {error}": "这张图没能画出来：{error}",
      "this build has no bundled editor or chart": "这次构建没有打包编辑器和图表",
      "vendor/{name} did not load": "vendor/{name} 没能加载",
      "{status} The run starts as soon as Python is ready.": "{status}Python 一就绪就开始运行。",
      "Running… (Stop ends the run)": "运行中…（按“停止”可结束）",
      "Output of the previous run: a new run is going.": "上一次运行的输出：新的运行正在进行。",
      "Output of an earlier run: the last run was stopped.": "之前运行的输出：上一次运行被停止了。",
      "Output of an earlier run: the last run failed.": "之前运行的输出：上一次运行失败了。",
      "The run failed inside the browser: {error}": "运行在浏览器内部失败：{error}",
      "Ran in {seconds} s.": "运行完毕，用时 {seconds} 秒。",
      "Stopped with exit status {status} ({seconds} s).":
        "已结束，退出状态 {status}（用时 {seconds} 秒）。",
      "Ready: Python {python} runs in this page, offline.": "就绪：Python {python} 在本页离线运行。",
      "Python could not start in this browser: {message}": "Python 无法在这个浏览器中启动：{message}",
      error: "错误",
      "Starting Python in your browser…": "正在浏览器中启动 Python…",
      "Stopped after {limit} s: the run did not finish (a loop that never ends?). Python restarted; your table is kept.":
        "{limit} 秒后已停止：运行没有结束（是不是死循环？）。Python 已重启，你的参数表保留不变。",
      "Stopped. Python restarted; your table is kept.": "已停止。Python 已重启，你的参数表保留不变。",
      "ended with an error": "出错结束",
      "was stopped": "被停止",
      "never finished": "没有跑完",
      "Use it": "使用它",
      Discard: "丢弃",
      "Edited table from earlier": "之前改过的参数表",
      "Your edited table from earlier in this tab {how} when it last ran, so it is not loaded; the repository's table is.":
        "这个标签页里你之前改过的参数表，上次运行时{how}，所以没有加载它，加载的是仓库里的参数表。",
    },
  };
  const words = WORDS[(root.lang || "").slice(0, 2)] || {};
  const say = (english, values = {}) =>
    (words[english] || english).replace(/\{(\w+)\}/g, (all, name) => values[name] ?? all);
  // The words docs/_ext/runner.py writes into the panel: its title and what Run does.
  function localize(panel) {
    const title = panel.querySelector(".rl-runner-title");
    const what = panel.querySelector(".rl-runner-what");
    for (const [node, key] of [
      [title, title && title.textContent],
      [what, what && what.textContent.replace(`${panel.dataset.target}.py`, "{target}.py")],
    ]) {
      if (node && words[key]) {
        node.textContent = say(key, panel.dataset);
      }
    }
  }
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
  // A line of the table an error names: "common/hw_specs.py, line 193", a slip's
  // "common/hw_specs.py line 193: chip h100 ... is missing its field ...", or a traceback's
  // 'File ".../common/hw_specs.py", line 193'.
  const TABLE_LINE = /(common\/hw_specs\.py"?,? line )(\d+)/g;
  const LIMIT_S = Number(script.dataset.runLimit || 30);

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
      const base = root.dataset.content_root || "";
      const page = new URL(base || ".", location.href);
      const rest = location.pathname.slice(page.pathname.length);
      for (const panel of document.querySelectorAll(".rl-runner")) {
        localize(panel);
        setStatus(
          panel,
          say(
            "Run it here needs the site served over HTTP, because browsers do not run " +
              "WebAssembly from file:// pages: run `{serve}` in the repository and open " +
              "http://127.0.0.1:8000/{rest}",
            { serve: SERVE, rest },
          ),
          "off",
        );
      }
    });
    return;
  }

  // ---- Shared state: the table as in the repository, and as edited. ------------------
  let original = "";
  const megabytes = (Number(script.dataset.download || 0) / 1e6).toFixed(1);
  // What using a panel costs, said once per panel before Python loads. It stays in place
  // (the status line beside it is one short line), so a press does not move the buttons.
  const COST = say(
    "Python loads when you use this panel: the first time it downloads {mb} MB " +
      "(kept by your browser for the next page), and the first run waits a few seconds " +
      "while Python starts; later runs take under a second.",
    { mb: megabytes },
  );
  const IDLE = say("Python is not loaded yet.");
  const state = {
    table: "",
    phase: "idle", // idle, starting, ready
    status: [IDLE, "idle"],
    busy: null, // the run in progress: {id, panel, timer}
    queued: null, // a run asked for while Python starts
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
        const near = lines.slice(index, index + 4).join("\n");
        const name = near.match(/name="([^"]+)"/);
        const key = near.match(/key="([^"]+)"/);
        chips.push({ label: name ? name[1] : match[1], key: key ? key[1] : "", line: index });
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
  // as long as the site's own table has not changed since. With it goes how its last
  // run ended: a table whose run failed, was stopped or never finished is offered on the
  // next page, not loaded, so a loop does not follow the reader from page to page.
  const STORE = "rl-runner-table";

  function saveTable(outcome) {
    try {
      if (state.table === original) {
        sessionStorage.removeItem(STORE);
      } else {
        const previous = JSON.parse(sessionStorage.getItem(STORE) || "null");
        const kept = previous && previous.table === state.table ? previous.outcome : "edited";
        sessionStorage.setItem(
          STORE,
          JSON.stringify({ base: original, table: state.table, outcome: outcome || kept }),
        );
      }
    } catch {
      // storage refused (private mode, quota): the edit simply stays on this page
    }
  }

  function savedTable() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
      if (saved && saved.base === original && typeof saved.table === "string") {
        return saved;
      }
    } catch {
      // nothing usable stored
    }
    return null;
  }

  function setTable(text, from) {
    state.table = text;
    saveTable();
    for (const editor of editors) {
      if (editor !== from && editor.value !== text) {
        editor.value = text;
      }
    }
    showEdited();
  }

  // ---- The editor: CodeMirror when its bundle loaded, else a textarea ------------------
  function textareaEditor(parent, { doc, label, onChange, onRun }) {
    const area = element("textarea", {
      class: "rl-runner-table-edit",
      rows: 16,
      spellcheck: false,
      autocapitalize: "off",
      autocomplete: "off",
      wrap: "off",
      "aria-label": label,
    });
    area.value = doc;
    parent.append(area);
    area.addEventListener("input", () => onChange(area.value));
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        onRun();
      }
    });
    return {
      get value() {
        return area.value;
      },
      set value(text) {
        area.value = text;
      },
      jumpTo(line, focus = true) {
        const lines = area.value.split("\n");
        const offset = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0);
        if (focus) {
          area.focus({ preventScroll: true });
          area.setSelectionRange(offset, offset + (lines[line] || "").length);
        }
        const height = parseFloat(getComputedStyle(area).lineHeight) || 18;
        area.scrollTop = Math.max(0, line * height - height);
      },
    };
  }

  // The editor is made when its table is first shown: a page of ten exercise panels,
  // their tables folded, builds no editor until the reader opens one.
  function lazyEditor(host, options, makeEditor) {
    let real = null;
    let text = options.doc;
    const make = () => {
      if (real === null) {
        real = makeEditor(host, { ...options, doc: text });
      }
      return real;
    };
    return {
      make,
      get view() {
        return make().view;
      },
      get value() {
        return real === null ? text : real.value;
      },
      set value(next) {
        if (real === null) {
          text = next;
        } else {
          real.value = next;
        }
      },
      jumpTo(line, focus = true) {
        make().jumpTo(line, focus);
      },
    };
  }

  const loaded = new Map();
  function loadScript(name) {
    if (!script.dataset.vendor) {
      return Promise.reject(new Error(say("this build has no bundled editor or chart")));
    }
    if (!loaded.has(name)) {
      loaded.set(
        name,
        new Promise((resolve, reject) => {
          const tag = element("script", {
            src: new URL(`vendor/${name}?v=${script.dataset.vendor}`, here).href,
          });
          tag.addEventListener("load", resolve, { once: true });
          tag.addEventListener("error", () =>
            reject(new Error(say("vendor/{name} did not load", { name }))),
          );
          document.head.append(tag);
        }),
      );
    }
    return loaded.get(name);
  }

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

  // The chip the panel opens at: its --chip flag's value, else the chip the page is about
  // (data-chip), else the start of the table.
  function chipLine(key) {
    const chip = chipsIn(original).find((c) => c.key === key || c.label === key);
    if (chip) {
      return chip.line;
    }
    return Math.max(
      0,
      original.split("\n").findIndex((line) => /^# The table\b/.test(line)),
    );
  }

  // An exercise's panel opens at the first chip its section names.
  function chipMentioned(panel) {
    const text = (panel.closest("section") || panel).textContent;
    let best = null;
    for (const chip of chipsIn(original)) {
      const at = text.indexOf(chip.label);
      if (at >= 0 && (best === null || at < best.at)) {
        best = { at, key: chip.key };
      }
    }
    return best ? best.key : "";
  }

  function build(panel, makeEditor) {
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
          input.append(element("option", { value: "", text: say("(default)") }));
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
    const chipInput = inputs.find(({ option }) => option.flag === "--chip");
    const pageChip = () =>
      (chipInput && chipInput.input.value) || panel.dataset.chip || chipMentioned(panel);

    const host = element("div", { class: "rl-runner-table-host" });
    const run = element("button", { type: "button", class: "rl-runner-run", text: say("Run") });
    const editor = lazyEditor(
      host,
      {
        doc: state.table,
        label: say("{path}, editable", { path: TABLE_PATH }),
        onChange: (text) => {
          startPython();
          setTable(text, editor);
        },
        onRun: () => run.click(),
      },
      makeEditor,
    );
    panel.rlEditor = editor;
    editors.push(editor);
    const jump = element("select", {
      class: "rl-runner-jump",
      "aria-label": say("Jump to a chip"),
    });
    jump.append(element("option", { value: "", text: say("Jump to a chip…") }));
    for (const chip of chipsIn(original)) {
      jump.append(element("option", { value: String(chip.line), text: chip.label }));
    }
    jump.addEventListener("change", () => {
      startPython();
      if (jump.value !== "") {
        editor.jumpTo(Number(jump.value));
      }
      jump.value = "";
    });
    const tabHint =
      makeEditor === textareaEditor ? "" : say(" Tab leaves the editor; line numbers on the left.");
    const details = element("details", { class: "rl-runner-editor" }, [
      element("summary", {}, [
        say("Hardware table "),
        element("code", { text: TABLE_PATH }),
        element("span", { class: "rl-runner-edited", text: say("edited"), hidden: true }),
      ]),
      element("div", { class: "rl-runner-editor-bar" }, [
        jump,
        element("span", {
          class: "rl-runner-hint",
          text: say("Change a literal of the chip shown, then Run (Ctrl+Enter).") + tabHint,
        }),
      ]),
      host,
    ]);
    panel.rlOpenTable = () => {
      details.open = true;
    };
    let placed = false;
    details.firstChild.addEventListener("click", () => details.open || startPython());
    const place = () => {
      if (details.open) {
        editor.make();
      }
      if (details.open && !placed) {
        placed = true;
        editor.jumpTo(chipLine(pageChip()), false);
      }
    };
    details.addEventListener("toggle", place);
    if (panel.dataset.kind === "lecture") {
      details.open = true;
      requestAnimationFrame(place);
    }
    if (chipInput) {
      chipInput.input.addEventListener("change", () => editor.jumpTo(chipLine(pageChip()), false));
    }

    const stop = element("button", {
      type: "button",
      class: "rl-runner-stop",
      text: say("Stop"),
      hidden: true,
      title: say("End this run; Python restarts and your table stays as it is"),
    });
    const reset = element("button", {
      type: "button",
      class: "rl-runner-reset",
      text: say("Reset table"),
      title: say("Put {path} back as it is in the repository", { path: TABLE_PATH }),
    });
    const command = element("code", { class: "rl-runner-command" });
    const values = () =>
      inputs.map(({ option, input }) => ({
        flag: option.flag,
        value: input.value.trim(),
        fallback: option.default,
      }));
    const showCommand = () => {
      command.textContent = commandLine(panel, values());
    };
    const actions = element("div", { class: "rl-runner-actions" }, [run, stop, reset, command]);

    // The output: announced politely to screen readers; it scrolls inside its box.
    const output = element("pre", { class: "rl-runner-output", tabindex: "0" });
    const outputBox = element(
      "div",
      {
        class: "highlight rl-runner-output-box",
        role: "region",
        "aria-label": say("Output of the run"),
        "aria-live": "polite",
        hidden: true,
      },
      [output],
    );
    const chart = element("figure", { class: "rl-runner-chart", hidden: true });

    const cost = element("p", { class: "rl-runner-cost", text: COST });
    controls.append(cost, flags, details, actions, outputBox, chart);
    if (!options.length) {
      flags.remove();
    }
    controls.hidden = false;
    showCommand();

    for (const { input } of inputs) {
      input.addEventListener("input", showCommand);
      input.addEventListener("change", () => {
        startPython();
        showCommand();
      });
    }
    reset.addEventListener("click", () => setTable(original, null));
    stop.addEventListener("click", () => restart("stopped"));
    run.addEventListener("click", () => {
      const args = [];
      for (const { flag, value, fallback } of values()) {
        if (value !== "" && value !== fallback) {
          args.push(flag, value);
        }
      }
      execute(panel, args, { output, outputBox, chart });
    });
  }

  // ---- Output, as the terminal prints it ---------------------------------------------
  // Text with each "common/hw_specs.py, line N" turned into a button to that line.
  function withLineLinks(text, panel) {
    const parts = [];
    let last = 0;
    for (const match of text.matchAll(TABLE_LINE)) {
      const line = Number(match[2]);
      parts.push(text.slice(last, match.index));
      const button = element("button", {
        type: "button",
        class: "rl-runner-line",
        text: `${match[1]}${match[2]}`,
        title: say("Show line {line} in the table editor", { line }),
      });
      button.dataset.line = String(line);
      button.addEventListener("click", () => {
        panel.rlOpenTable();
        panel.rlEditor.jumpTo(line - 1, true);
      });
      parts.push(button);
      last = match.index + match[0].length;
    }
    parts.push(text.slice(last));
    return parts.filter((p) => p !== "");
  }

  function render(panel, output, chunks) {
    output.replaceChildren();
    let traceback = "";
    const stderr = (text) =>
      element("span", { class: "rl-runner-stderr" }, withLineLinks(text, panel));
    for (const [stream, text] of chunks) {
      if (stream === "stderr" && text.includes(TRACEBACK)) {
        // An error the lecture has no one line for: show Python's last line, keep the rest.
        const at = text.indexOf(TRACEBACK);
        const lines = text.slice(at).trimEnd().split("\n");
        traceback = lines.join("\n");
        const before = text.slice(0, at);
        if (before) {
          output.append(stderr(before));
        }
        output.append(stderr(`${lines.at(-1)}\n`));
      } else if (stream === "stderr") {
        output.append(stderr(text));
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
          element("summary", { text: say("Python traceback") }),
          element("pre", {}, withLineLinks(traceback, panel)),
        ]),
      );
    }
  }

  // What the redrawn chart shows, read from its own specification (the lecture's caption
  // describes the static figure, whose marks differ): its axes, what its colours mean and
  // what each numbered point is (the specification's usermeta.key).
  function describeChart(spec) {
    const seen = { x: "", y: "", color: "", shape: "" };
    for (const layer of [spec, ...(spec.layer || [])]) {
      for (const key of Object.keys(seen)) {
        seen[key] ||= (layer.encoding && layer.encoding[key] && layer.encoding[key].title) || "";
      }
    }
    const axes = seen.x && seen.y ? say(": {y} against {x}", seen) : "";
    const colour = seen.color && say("colour: {color}", seen);
    const key = [colour, seen.shape && say("marker: {shape}", seen)].filter(Boolean).join(", ");
    const numbered = ((spec.usermeta && spec.usermeta.key) || []).join("; ");
    const points = numbered ? say(" Numbered points: {numbered}.", { numbered }) : "";
    const title = [].concat(spec.title).join(" "); // its lines, as one sentence
    return say("Redrawn from this run, {title}{axes} ({key}).", { title, axes, key })
      .replace(" ()", "") + points;
  }

  // The run's figure, redrawn from its numbers; the page's own figure stays as built.
  async function drawCharts(panel, chart, specs) {
    if (!specs || !specs.length) {
      chart.hidden = true;
      chart.replaceChildren();
      return;
    }
    try {
      await loadScript("chart.js");
    } catch (error) {
      chart.hidden = false;
      chart.replaceChildren(
        element("figcaption", {
          text: say("The figure cannot be redrawn here: {message}", error),
        }),
      );
      return;
    }
    const spec = specs[0];
    const area = element("div", { class: "rl-runner-chart-area" });
    const caption = element("figcaption", { text: describeChart(spec) });
    chart.replaceChildren(area, caption);
    chart.hidden = false;
    area.setAttribute("role", "img");
    area.setAttribute("aria-label", caption.textContent);
    try {
      await window.RLRunnerChart.draw(area, spec);
      panel.dataset.charts = String(Number(panel.dataset.charts || 0) + 1);
    } catch (error) {
      caption.textContent = say("The figure could not be drawn: {error}", {
        error: error.message || error,
      });
    }
  }

  function setButtons() {
    for (const panel of panels) {
      const run = panel.querySelector(".rl-runner-run");
      const stop = panel.querySelector(".rl-runner-stop");
      if (run) {
        run.disabled = Boolean(state.busy); // pressed while Python starts, it waits for it
        stop.hidden = !(state.busy && state.busy.panel === panel);
      }
    }
  }

  function finishRun(panel, outcome) {
    if (state.busy) {
      clearTimeout(state.busy.timer);
    }
    state.busy = null;
    saveTable(outcome);
    const stopHadFocus = document.activeElement === panel.querySelector(".rl-runner-stop");
    setButtons();
    if (stopHadFocus) {
      panel.querySelector(".rl-runner-run").focus(); // a keyboard user stays in the panel
    }
    panel.dataset.runs = String(Number(panel.dataset.runs || 0) + 1);
  }

  // Output and chart of an earlier run, dimmed and labelled (runner.css) while a run is
  // going and after one was stopped or failed; an empty `why` marks them current again.
  function stale(view, why) {
    for (const box of [view.outputBox, view.chart]) {
      why ? box.setAttribute("data-stale", why) : box.removeAttribute("data-stale");
    }
  }

  function execute(panel, args, view) {
    if (state.busy || state.queued) {
      return;
    }
    if (state.phase !== "ready") {
      state.queued = () => execute(panel, args, view);
      startPython();
      setButtons();
      const status = state.status[0];
      const said = say("{status} The run starts as soon as Python is ready.", { status });
      setStatus(panel, said, "busy");
      return;
    }
    const started = performance.now();
    const id = state.nextId++;
    const limit = Number(root.dataset.rlRunLimitS || LIMIT_S);
    state.busy = {
      id,
      panel,
      timer: setTimeout(() => restart("limit", limit), limit * 1000),
    };
    const runHadFocus = document.activeElement === panel.querySelector(".rl-runner-run");
    setButtons();
    if (runHadFocus) {
      panel.querySelector(".rl-runner-stop").focus(); // Run is disabled: Enter now stops
    }
    saveTable("running");
    setStatus(panel, say("Running… (Stop ends the run)"), "busy");
    stale(view, say("Output of the previous run: a new run is going."));
    const request = JSON.stringify({
      kind: panel.dataset.kind,
      target: panel.dataset.target,
      args,
      table: state.table,
      chart: panel.dataset.chart === "1",
    });
    state.waiting.set(id, (message) => {
      const ms = performance.now() - started;
      panel.dataset.runMs = String(Math.round(ms));
      if (message.stopped) {
        finishRun(panel, "stopped");
        setStatus(panel, message.stopped, "error");
        stale(view, say("Output of an earlier run: the last run was stopped."));
        return;
      }
      if (message.error) {
        stale(view, say("Output of an earlier run: the last run failed."));
        finishRun(panel, "failed");
        setStatus(panel, say("The run failed inside the browser: {error}", message), "error");
        return;
      }
      const result = JSON.parse(message.result);
      stale(view, "");
      view.outputBox.hidden = false;
      render(panel, view.output, result.chunks);
      const seconds = (ms / 1000).toFixed(2);
      if (result.status === 0) {
        setStatus(panel, say("Ran in {seconds} s.", { seconds }), "done");
      } else {
        setStatus(
          panel,
          say("Stopped with exit status {status} ({seconds} s).", { ...result, seconds }),
          "error",
        );
      }
      finishRun(panel, result.status === 0 ? "ok" : "failed");
      drawCharts(panel, view.chart, result.charts);
    });
    worker.postMessage({ type: "run", id, request });
  }

  // ---- Python: started on first use, restarted by Stop --------------------------------
  function announce(text, kind) {
    state.status = [text, kind];
    for (const panel of panels) {
      if (!state.busy || state.busy.panel !== panel) {
        setStatus(panel, text, kind);
      }
    }
  }

  const version = `?v=${script.dataset.assets || ""}`;
  let worker = null;
  let startedAt = 0;

  // The service worker that keeps the runtime in Cache Storage (runner-sw.js at the
  // site's root). The worker is started once it controls the page, so that the worker's
  // fetches go through it too; a browser without one uses its HTTP cache.
  async function serviceWorker() {
    if (!("serviceWorker" in navigator) || !script.dataset.serviceWorker) {
      return;
    }
    try {
      const base = new URL(root.dataset.content_root || "./", location.href);
      await navigator.serviceWorker.register(new URL(script.dataset.serviceWorker, base), {
        scope: base.pathname,
      });
      if (!navigator.serviceWorker.controller) {
        await Promise.race([
          new Promise((resolve) =>
            navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }),
          ),
          new Promise((resolve) => setTimeout(resolve, 3000)),
        ]);
      }
    } catch {
      // no service worker (private mode, a policy): the HTTP cache does what it can
    }
  }

  function newWorker() {
    const next = new Worker(new URL(`runner-worker.mjs${version}`, here), { type: "module" });
    next.addEventListener("message", (event) => {
      if (next !== worker) {
        return;
      }
      const message = event.data;
      if (message.type === "ready") {
        state.phase = "ready";
        root.dataset.rlRunnerReadyMs = String(Math.round(performance.now()));
        root.dataset.rlRunnerStartMs = String(Math.round(performance.now() - startedAt));
        const started = message.phases.origin - performance.timeOrigin; // the worker's clock
        root.dataset.rlRunnerPhases = JSON.stringify({ worker: started, ...message.phases });
        announce(say("Ready: Python {python} runs in this page, offline.", message), "ready");
        setButtons();
        const queued = state.queued;
        state.queued = null;
        queued?.();
      } else if (message.type === "failed") {
        state.queued = null;
        announce(say("Python could not start in this browser: {message}", message), "error");
        setButtons();
      } else if (message.type === "result") {
        const done = state.waiting.get(message.id);
        state.waiting.delete(message.id);
        done?.(message);
      }
    });
    next.addEventListener("error", (event) => {
      if (next === worker) {
        const why = { message: event.message || say("error") };
        announce(say("Python could not start in this browser: {message}", why), "error");
      }
    });
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
    startedAt = performance.now();
    announce(text, "busy");
    await serviceWorker();
    worker = newWorker();
  }

  function startPython() {
    if (state.phase === "idle") {
      root.dataset.rlRunnerUsedMs = String(Math.round(performance.now()));
      boot(say("Starting Python in your browser…"));
    }
  }

  // Stop, or the time limit: end the worker (a loop in Python cannot be interrupted from
  // here), answer the run, and start a fresh Python for the next one.
  function restart(why, limit = LIMIT_S) {
    const busy = state.busy;
    if (!busy) {
      return;
    }
    worker.terminate();
    const message =
      why === "limit"
        ? say(
            "Stopped after {limit} s: the run did not finish (a loop that never ends?). " +
              "Python restarted; your table is kept.",
            { limit },
          )
        : say("Stopped. Python restarted; your table is kept.");
    const done = state.waiting.get(busy.id);
    state.waiting.clear();
    done?.({ stopped: message });
    boot(message).then(() => {
      for (const panel of panels) {
        if (panel === busy.panel) {
          continue;
        }
        setStatus(panel, ...state.status);
      }
    });
  }

  // ---- A table restored from the tab that last failed or was stopped: offered ---------
  function offer(saved) {
    const how = {
      failed: say("ended with an error"),
      stopped: say("was stopped"),
      running: say("never finished"),
    }[saved.outcome];
    for (const panel of panels) {
      const use = element("button", { type: "button", class: "rl-runner-restore" });
      const drop = element("button", { type: "button", class: "rl-runner-discard" });
      use.textContent = say("Use it");
      drop.textContent = say("Discard");
      const box = element(
        "div",
        { class: "rl-runner-offer", role: "group", "aria-label": say("Edited table from earlier") },
        [
        element("span", {
          text: say(
            "Your edited table from earlier in this tab {how} when it last ran, " +
              "so it is not loaded; the repository's table is.",
            { how },
          ),
        }),
          use,
          drop,
        ],
      );
      use.addEventListener("click", () => {
        setTable(saved.table, null);
        saveTable("edited");
        removeOffers();
      });
      drop.addEventListener("click", () => {
        sessionStorage.removeItem(STORE);
        removeOffers();
      });
      panel.querySelector(".rl-runner-controls").prepend(box);
    }
  }

  function removeOffers() {
    for (const box of document.querySelectorAll(".rl-runner-offer")) {
      box.remove();
    }
  }

  onDocument(() => {
    const source = document.querySelector("script.rl-runner-table");
    original = source ? JSON.parse(source.textContent) : "";
    const saved = savedTable();
    const doubtful = saved && ["failed", "stopped", "running"].includes(saved.outcome);
    state.table = saved && !doubtful ? saved.table : original;
    // The editor's bundle loads before this script (deferred, in order); without it (a
    // build without npm's packages, or the file failed to load) the plain textarea.
    const makeEditor = window.RLRunnerEditor ? window.RLRunnerEditor.create : textareaEditor;
    panels = Array.from(document.querySelectorAll(".rl-runner"));
    for (const panel of panels) {
      localize(panel);
      build(panel, makeEditor);
      setStatus(panel, ...state.status);
    }
    if (doubtful) {
      offer(saved);
    }
    showEdited();
    setButtons();
    root.dataset.rlRunnerBuilt = makeEditor === textareaEditor ? "textarea" : "codemirror";
  });
})();
