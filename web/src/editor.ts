// The source editor: CodeMirror 6 with the rules language and the service's checker as linter
// (debounced POST /rules/check/), a squiggle per diagnostic with its message and hint on hover;
// completion and hover from the language server's analysis (assist.ts).
import { EditorState, Text } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, drawSelection, highlightActiveLine } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { forceLinting, linter, lintGutter, setDiagnostics, type Diagnostic as LintDiagnostic } from "@codemirror/lint";
import { call, RULES, type Diagnostic } from "./api";
import { h } from "./dom";
import { rulesLanguage, rulesHighlight } from "./language";
import { rulesAssist } from "./assist";

export const CHECK_DELAY_MS = 400;
const KNOWN_WAIT_MS = 2000;  // completion waits this long at most for a check on its way

/** The document range a diagnostic points at (lines and columns count from 1, end exclusive). */
export function range(doc: Text, d: Diagnostic): { from: number; to: number } {
  if (d.line === null) return { from: 0, to: Math.min(1, doc.length) };
  const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
  const from = Math.min(line.from + Math.max((d.column ?? 1) - 1, 0), line.to);
  let to = from;
  if (d.end_line !== null && d.end_column !== null && d.end_line <= doc.lines) {
    const end = doc.line(d.end_line);
    to = Math.min(end.from + d.end_column - 1, end.to);
  }
  if (to <= from) to = Math.min(from + 1, doc.length);
  return { from, to };
}

function lintDiagnostic(doc: Text, d: Diagnostic): LintDiagnostic {
  return {
    ...range(doc, d), severity: d.severity, source: d.code,
    message: d.message + (d.hint ? ` (${d.hint})` : ""),
    renderMessage: () => h("span", { class: "lint-message" },
      h("strong", {}, `${d.code} ${d.message}`),
      d.hint ? h("span", { class: "hint" }, `Hint: ${d.hint}`) : null),
  };
}

export interface SourceEditor {
  view: EditorView;
  text(): string;
  load(source: string): void;
  show(diagnostics: Diagnostic[]): void;
  jump(d: Diagnostic): void;
}

export function createEditor(parent: HTMLElement, nonce: string,
                             onDiagnostics: (diagnostics: Diagnostic[]) => void,
                             onChange: (source: string) => void = () => undefined,
                             announce: (text: string) => void = () => undefined): SourceEditor {
  // The text of the latest check that parsed: completion's names come from it. Checks run
  // side by side (a workspace has two rules jobs at once) and answer in any order, so an answer
  // replaces `known` only when its check started after the one that set it: otherwise a slow
  // check of the text loaded before (a new rule's example) would name the wrong inputs.
  let known: string | null = null;
  let knownCheck = 0;
  let checks = 0;  // started so far
  const inFlight = new Set<Promise<unknown>>();
  async function check(source: string): Promise<{ diagnostics: Diagnostic[] }> {
    const mine = ++checks;
    const report = await call<{ diagnostics: Diagnostic[]; outline: { name: string | null } }>(
      "POST", `${RULES}/check/`, { source });
    if (report.outline.name !== null && mine > knownCheck) { known = source; knownCheck = mine; }
    return report;
  }
  /** `known` once the checks already on their way have answered (at most KNOWN_WAIT_MS):
   * completion asks with the newest text that parsed, e.g. the one just pasted. */
  async function newestKnown(): Promise<string | null> {
    if (inFlight.size) {
      const waited = Promise.allSettled([...inFlight]);
      await Promise.race([waited, new Promise((resolve) => setTimeout(resolve, KNOWN_WAIT_MS))]);
    }
    return known;
  }
  const checker = linter(async (view) => {
    const source = view.state.doc.toString();
    if (!source.trim()) { onDiagnostics([]); return []; }
    const running = check(source);
    inFlight.add(running);
    try {
      const report = await running;
      if (view.state.doc.toString() !== source) return [];  // typed on meanwhile: next run
      onDiagnostics(report.diagnostics);
      return report.diagnostics.map((d) => lintDiagnostic(view.state.doc, d));
    } catch {
      return [];
    } finally {
      inFlight.delete(running);
    }
  }, { delay: CHECK_DELAY_MS });
  const view = new EditorView({
    parent,
    state: EditorState.create({ doc: "", extensions: [
      lineNumbers(), history(), drawSelection(), highlightActiveLine(), bracketMatching(),
      keymap.of([...defaultKeymap, ...historyKeymap]),  // Tab is left to move focus on
      rulesLanguage, syntaxHighlighting(rulesHighlight), checker, lintGutter(),
      rulesAssist(newestKnown, announce),
      EditorView.cspNonce.of(nonce),
      EditorView.updateListener.of((update) => { if (update.docChanged) onChange(update.state.doc.toString()); }),
      EditorView.contentAttributes.of({ "aria-label": "Ruleset source", "aria-describedby": "editor-help" }),
    ] }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    load(source: string) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: source } });
      forceLinting(view);  // check a loaded source at once, not after the typing delay
    },
    show(diagnostics: Diagnostic[]) {
      view.dispatch(setDiagnostics(view.state, diagnostics.map((d) => lintDiagnostic(view.state.doc, d))));
      onDiagnostics(diagnostics);
    },
    jump(d: Diagnostic) {
      const { from, to } = range(view.state.doc, d);
      view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
      view.focus();
    },
  };
}
