// The Executions tab: a rule's execution log (GET /rules/<id>/executions/), newest first, with
// the API's filters (decision, outcome, UTC days, record) and a page at a time ("Load more").
import { call, RULES, type RuleSummary } from "./api";
import { field, h, replace, select } from "./dom";

interface Execution {
  id: number; rule_id: string; version: number; executed_by: string | null; executed_at: string;
  input_digest: string; record: { type: string; uuid: string } | null; as_of: string;
  decision: string | null; score: string | null; fired: string[]; error: string | null; duration_ms: number;
}

export interface LogContext {
  ruleId: string; who: (id: string | null) => string; when: (iso: string) => string;
  failed: (error: unknown) => void;
}

export function executionsPanel(context: LogContext): HTMLElement {
  const rule = h("select", {}, h("option", { value: context.ruleId }, "this rule"));
  const decision = select(["accept", "refer", "decline"], "any decision");
  const outcome = h("select", {}, h("option", { value: "" }, "any outcome"),
    h("option", { value: "false" }, "evaluated"), h("option", { value: "true" }, "failed"));
  const from = h("input", { type: "date" }), to = h("input", { type: "date" });
  const record = h("input", { type: "text", placeholder: "client or policy uuid", spellcheck: false, autocomplete: "off" });
  const body = h("tbody", {});
  const caption = h("caption", {}, "Executions");
  const more = h("button", { type: "button", id: "log-more", hidden: true }, "Load more");
  let cursor: string | null = null, asked = 0;

  call<{ items: RuleSummary[] }>("GET", `${RULES}/?limit=200`).then((page) => {
    replace(rule, page.items.map((r) => h("option", { value: r.id, selected: r.id === context.ruleId },
      `${r.title} (${r.name})`)));
  }).catch(context.failed);

  async function load(next: boolean): Promise<void> {
    const mine = ++asked;
    const params = new URLSearchParams({ limit: "25" });
    const filters: [string, string][] = [["decision", decision.value], ["failed", outcome.value],
      ["executed_from", from.value], ["executed_to", to.value], ["record_uuid", record.value.trim()]];
    for (const [name, value] of filters) if (value) params.set(name, value);
    if (next && cursor) params.set("cursor", cursor);
    try {
      const page = await call<{ items: Execution[]; next_cursor: string | null }>(
        "GET", `${RULES}/${rule.value}/executions/?${params}`);
      if (mine !== asked) return;
      if (!next) body.replaceChildren();
      for (const e of page.items) body.append(row(e, context));
      cursor = page.next_cursor;
      more.hidden = !cursor;
      const shown = body.querySelectorAll("tr[data-id]").length;
      caption.textContent = shown ? `Executions, newest first (${shown} shown${cursor ? ", more below" : ""})`
        : "Executions";
      if (!shown) body.append(h("tr", {}, h("td", { colspan: 9, class: "empty" }, "No executions match.")));
    } catch (e) { context.failed(e); }
  }
  more.addEventListener("click", () => load(true));
  const form = h("form", { id: "log-filters", class: "filters", role: "search", "aria-label": "Execution log filters",
    onsubmit: (event: Event) => { event.preventDefault(); load(false); } },
    field("Ruleset", rule, "log-rule"), field("Decision", decision, "log-decision"),
    field("Outcome", outcome, "log-outcome"), field("From (UTC day)", from, "log-from"),
    field("To (UTC day)", to, "log-to"), field("Record", record, "log-record"),
    h("button", { type: "submit", id: "log-apply" }, "Show"));
  rule.addEventListener("change", () => load(false));
  load(false);
  return h("div", {}, h("p", { class: "help" },
    "Every execution of a published version, failed ones included; inputs are kept only as a digest."),
    form, h("table", { id: "executions", class: "grid" }, caption,
      h("thead", {}, h("tr", {}, ["#", "Executed", "By", "Version", "Decision", "Score", "Fired", "Record", "Time"]
        .map((c) => h("th", { scope: "col" }, c)))), body), more);
}

function row(e: Execution, context: LogContext): HTMLElement {
  return h("tr", { "data-id": String(e.id), class: e.error ? "error" : "" },
    h("th", { scope: "row" }, String(e.id)), h("td", {}, context.when(e.executed_at)),
    h("td", {}, context.who(e.executed_by)), h("td", {}, `v${e.version}`),
    h("td", {}, e.error ? `failed: ${e.error}` : e.decision ?? ""), h("td", {}, e.score ?? ""),
    h("td", {}, e.fired.join(", ")),
    h("td", {}, e.record ? `${e.record.type} ${e.record.uuid}` : h("span", { class: "muted", title: e.input_digest }, "inputs")),
    h("td", {}, `${e.duration_ms.toFixed(2)} ms`));
}
