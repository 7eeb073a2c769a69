// The "Bindings & runs" tab: the rule at work (docs/rules-at-work.md). Its bindings
// (GET /api/rules/bindings/, narrowed to the rule) with create, pause/resume and delete for
// admins; its book runs (GET /api/rules/runs/?rule_id=) with start, cancel and the chosen run's
// live progress, read again every second while it is queued or running, and, once finished,
// its summary and (for a dry run of another version than the published one) its impact; the
// failed records of a binding or a finished run, each retried by an admin (./failures).
import { call, RULES, type RuleInfo } from "./api";
import { field, h, replace, select } from "./dom";
import { failuresSection } from "./failures";
import { impactTable } from "./results";
import { show } from "./trace";

const RECORD_TYPES = ["client", "policy", "claim", "uw_submission"];
const BINDINGS = "/api/rules/bindings/";
const RUNS = "/api/rules/runs/";
const POLL_MS = 1000;

interface Binding {
  id: string; rule_id: string; record_type: string; on: string[]; where: string | null;
  status: "active" | "paused"; evaluated: number; effects: number; errors: number;
  last_error: string | null; last_evaluated_at: string | null;
}
interface Progress {
  total: number | null; done: number; matched: number; errors: number; effects: number;
  rate: number | null; eta_seconds: number | null; percent: number | null;
}
interface Run {
  id: string; version: number; baseline_version: number | null; record_type: string; where: string | null;
  mode: "dry_run" | "apply"; status: string; created_by: string | null; created_at: string;
  finished_at: string | null; cancel_requested: boolean; progress: Progress;
  summary: any | null; impact: any | null; error: string | null;
}

export interface AtWorkContext {
  rule: RuleInfo; canWrite: boolean; who: (id: string | null) => string; when: (iso: string) => string;
  say: (text: string, error?: boolean) => void; failed: (error: unknown) => void;
}

const running = (run: Run) => run.status === "queued" || run.status === "running";
const modeName = (mode: string) => (mode === "apply" ? "apply" : "dry run");
let timer: number | undefined;  // the one poll of the page: a new panel stops the old one

function seconds(value: number): string {
  if (value < 60) return `${Math.ceil(value)} s`;
  const minutes = Math.floor(value / 60);
  return minutes < 60 ? `${minutes} min ${Math.round(value % 60)} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function progressText(run: Run): string {
  const p = run.progress;
  const parts = [`Run ${run.status}`, `${p.done} of ${p.total ?? "?"} records` +
    (p.percent !== null ? ` (${Math.floor(p.percent)}%)` : "")];
  if (p.rate !== null) parts.push(`${show(Math.round(p.rate * 10) / 10)} records/s`);
  if (running(run) && p.eta_seconds !== null) parts.push(`about ${seconds(p.eta_seconds)} left`);
  if (p.errors) parts.push(`${p.errors} failed`);
  if (run.mode === "apply") parts.push(`${p.effects} effects written`);
  if (run.cancel_requested && running(run)) parts.push("cancelling");
  return parts.join(" · ") + ".";
}

export function atWorkPanel(context: AtWorkContext): HTMLElement {
  window.clearTimeout(timer);
  const rule = context.rule, write = !context.canWrite;
  const published = rule.published_version;
  const bindingBody = h("tbody", {});
  const runBody = h("tbody", {});
  const detail = h("section", { id: "run-detail", "aria-labelledby": "run-detail-title", hidden: true });
  const bindingFailures = h("div", { id: "binding-failures" });
  let chosen: string | null = null;

  // --- bindings ---------------------------------------------------------------------------
  const bindType = select(RECORD_TYPES);
  const onCreated = h("input", { type: "checkbox", checked: true });
  const onUpdated = h("input", { type: "checkbox", checked: true });
  const bindWhere = h("input", { type: "text", placeholder: 'e.g. policy.premium > 5000', spellcheck: false,
    autocomplete: "off", maxlength: 2000 });
  const events = h("fieldset", { class: "events" }, h("legend", {}, "On"),
    h("label", {}, onCreated, " created"), h("label", {}, onUpdated, " updated"));

  async function listBindings(): Promise<void> {
    try {
      const list = await call<{ items: Binding[] }>("GET", BINDINGS);
      const mine = list.items.filter((b) => b.rule_id === rule.id);
      replace(bindingBody, mine.length ? mine.map((b) => h("tr", { "data-id": b.id, class: b.status },
        h("th", { scope: "row" }, b.record_type), h("td", {}, b.on.join(", ")),
        h("td", {}, b.where ? h("code", {}, b.where) : "every record"),
        h("td", {}, b.status),
        h("td", {}, `${b.evaluated} evaluated, ${b.effects} effects, ${b.errors} errors` +
          (b.last_error ? ` (last: ${b.last_error})` : "")),
        h("td", {},
          h("button", { type: "button", disabled: write, "aria-label": `${b.status === "active" ? "Pause" : "Resume"} the ${b.record_type} binding`,
            onclick: () => bindingAction(b, b.status === "active" ? "pause" : "resume") },
            b.status === "active" ? "Pause" : "Resume"),
          h("button", { type: "button", disabled: write, "aria-label": `Delete the ${b.record_type} binding`,
            onclick: () => bindingAction(b, "delete") }, "Delete"),
          b.errors ? h("button", { type: "button", "aria-label": `Show the failed records of the ${b.record_type} binding`,
            onclick: () => showFailures(b) }, "Failures") : null)))
        : h("tr", {}, h("td", { colspan: 6 }, "No bindings: the rule runs on no record writes.")));
    } catch (e) { context.failed(e); }
  }
  function showFailures(b: Binding): void {
    replace(bindingFailures, failuresSection(`${BINDINGS}${b.id}/`,
      `Failed records of the ${b.record_type} binding`, context, listBindings));
  }
  async function bindingAction(b: Binding, action: "pause" | "resume" | "delete"): Promise<void> {
    if (action === "delete" && !confirm(`Delete the ${b.record_type} binding? The effects it wrote stay.`)) return;
    try {
      if (action === "delete") await call("DELETE", `${BINDINGS}${b.id}/`);
      else await call("POST", `${BINDINGS}${b.id}/${action}/`);
      context.say(action === "delete" ? `Deleted the ${b.record_type} binding.`
        : `${action === "pause" ? "Paused" : "Resumed"} the ${b.record_type} binding.`);
      await listBindings();
    } catch (e) { context.failed(e); }
  }
  async function bind(event: Event): Promise<void> {
    event.preventDefault();
    const on = [...(onCreated.checked ? ["created"] : []), ...(onUpdated.checked ? ["updated"] : [])];
    if (!on.length) { context.say("Choose created, updated or both.", true); return; }
    const where = bindWhere.value.trim();
    try {
      const made = await call<Binding>("POST", BINDINGS, { rule_id: rule.id, record_type: bindType.value, on,
        ...(where ? { where } : {}) });
      bindWhere.value = "";
      context.say(`Bound to ${made.record_type} records (${made.on.join(" and ")}).`);
      await listBindings();
    } catch (e) { context.failed(e); }
  }

  // --- runs -------------------------------------------------------------------------------
  const runType = select(RECORD_TYPES);
  const runWhere = h("input", { type: "text", placeholder: 'e.g. policy.status == "active"', spellcheck: false,
    autocomplete: "off", maxlength: 2000 });
  const runMode = h("select", {}, h("option", { value: "dry_run" }, "dry run (writes nothing)"),
    h("option", { value: "apply" }, "apply (writes tasks and scores)"));
  const runVersion = h("select", {}, Array.from({ length: rule.current_version }, (_, i) => rule.current_version - i)
    .map((n) => h("option", { value: n, selected: n === (published ?? rule.current_version) },
      `v${n}${n === published ? " (published)" : ""}`)));
  const progress = h("p", { id: "run-progress", role: "status", "aria-live": "polite" });
  const bar = h("progress", { id: "run-bar", max: 100, "aria-labelledby": "run-progress" });

  async function listRuns(): Promise<void> {
    try {
      const list = await call<{ items: Run[] }>("GET", `${RUNS}?rule_id=${rule.id}&limit=20`);
      replace(runBody, list.items.length ? list.items.map((r) => h("tr", { "data-id": r.id, "aria-current": r.id === chosen ? "true" : undefined },
        h("th", { scope: "row" }, context.when(r.created_at)), h("td", {}, `v${r.version}`),
        h("td", {}, modeName(r.mode)), h("td", {}, r.record_type), h("td", {}, r.where ? h("code", {}, r.where) : "every record"),
        h("td", {}, r.status), h("td", {}, `${r.progress.done} / ${r.progress.total ?? "?"}`),
        h("td", {}, h("button", { type: "button", onclick: () => follow(r.id) }, "Show"))))
        : h("tr", {}, h("td", { colspan: 8 }, "No book runs yet.")));
    } catch (e) { context.failed(e); }
  }
  async function start(event: Event): Promise<void> {
    event.preventDefault();
    const where = runWhere.value.trim();
    try {
      const run = await call<Run>("POST", `${RULES}/${rule.id}/runs/`, { record_type: runType.value,
        mode: runMode.value, version: Number(runVersion.value), ...(where ? { where } : {}) });
      context.say(`Started a ${modeName(run.mode)} of v${run.version} over the ${run.record_type} records.`);
      await follow(run.id);
    } catch (e) { context.failed(e); }
  }
  async function cancel(run: Run): Promise<void> {
    try {
      const answer = await call<Run>("POST", `${RUNS}${run.id}/cancel/`);
      context.say(answer.status === "cancelled" ? "The run is cancelled." : "Cancelling: the run stops at its next checkpoint.");
      await follow(run.id);
    } catch (e) { context.failed(e); }
  }
  async function follow(id: string): Promise<void> {
    window.clearTimeout(timer);
    chosen = id;
    let run: Run;
    try {
      run = await call<Run>("GET", `${RUNS}${id}/`);
    } catch (e) { context.failed(e); return; }
    if (chosen !== id) return;
    renderRun(run);
    if (running(run)) timer = window.setTimeout(() => { if (detail.isConnected) follow(id); }, POLL_MS);
    else await listRuns();
  }
  function renderRun(run: Run): void {
    detail.hidden = false;
    progress.textContent = progressText(run);
    if (run.progress.percent !== null) bar.value = run.progress.percent; else bar.removeAttribute("value");
    const done = !running(run);
    const name = modeName(run.mode);
    replace(detail, h("h4", { id: "run-detail-title" },
      `${name[0].toUpperCase()}${name.slice(1)} of v${run.version} over ${run.record_type} records` + (run.where ? ` where ${run.where}` : "")),
      progress, bar,
      running(run) ? h("button", { type: "button", id: "run-cancel", disabled: write || run.cancel_requested,
        onclick: () => cancel(run) }, "Cancel run") : null,
      run.error ? h("p", { class: "error" }, `The run failed: ${run.error}`) : null,
      done && run.summary ? runSummary(run) : null,
      done && run.progress.errors ? failuresSection(`${RUNS}${run.id}/`, "Failed records of this run",
        context, () => follow(run.id)) : null,
      done && run.impact ? impactTable(run.impact, [], run.baseline_version ?? run.version) : null,
      done && run.mode === "dry_run" && !run.impact
        ? h("p", { class: "help" }, "No impact: the run tried the published version itself (nothing would change against it).")
        : null);
  }

  listBindings();
  listRuns();
  return h("div", { id: "at-work" },
    h("section", { "aria-labelledby": "bindings-title" }, h("h3", { id: "bindings-title" }, "Bindings"),
      h("p", { class: "help" }, published
        ? `Each write of a bound record type runs the published version (now v${published}) within seconds.`
        : "Publish a version first: a binding runs the published version."),
      h("table", { id: "bindings", class: "grid" }, h("caption", {}, "Bindings of this rule"),
        h("thead", {}, h("tr", {}, ["Record type", "On", "Where", "Status", "Activity", ""].map((c) => h("th", { scope: "col" }, c)))),
        bindingBody),
      bindingFailures,
      h("form", { id: "bind-form", class: "filters", "aria-label": "New binding", onsubmit: bind },
        field("Record type", bindType, "bind-record-type"), events, field("Where (optional)", bindWhere, "bind-where"),
        h("button", { type: "submit", id: "bind", disabled: write || !published }, "Bind"))),
    h("section", { "aria-labelledby": "runs-title" }, h("h3", { id: "runs-title" }, "Book runs"),
      h("form", { id: "run-form", class: "filters", "aria-label": "New book run", onsubmit: start },
        field("Record type", runType, "run-record-type"), field("Version", runVersion, "run-version"),
        field("Mode", runMode, "run-mode"), field("Where (optional)", runWhere, "run-where"),
        h("button", { type: "submit", id: "run-start", disabled: write }, "Start run")),
      h("table", { id: "runs", class: "grid" }, h("caption", {}, "Book runs of this rule, newest first"),
        h("thead", {}, h("tr", {}, ["Asked", "Version", "Mode", "Records", "Where", "Status", "Done", ""].map((c) => h("th", { scope: "col" }, c)))),
        runBody),
      detail));
}

function runSummary(run: Run): HTMLElement {
  const s = run.summary;
  const decisions = Object.entries(s.decisions ?? {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const fired = (s.fired ?? []).filter((f: any) => f.count).map((f: any) => `${f.name} ${f.count}`).join(", ");
  return h("div", { id: "run-summary" },
    h("p", {}, `${s.evaluated ?? run.progress.done} records evaluated: ${decisions || "no decisions"}.` +
      (fired ? ` Fired: ${fired}.` : "") + (run.mode === "apply" ? ` ${run.progress.effects} effects written.` : "") +
      (run.progress.errors ? ` ${run.progress.errors} failed (listed below).` : "")));
}
