// window.RLRunnerEditor.create(parent, {doc, label, onChange, onRun}): CodeMirror 6 with
// runner.js's textarea interface (value, jumpTo, view); Tab moves on to the next control.
import { EditorView, basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";
import { syntaxHighlighting } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { classHighlighter } from "@lezer/highlight";

function create(parent, { doc, label, onChange, onRun }) {
  let quiet = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true) }]),
        basicSetup,
        python(),
        syntaxHighlighting(classHighlighter),
        // tabindex: axe-core then counts the scroller as reachable (no second Tab stop).
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !quiet) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      quiet = false;
    },
    // line: 0-based, scrolled to the editor's top; with focus, selected.
    jumpTo(line, focus = true) {
      const doc = view.state.doc;
      const at = doc.line(Math.min(Math.max(line + 1, 1), doc.lines));
      if (focus) {
        view.dispatch({ selection: { anchor: at.from, head: at.to } });
        view.focus();
        view.dom.scrollIntoView({ block: "nearest" });
      }
      view.requestMeasure({
        read: () => view.lineBlockAt(at.from).top,
        write: (top) => (view.scrollDOM.scrollTop = top),
      });
    },
  };
}

window.RLRunnerEditor = { create };
