// The rule studio page: login, the rules list, and one rule's editor with its tests,
// simulation, comparison, history and (for appetites) the business try-out.
import { ApiError, call, RULES, type Diagnostic, type Profile, type RuleInfo, type RuleSummary,
         type VersionInfo } from "./api";
import { $, append, field, h, replace, select } from "./dom";
import { createEditor, type SourceEditor } from "./editor";
import { appetitePanel } from "./appetite";
import { impactTable, parseCases, resultsTable, summary } from "./results";
import { sourceDiff } from "./trace";
import { approvalsPanel } from "./approvals";
import { caseSetControls, casesEdited, chosenCaseSet } from "./casesets";
import { executionsPanel } from "./executions";
import { atWorkPanel } from "./atwork";

const KINDS = ["appetite", "triage", "underwriting", "pricing", "other"];
const STATUSES = ["draft", "published", "archived"];
const NEW_RULE = `ruleset my.rules "My rules"
input claim: Any
default decision accept

rule big "Big claim"
when claim.amount > 10000
then
    refer "Amount {claim.amount} is large"
end

test "a small claim is accepted"
given claim = {"amount": 50}
expect decision == "accept"
end
`;

const state: {
  profile: Profile | null; rule: RuleInfo | null; editor: SourceEditor | null;
  members: Map<string, string>; results: any[];
} = { profile: null, rule: null, editor: null, members: new Map(), results: [] };

const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? "";
const canWrite = () => ["owner", "admin"].includes(state.profile?.active_workspace?.role ?? "");
const who = (id: string | null) => (id && state.members.get(id)) || id || "unknown";
const when = (iso: string) => new Date(iso).toLocaleString();

function say(text: string, error = false): void {
  const box = $("#message");
  box.className = error ? "message error" : "message";
  box.setAttribute("role", error ? "alert" : "status");
  box.textContent = text;
}

function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) { showLogin(); return; }
  say(error instanceof Error ? error.message : String(error), true);
}

// --- login -------------------------------------------------------------------------------------

function showLogin(): void {
  const email = h("input", { type: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", autocomplete: "current-password", required: true });
  const error = h("p", { id: "login-error", role: "alert", class: "error" });
  const form = h("form", { id: "login", class: "login", "aria-labelledby": "login-title",
    onsubmit: async (event: Event) => {
      event.preventDefault();
      try {
        await call("POST", "/api/auth/login/", { email: email.value, password: password.value });
        await start();
      } catch (e) { error.textContent = e instanceof Error ? e.message : String(e); }
    } },
    h("h1", { id: "login-title" }, "Rule studio: log in"),
    field("E-mail", email, "login-email"), field("Password", password, "login-password"),
    h("button", { type: "submit" }, "Log in"), error);
  replace($("#app"), h("main", { id: "main" }, form));
  email.focus();
}

// --- the workspace -----------------------------------------------------------------------------

async function start(): Promise<void> {
  try {
    state.profile = await call<Profile>("GET", "/api/auth/profile/");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) { showLogin(); return; }
    throw e;
  }
  call<{ members: { id: string; name: string }[] }>("GET", "/api/team/members/")
    .then((list) => list.members.forEach((m) => state.members.set(m.id, m.name)))
    .catch(() => undefined);
  const profile = state.profile;
  const header = h("header", { class: "top" }, h("h1", {}, "Rule studio"),
    h("span", { id: "who" }, `${profile.user.name} · ${profile.active_workspace?.name ?? "no workspace"}` +
      ` (${profile.active_workspace?.role ?? "-"})`),
    h("button", { type: "button", onclick: async () => {
      await call("POST", "/api/auth/logout/").catch(() => undefined); showLogin();
    } }, "Log out"));
  const kind = select(KINDS, "any kind"), status = select(STATUSES, "any status");
  const text = h("input", { type: "search", placeholder: "name, title or source" });
  const filters = h("form", { class: "filters", role: "search", onsubmit: (e: Event) => {
    e.preventDefault(); listRules();
  } }, field("Kind", kind, "filter-kind"), field("Status", status, "filter-status"),
    field("Search", text, "filter-text"), h("button", { type: "submit" }, "Filter"));
  kind.addEventListener("change", listRules);
  status.addEventListener("change", listRules);
  const aside = h("nav", { class: "side", "aria-label": "Rules" }, h("h2", {}, "Rules"), filters,
    h("button", { type: "button", id: "new-rule", disabled: !canWrite(), onclick: newRule }, "New rule"),
    h("ul", { id: "rule-list", class: "rule-list" }));
  replace($("#app"), header, h("div", { class: "layout" }, aside,
    h("main", { id: "main", tabindex: "-1" }, h("p", { class: "empty" }, "Open a rule or create a new one."))));
  await listRules();
}

let listing = 0;  // the latest list request: an older answer arriving later is dropped

async function listRules(): Promise<void> {
  const mine = ++listing;
  const params = new URLSearchParams();
  for (const [key, id] of [["kind", "#filter-kind"], ["status", "#filter-status"], ["text", "#filter-text"]]) {
    const value = $<HTMLInputElement>(id).value.trim();
    if (value) params.set(key, value);
  }
  params.set("limit", "200");
  try {
    const page = await call<{ items: RuleSummary[] }>("GET", `${RULES}/?${params}`);
    if (mine !== listing) return;
    replace($("#rule-list"), page.items.length ? page.items.map((rule) => h("li", {},
      h("button", { type: "button", class: "rule-link", "aria-current": state.rule?.id === rule.id ? "true" : undefined,
        onclick: () => openRule(rule.id) },
        h("span", { class: "rule-title" }, rule.title),
        h("span", { class: "meta" }, `${rule.name} · ${rule.kind} · ${rule.status} · v${rule.current_version}`))))
      : h("li", { class: "empty" }, "No rules match."));
  } catch (e) { failed(e); }
}

async function openRule(id: string, version?: number): Promise<void> {
  try {
    const query = version ? `?version=${version}` : "";
    state.rule = await call<RuleInfo>("GET", `${RULES}/${id}/${query}`);
    renderRule();
    state.editor!.load(state.rule.version.source);
    listRules();
  } catch (e) { failed(e); }
}

function newRule(): void {
  state.rule = null;
  renderRule();
  state.editor!.load(NEW_RULE);
}

// --- one rule ----------------------------------------------------------------------------------

function renderRule(): void {
  const rule = state.rule;
  const title = h("input", { type: "text", value: rule?.title ?? "" });
  const kind = select(KINDS);
  kind.value = rule?.kind ?? "triage";
  const write = canWrite() && rule?.status !== "archived";
  const shown = rule?.version.number;
  const heading = rule ? `${rule.title} (${rule.name})` : "New rule";
  const badge = rule ? `${rule.status} · current v${rule.current_version}` +
    (rule.published_version ? ` · published v${rule.published_version}` : "") +
    (shown !== rule.current_version ? ` · showing v${shown}` : "") : "not saved yet";
  const editorBox = h("div", { id: "editor", class: "editor" });
  const tabs = tabsFor(kind.value);
  replace($("#main"),
    h("h2", { id: "rule-heading" }, heading), h("p", { id: "rule-status", class: "badge" }, badge),
    h("div", { class: "rule-fields" }, field("Title", title, "rule-title"), field("Kind", kind, "rule-kind")),
    h("div", { class: "toolbar", role: "toolbar", "aria-label": "Rule actions" },
      h("button", { type: "button", id: "save", disabled: !write, onclick: () => save(title.value, kind.value) },
        rule ? "Save new version (runs tests)" : "Create (runs tests)"),
      h("button", { type: "button", id: "publish", disabled: !write || !rule || shown === rule.published_version,
        onclick: () => publish(shown!) }, shown ? `Publish v${shown}` : "Publish"),
      h("button", { type: "button", id: "withdraw", disabled: !write || !rule?.published_version,
        onclick: () => patch({ status: "draft" }, "Publication withdrawn.") }, "Withdraw"),
      h("button", { type: "button", id: "archive", disabled: !write || !rule, onclick: archive }, "Archive")),
    h("p", { id: "unsaved", class: "unsaved", hidden: true }, "Unsaved changes: the editor differs from the version shown."),
    h("div", { id: "message", class: "message", role: "status", "aria-live": "polite" }),
    h("p", { id: "editor-help", class: "help" },
      "Problems are checked as you type. Completions appear as you type (Ctrl+Space asks); " +
      "arrow keys choose, Enter or Tab accepts, Escape closes. Press Tab to leave the editor; Ctrl+Z undoes."),
    h("p", { id: "editor-announce", class: "sr-only", "aria-live": "polite" }),
    editorBox,
    h("section", { "aria-labelledby": "problems-title", class: "problems" },
      h("h3", { id: "problems-title" }, "Problems"), h("ul", { id: "problems" })),
    tabList(tabs), h("div", { id: "panel", role: "tabpanel", tabindex: "0" }));
  state.editor = createEditor(editorBox, nonce, showProblems, (source) => {
    $("#unsaved").hidden = source === (state.rule?.version.source ?? "");
  }, (text) => { $("#editor-announce").textContent = text; });
  kind.addEventListener("change", () => { if (state.rule || kind.value === "appetite") renderTabsFor(kind.value); });
  selectTab("Tests");
}

function tabsFor(kind: string): string[] {
  return ["Tests", "Simulate", "Compare", "History", ...(state.rule ? ["Approvals", "Executions", "Bindings & runs"] : []),
          ...(kind === "appetite" ? ["Appetite"] : [])];
}

function renderTabsFor(kind: string): void {
  $("#tabs").replaceWith(tabList(tabsFor(kind)));
  selectTab("Tests");
}

function showProblems(diagnostics: Diagnostic[]): void {
  const list = $("#problems");
  if (!list) return;
  replace(list, diagnostics.length ? diagnostics.map((d) => h("li", { class: d.severity },
    h("button", { type: "button", class: "problem", onclick: () => state.editor!.jump(d) },
      h("span", { class: "where" }, `${d.line ?? "?"}:${d.column ?? "?"}`), " ",
      h("span", { class: "severity" }, d.severity), " ", h("code", {}, d.code), " ", d.message,
      d.hint ? h("span", { class: "hint" }, ` Hint: ${d.hint}`) : null)))
    : h("li", { class: "ok" }, "No problems."));
}

// --- tabs --------------------------------------------------------------------------------------

const PANELS: Record<string, () => HTMLElement> = {
  Tests: testsPanel, Simulate: simulatePanel, Compare: comparePanel, History: historyPanel,
  Appetite: () => appetitePanel(() => state.editor!.text(), failed),
  Approvals: () => approvalsPanel({
    rule: state.rule!, me: state.profile!.user.id, canWrite: canWrite(),
    isOwner: state.profile?.active_workspace?.role === "owner", who, when, failed, say,
    published: (message) => openRule(state.rule!.id).then(() => { selectTab("Approvals"); say(message); }),
  }),
  Executions: () => executionsPanel({ ruleId: state.rule!.id, who, when, failed }),
  "Bindings & runs": () => atWorkPanel({ rule: state.rule!, canWrite: canWrite(), who, when, say, failed }),
};

const tabId = (name: string) => name.toLowerCase().replace(/[^a-z]+/g, "-");

function tabList(names: string[]): HTMLElement {
  const list = h("div", { id: "tabs", role: "tablist", "aria-label": "Rule tools" },
    names.map((name) => h("button", { type: "button", role: "tab", id: `tab-${tabId(name)}`,
      "aria-controls": "panel", "aria-selected": "false", tabindex: "-1", onclick: () => selectTab(name) }, name)));
  list.addEventListener("keydown", (event: KeyboardEvent) => {  // arrows move between tabs
    const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    const at = tabs.indexOf(document.activeElement as HTMLButtonElement);
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (at < 0 || !step) return;
    const next = tabs[(at + step + tabs.length) % tabs.length];
    next.focus(); next.click(); event.preventDefault();
  });
  return list;
}

function selectTab(name: string): void {
  for (const tab of document.querySelectorAll<HTMLButtonElement>('[role="tab"]')) {
    const on = tab.textContent === name;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
  }
  const panel = $("#panel");
  panel.setAttribute("aria-labelledby", `tab-${tabId(name)}`);
  replace(panel, PANELS[name]());
}

function testsPanel(): HTMLElement {
  const version = state.rule?.version;
  if (!version) return h("p", {}, "Tests run when the rule is saved.");
  return h("div", {}, h("p", { id: "tests-summary" },
    `Version ${version.number}: ${version.tests.length - version.tests_failed} of ${version.tests.length} tests passed` +
    " (tests run each time a version is saved)."),
    h("ul", { id: "tests", class: "tests" }, version.tests.map((t) => h("li", { class: t.passed ? "pass" : "fail" },
      h("strong", {}, t.passed ? "PASS" : "FAIL"), ` ${t.description}`, t.line ? ` (line ${t.line})` : "",
      t.message ? h("div", { class: "test-values" }, t.message) : null))),
    version.warnings.length ? h("p", {}, `${version.warnings.length} warning(s) at save time.`) : null);
}

// --- saving and publishing ---------------------------------------------------------------------

async function save(title: string, kind: string): Promise<void> {
  const source = state.editor!.text();
  const rule = state.rule;
  try {
    if (!rule) {
      const made = await call<RuleInfo>("POST", `${RULES}/`, { source, kind, ...(title ? { title } : {}) });
      state.rule = made;
    } else {
      state.rule = await call<RuleInfo>("PATCH", `${RULES}/${rule.id}/`,
        { source, kind, ...(title && title !== rule.title ? { title } : {}) },
        { "If-Match": `"${rule.current_version}"` });
    }
    const version = state.rule!.version;
    renderRule();
    state.editor!.load(version.source);
    say(`Saved version ${version.number}: ${version.tests_passed ? "all tests pass" : `${version.tests_failed} test(s) fail`}.`);
    listRules();
  } catch (e) {
    if (e instanceof ApiError && e.code === "rule_invalid") {
      state.editor!.show(e.details as Diagnostic[]);
      say(`Not saved: ${e.details.filter((d) => d.severity === "error").length} error(s); see Problems.`, true);
    } else failed(e);
  }
}

async function patch(body: object, done: string): Promise<void> {
  try {
    state.rule = await call<RuleInfo>("PATCH", `${RULES}/${state.rule!.id}/`, body);
    const source = state.editor!.text();
    renderRule();
    state.editor!.load(source);
    say(done);
    listRules();
  } catch (e) {
    const version = (body as { published_version?: number }).published_version;
    if (e instanceof ApiError && e.code === "approval_required" && version) offerApproval(e.message, version);
    else failed(e);
  }
}

/** With four eyes on, publishing goes through an approval request another admin decides. */
function offerApproval(message: string, version: number): void {
  say(message, true);
  append($("#message"), " ", h("button", { type: "button", id: "request-approval", onclick: async () => {
    try {
      await call("POST", `${RULES}/${state.rule!.id}/approvals/`, { version });
      say(`Approval of version ${version} requested: another admin approves it, which publishes it.`);
    } catch (e) { failed(e); }
  } }, `Request approval of v${version}`));
}

const publish = (version: number) => patch({ published_version: version }, `Published version ${version}.`);

async function archive(): Promise<void> {
  if (!confirm("Archive this rule? It stays readable but can no longer change or run.")) return;
  try {
    await call("DELETE", `${RULES}/${state.rule!.id}/`);
    await openRule(state.rule!.id);
    say("Archived.");
  } catch (e) { failed(e); }
}

// --- simulate ----------------------------------------------------------------------------------

let casesText = "";

function casesBox(): HTMLElement {
  const area = h("textarea", { rows: 6, spellcheck: false, value: casesText,
    oninput: (e: Event) => { casesText = (e.target as HTMLTextAreaElement).value; casesEdited(); } });
  const file = h("input", { type: "file", accept: ".jsonl,.json,.txt,application/json",
    onchange: async () => {
      const chosen = file.files?.[0];
      if (chosen) { casesText = area.value = await chosen.text(); casesEdited(); }
    } });
  const recordType = select(["client", "policy"]);
  const recordUuid = h("input", { type: "text", placeholder: "uuid", spellcheck: false, autocomplete: "off" });
  const addRecord = h("button", { type: "button", id: "add-record", onclick: () => {
    const uuid = recordUuid.value.trim();
    if (!/^[0-9a-fA-F-]{32,36}$/.test(uuid)) { failed(new Error("Give the record's uuid.")); return; }
    const line = JSON.stringify({ id: `${recordType.value} ${uuid}`, record: { type: recordType.value, uuid } });
    casesText = area.value = (area.value.trim() ? area.value.replace(/\n*$/, "\n") : "") + line + "\n";
    casesEdited();
    recordUuid.value = "";
    say(`Added the ${recordType.value} as a case.`);
  } }, "Add as a case");
  return h("div", { class: "cases" },
    field('Cases, JSON Lines: one {"id", "inputs" or "record", "expect"?} per line', area, "cases"),
    field("Or upload a .jsonl file", file, "cases-file"),
    h("fieldset", { class: "record" }, h("legend", {}, "Or a tenant record (a client or policy of this workspace's database)"),
      field("Record type", recordType, "record-type"), field("Record uuid", recordUuid, "record-uuid"), addRecord),
    caseSetControls({ ruleId: state.rule?.id ?? null, canWrite: canWrite() && state.rule?.status !== "archived",
      text: () => casesText, setText: (text) => { casesText = area.value = text; }, say, failed }));
}

async function simulate(extra: object = {}): Promise<any> {
  const saved = chosenCaseSet(state.rule?.id ?? null, casesText);
  const cases = saved ? { case_set_id: saved } : { cases: parseCases(casesText) };
  if (!saved && !cases.cases!.length) throw new Error("Give at least one case.");
  return call<any>("POST", `${RULES}/simulate/`, { source: state.editor!.text(), ...cases, explain: true, ...extra });
}

function simulatePanel(): HTMLElement {
  const out = h("div", { id: "simulation" });
  return h("div", {}, casesBox(),
    h("button", { type: "button", id: "simulate", onclick: async () => {
      try {
        const answer = await simulate();
        state.results = answer.results;
        replace(out, summary(answer), resultsTable(answer.results), h("section", { id: "trace", "aria-live": "polite" }));
      } catch (e) { failed(e); }
    } }, "Simulate (the editor's source)"), out);
}

// --- compare -----------------------------------------------------------------------------------

function comparePanel(): HTMLElement {
  const rule = state.rule;
  if (!rule) return h("p", {}, "Save the rule first: comparing needs another version.");
  const versions = h("select", {}, Array.from({ length: rule.current_version }, (_, i) => rule.current_version - i)
    .map((n) => h("option", { value: String(n) }, `version ${n}${n === rule.published_version ? " (published)" : ""}`)));
  const out = h("div", { id: "comparison" });
  return h("div", {}, h("p", {}, "Compares the editor's source with another version on the cases below."),
    field("Compare with", versions, "compare-version"), casesBox(),
    h("button", { type: "button", id: "compare", onclick: async () => {
      try {
        const other = await call<RuleInfo>("GET", `${RULES}/${rule.id}/?version=${versions.value}`);
        const answer = await simulate({ baseline: { source: other.version.source } });
        replace(out, impactTable(answer.impact, answer.results, Number(versions.value)),
          sourceDiff(other.version.source, state.editor!.text()));
      } catch (e) { failed(e); }
    } }, "Compare"), out);
}

// --- history -----------------------------------------------------------------------------------

function historyPanel(): HTMLElement {
  const box = h("div", { id: "history" }, h("p", {}, "Loading…"));
  const rule = state.rule;
  if (!rule) return h("p", {}, "No versions yet.");
  Promise.all([call<{ versions: VersionInfo[] }>("GET", `${RULES}/${rule.id}/versions/`),
               call<{ events: any[] }>("GET", `${RULES}/${rule.id}/history/`)]).then(([list, history]) => {
    const write = canWrite() && rule.status !== "archived";
    replace(box, h("table", { id: "versions", class: "grid" }, h("caption", {}, "Versions"),
      h("thead", {}, h("tr", {}, ["Version", "Author", "Saved", "Tests", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, [...list.versions].reverse().map((v) => h("tr", {},
        h("th", { scope: "row" }, `v${v.number}${v.number === rule.published_version ? " (published)" : ""}`),
        h("td", {}, who(v.author_id)), h("td", {}, when(v.created_at)),
        h("td", {}, v.tests_passed ? "all pass" : `${v.tests_failed} failing`),
        h("td", {}, h("button", { type: "button", onclick: () => openRule(rule.id, v.number) }, `Open v${v.number}`),
          write && v.number !== rule.published_version && v.tests_passed
            ? h("button", { type: "button", onclick: () => publish(v.number) },
                rule.published_version && v.number < rule.published_version ? `Roll back to v${v.number}` : `Publish v${v.number}`)
            : null))))),
      h("h3", {}, "Publications"),
      h("ul", { id: "publications" }, history.events.length ? history.events.map((e) => h("li", {},
        `${when(e.at)}: ${who(e.actor_id)} ${e.action} ${e.version ? `v${e.version}` : ""}`)) : h("li", {}, "Never published.")));
  }).catch(failed);
  return box;
}

start().catch(failed);
