// Completion and hover in the source editor, from the language server's analysis served by
// POST /rules/complete/ and /rules/hover/ (the same core functions as `insureops rules lsp`).
// CodeMirror's autocompletion draws the popup (a listbox of options, the editor's textbox
// pointing at the active one with aria-activedescendant) and takes the keys: arrows, Enter,
// Escape, Ctrl-Space; Tab accepts too while the popup is open, and otherwise still leaves the
// editor. Requests wait for a pause in typing, go one at a time (a rules worker per request
// is a workspace's bounded share, and a request given up kills its worker), and an answer for
// a text that has changed since is dropped.
import { Prec, type Extension, type Text } from "@codemirror/state";
import { EditorView, hoverTooltip, keymap, type Tooltip } from "@codemirror/view";
import {
  acceptCompletion, autocompletion, completionKeymap, completionStatus,
  type Completion, type CompletionContext, type CompletionResult,
} from "@codemirror/autocomplete";
import { ApiError, call, RULES } from "./api";
import { h } from "./dom";

export const COMPLETE_DELAY_MS = 150;  // after the last key before asking
export const HOVER_DELAY_MS = 350;
const ACCEPT_DELAY_MS = 80;  // just past CodeMirror's interactionDelay (75 ms)
// A busy answer (429 workspace_busy, 503 service_busy) is asked again after 0.4, 0.8, 1.2,
// 1.6 s, then every 2 s, for about 20 s in all, while nothing newer waits.
const BUSY_RETRIES = 12;
const BUSY_PAUSE_MS = 400;
const BUSY_PAUSE_MAX_MS = 2000;

export interface Range { line: number; column: number; end_line: number; end_column: number }
export interface CompletionEntry {
  label: string; kind: string; detail: string; documentation: string; insert_text: string;
}
interface CompleteAnswer { items: CompletionEntry[]; range: Range; notice: string | null }
interface HoverAnswer { hover: (Range & { markdown: string }) | null; notice: string | null }

/** 1-based line and column in characters (code points), as the service counts them. */
export function position(doc: Text, pos: number): { line: number; column: number } {
  const line = doc.lineAt(pos);
  return { line: line.number, column: Array.from(line.text.slice(0, pos - line.from)).length + 1 };
}

/** The document offset of a 1-based line and column in code points (clamped to the line). */
export function offset(doc: Text, line: number, column: number): number {
  const at = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const points = Array.from(at.text).slice(0, Math.max(column - 1, 0));
  return Math.min(at.from + points.join("").length, at.to);
}

// CodeMirror's icon names for the analysis' kinds.
const TYPES: Record<string, string> = {
  field: "property", const: "constant", input: "variable", output: "property",
  function: "function", keyword: "keyword", type: "type", value: "enum", variable: "variable",
};

/** The analysis' markdown (fenced code, `inline code`, paragraphs), built as elements. */
export function markdown(text: string): HTMLElement {
  const box = h("div", { class: "assist-doc" });
  text.split(/```[a-z]*\n([\s\S]*?)\n```/).forEach((part, index) => {
    if (index % 2) { box.append(h("pre", {}, h("code", {}, part))); return; }
    for (const paragraph of part.split(/\n{2,}/).map((p) => p.trim()).filter(Boolean)) {
      box.append(h("p", {}, paragraph.split(/`([^`]*)`/).map((piece, i) => i % 2 ? h("code", {}, piece) : piece)));
    }
  });
  return box;
}

/** Requests one at a time, in order; of one kind's requests, one superseded by a newer while
 * it waited is not sent (null). */
function oneAtATime() {
  let running: Promise<unknown> = Promise.resolve();
  const newest = new Map<string, number>();
  return async <T>(kind: string, send: () => Promise<T>): Promise<T | null> => {
    const ticket = (newest.get(kind) ?? 0) + 1;
    newest.set(kind, ticket);
    const previous = running;
    let done!: () => void;
    running = new Promise<void>((resolve) => { done = resolve; });
    try {
      await previous;
      for (let attempt = 0; ticket === newest.get(kind); attempt++) {
        try {
          return await send();
        } catch (error) {
          // busy (the workspace's rules share is held, often by the check of the same text,
          // or the service's workers are all taken) asks again; over a budget (422) or
          // anything else: no popup, the next key asks again
          const busy = error instanceof ApiError && (error.status === 429 || error.status === 503);
          if (!busy || attempt >= BUSY_RETRIES) return null;
        }
        await pause(Math.min(BUSY_PAUSE_MS * (attempt + 1), BUSY_PAUSE_MAX_MS));
      }
      return null;
    } finally {
      done();
    }
  };
}

/** Tab accepts while the popup is open; otherwise it leaves the editor. (Within the popup's
 * first moments CodeMirror does not accept yet, so that an Enter meant as a line break is one:
 * a Tab then accepts once that delay is over.) */
function acceptWithTab(view: EditorView): boolean {
  if (completionStatus(view.state) !== "active") return false;
  if (!acceptCompletion(view)) setTimeout(() => acceptCompletion(view), ACCEPT_DELAY_MS);
  return true;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function completionOption(entry: CompletionEntry): Completion {
  return {
    label: entry.label, type: TYPES[entry.kind] ?? "text", detail: entry.detail || undefined,
    apply: entry.insert_text,
    info: entry.documentation ? () => markdown(entry.documentation) : undefined,
  };
}

/** The editor's completion, hover and the keys for them; `known()` is the text of the latest
 * check that parsed (the editor keeps it, waiting briefly for checks on their way), which
 * names the ruleset's inputs and consts while the text being typed does not parse. */
export function rulesAssist(known: () => Promise<string | null>,
                            announce: (text: string) => void): Extension {
  const send = oneAtATime();

  async function complete(context: CompletionContext): Promise<CompletionResult | null> {
    const before = context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos);
    if (!context.explicit && !/[\w.]/.test(before)) return null;
    if (!context.explicit) {
      await pause(COMPLETE_DELAY_MS);
      if (context.aborted) return null;
    }
    const doc = context.state.doc;
    const source = doc.toString();
    const answer = await send("complete", async () => {
      const earlier = await known();  // each attempt with the newest text that parsed
      return call<CompleteAnswer>("POST", `${RULES}/complete/`, {
        source, ...position(doc, context.pos),
        ...(earlier !== null && earlier !== source ? { known_source: earlier } : {}),
      });
    });
    if (answer === null || context.aborted || answer.items.length === 0) return null;
    return {
      from: offset(doc, answer.range.line, answer.range.column),
      options: answer.items.map(completionOption),
      validFor: /^\w*$/,
    };
  }

  async function hover(view: EditorView, pos: number): Promise<Tooltip | null> {
    const doc = view.state.doc;
    const answer = await send("hover", () => call<HoverAnswer>("POST", `${RULES}/hover/`, {
      source: doc.toString(), ...position(doc, pos),
    }));
    const found = answer?.hover;
    if (!found || view.state.doc !== doc) return null;  // no name there, or typed on meanwhile
    return {
      pos: offset(doc, found.line, found.column), end: offset(doc, found.end_line, found.end_column),
      above: true,
      create: () => ({ dom: h("div", { class: "assist-hover", role: "tooltip" }, markdown(found.markdown)) }),
    };
  }

  let open = false;
  const announcer = EditorView.updateListener.of((update) => {
    const now = completionStatus(update.state) === "active";
    if (now && !open) {
      announce("Completions open: arrow keys choose, Enter or Tab accepts, Escape closes.");
    }
    open = now;
  });

  return [
    autocompletion({ override: [complete], activateOnTypingDelay: 0, defaultKeymap: false, icons: true }),
    Prec.highest(keymap.of([{ key: "Tab", run: acceptWithTab }, ...completionKeymap])),
    hoverTooltip(hover, { hoverTime: HOVER_DELAY_MS }),
    announcer,
  ];
}
