// Simulation and comparison results as tables: cases in, decisions, reasons and transitions out.
import { $, h, replace } from "./dom";
import { plain, show, traceTree } from "./trace";

/** JSON Lines: one case per non-empty line; a line that is not JSON is named in the error. */
export function parseCases(text: string): any[] {
  return text.split("\n").map((line, i) => [line.trim(), i + 1] as const).filter(([l]) => l && !l.startsWith("//"))
    .map(([line, number]) => {
      try { return JSON.parse(line); } catch { throw new Error(`Case line ${number} is not JSON.`); }
    });
}

export function summary(answer: any): HTMLElement {
  const s = answer.summary, x = answer.expectations;
  const decisions = Object.entries(s.decisions ?? {}).map(([k, v]) => `${k} ${v}`).join(", ");
  return h("p", { id: "simulation-summary" }, `${s.cases} cases, ${s.evaluated} evaluated: ${decisions || "no decisions"}.` +
    (x.checked ? ` Expectations: ${x.met} of ${x.checked} met.` : ""));
}

export function resultsTable(results: any[]): HTMLElement {
  const head = ["Case", "Decision", "Score", "Reasons", "Fired", "Expectation", "Explanation"];
  return h("table", { id: "results", class: "grid" }, h("caption", {}, "Results"),
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, results.map((r, i) => {
      const result = r.result ?? {};
      const expect = r.expect ? (r.expect.met ? "met" : `not met: ${JSON.stringify(r.expect.mismatches)}`) : "";
      return h("tr", { class: r.error ? "error" : "" },
        h("th", { scope: "row" }, plain(r.id)),
        h("td", {}, r.error ? `error ${r.error.code}: ${r.error.message}` : result.decision),
        h("td", {}, result.score === undefined ? "" : show(result.score)),
        h("td", {}, (result.reasons ?? []).join("; ")), h("td", {}, (result.fired ?? []).join(", ")),
        h("td", {}, expect),
        h("td", {}, result.trace ? h("button", { type: "button", class: "explain",
          onclick: () => replace($("#trace"), h("h3", {}, `Explanation of case ${plain(r.id)}`), traceTree(result.trace)) },
          `Explain ${plain(r.id)}`) : ""));
    })));
}

export function impactTable(impact: any, results: any[], version: number): HTMLElement {
  const byId = new Map(results.map((r) => [show(r.id), r]));
  const moved = impact.transitions.filter((t: any) => t.from !== t.to);
  const scores = impact.scores ?? {};
  const changedRules = (impact.rules ?? []).filter((r: any) => r.delta !== 0);
  return h("div", {},
    h("p", { id: "impact-summary" }, `Against version ${version}: ${impact.decisions_changed} of ${impact.cases} decisions change; ` +
      `${scores.changed ?? 0} scores change (mean shift ${show(scores.mean_delta ?? 0)}).`),
    h("table", { id: "impact", class: "grid" }, h("caption", {}, "Decision transitions"),
      h("thead", {}, h("tr", {}, ["From", "To", "Cases", "Which"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, impact.transitions.map((t: any) => h("tr", { class: t.from === t.to ? "same" : "moved" },
        h("td", {}, t.from), h("td", {}, t.to), h("td", {}, String(t.count)),
        h("td", {}, t.examples.map((id: unknown) => {
          const r = byId.get(show(id));
          return h("span", { class: "case" }, plain(id), r?.result ? ` (reasons: ${(r.result.reasons ?? []).join("; ") || "none"})` : "");
        }), t.count > t.examples.length ? ` … and ${t.count - t.examples.length} more` : ""))))),
    moved.length ? null : h("p", {}, "No decision changes."),
    changedRules.length ? h("p", { id: "impact-rules" }, "Rules firing differently: " +
      changedRules.map((r: any) => `${r.name} ${r.old} → ${r.new}`).join(", ")) : null);
}
