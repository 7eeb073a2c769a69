// One case's explanation as a readable tree: per rule or table whether it matched, its
// condition's sub-expressions nested by where they sit in the source, and the near misses.
import { diffLines } from "diff";
import { h } from "./dom";

interface Span { line: number; column: number; end_line: number; end_column: number }
interface Step { expr: string; kind: string; span: Span | null; value: unknown }

/** A case id or other label: strings as they are, anything else as JSON. */
export const plain = (value: unknown): string => typeof value === "string" ? value : show(value);

export function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? "null";
}

const inside = (a: Span, b: Span) =>  // a within b
  (a.line > b.line || (a.line === b.line && a.column >= b.column)) &&
  (a.end_line < b.end_line || (a.end_line === b.end_line && a.end_column <= b.end_column));

/** The condition's steps as a tree: each step under the smallest step whose span holds it. */
function stepTree(steps: Step[]): HTMLElement {
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  steps.forEach((step, i) => {
    let parent = -1;
    steps.forEach((other, j) => {
      if (j === i || !step.span || !other.span || !inside(step.span, other.span)) return;
      if (inside(other.span, step.span) && j < i) return;  // same span: the later one is the parent
      if (parent < 0 || inside(other.span, steps[parent].span!)) parent = j;
    });
    if (parent < 0) roots.push(i); else children.set(parent, [...(children.get(parent) ?? []), i]);
  });
  const node = (i: number): HTMLElement => h("li", {},
    h("code", {}, steps[i].expr), " = ", h("span", { class: "value" }, show(steps[i].value)),
    children.has(i) ? h("ul", {}, children.get(i)!.map(node)) : null);
  return h("ul", { class: "steps" }, roots.map(node));
}

function generic(value: unknown): HTMLElement | string {  // a table's rows and the like
  if (value === null || typeof value !== "object") return show(value);
  const entries = (Array.isArray(value) ? value.map((v, i) => [String(i + 1), v])
    : Object.entries(value)).filter(([key]) => key !== "span");
  return h("ul", {}, entries.map(([key, v]) => h("li", {}, h("span", { class: "key" }, key), ": ", generic(v))));
}

/** The trace as nested lists; each rule or table folds (all open when there are few). */
export function traceTree(trace: any[]): HTMLElement {
  const few = trace.length <= 6;
  return h("ul", { class: "trace", "aria-label": "Explanation" }, trace.map((entry) => {
    const matched = entry.matched === true;
    const label = `${entry.kind ?? "item"} ${entry.name ?? ""}${entry.title ? ` “${entry.title}”` : ""}`;
    const state = entry.skipped ? `skipped (${entry.skipped})` : matched ? "matched" : "did not match";
    const rest = Object.fromEntries(Object.entries(entry).filter(([k]) =>
      !["name", "kind", "title", "span", "matched", "skipped", "condition", "failed"].includes(k)));
    return h("li", { class: matched ? "matched" : "unmatched" }, h("details", { open: few || matched },
      h("summary", { class: "trace-head" }, label, " — ", h("strong", {}, state)),
      Array.isArray(entry.condition) && entry.condition.length
        ? h("div", {}, "Condition:", stepTree(entry.condition)) : null,
      Array.isArray(entry.failed) && entry.failed.length
        ? h("div", { class: "near-misses" }, "Near misses:",
            h("ul", {}, entry.failed.map((f: string) => h("li", {}, f)))) : null,
      Object.keys(rest).length ? generic(rest) : null));
  }));
}

/** A line diff of two sources: removed lines marked -, added +, with their line numbers. */
export function sourceDiff(before: string, after: string): HTMLElement {
  let oldLine = 1, newLine = 1;
  const rows: HTMLElement[] = [];
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    for (const line of lines) {
      const kind = part.added ? "added" : part.removed ? "removed" : "same";
      const mark = part.added ? "+" : part.removed ? "-" : " ";
      rows.push(h("tr", { class: kind },
        h("td", { class: "num" }, part.added ? "" : String(oldLine)),
        h("td", { class: "num" }, part.removed ? "" : String(newLine)),
        h("td", { class: "code" }, `${mark} ${line}`)));
      if (!part.added) oldLine++;
      if (!part.removed) newLine++;
    }
  }
  return h("table", { class: "diff", id: "source-diff" },
    h("caption", {}, "Source diff (- the other version, + this source)"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Old"), h("th", { scope: "col" }, "New"),
      h("th", { scope: "col" }, "Line"))),
    h("tbody", {}, rows));
}
