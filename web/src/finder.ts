// The carrier finder page for agents (/finder/): describe a business or scan its website
// (classify and scan pre-fill the form), find carriers, answer the questions the market asks,
// read the carriers ranked with their reasons, strength, access and where to submit, save the
// business as a client (the tenant API) and start a submission to a chosen product: a
// uw_submission record in the workspace's own database (the session's), with the text, the
// carrier's e-mail and its portal.
// Keyboard and screen reader: labelled controls, landmarks, one polite live region for
// progress and one alert region for errors; results are headings a reader can jump between.
import { ApiError, call, type Profile } from "./api";
import { $, field, h, replace } from "./dom";

const FINDER = "/api/v1/carrier_finder";
const LINES = ["BOP", "CGL", "GARAG", "LIQUR", "WORK", "AUTOB", "PROPC", "EO", "CYBER", "UMBRC",
               "EPLI", "INMRC", "DO", "CRIM"];
const CONSTRUCTION = ["frame", "joisted_masonry", "non_combustible", "masonry_non_combustible",
                      "modified_fire_resistive", "fire_resistive"];
const YES_NO = new Set(["operations.open_past_midnight", "operations.live_entertainment",
  "operations.delivery", "fleet.hazmat", "fleet.for_hire", "property.sprinklered",
  "property.vacant", "cyber.mfa", "cyber.backups", "cyber.payment_cards", "cyber.prior_incident"]);
const TEXT = new Set(["fleet.dot_number", "naics", "state"]);

interface Question { field: string; text: string; products: string[] }
interface ProductAnswer {
  id: string; name: string; line: string; line_name: string; decision: string; score: number;
  strength: string | null; minimum_premium: string; max_limit: string; reasons: string[];
  questions: string[]; notes: string[]; access: string | null; quote_url: string | null;
}
interface CarrierAnswer {
  id: string; name: string; rating: string; kind: string; decision: string;
  access: string | null; underwriter: string | null; submit: string | null;
  quote_url: string | null; guide: string | null; products: ProductAnswer[];
}
interface MatchResponse {
  carriers: CarrierAnswer[]; questions: Question[]; warnings: string[];
  considered: number; pruned: number;
}

interface Submission {
  id: string; client_id: string | null; lob: string | null; created_at: string;
}
interface SubmissionCreated {
  submission: Submission; client: { id: string; name: string } | null;
}

const state: { profile: Profile | null; answers: Record<string, unknown>;
               last: MatchResponse | null; business: Record<string, unknown> | null;
               clientId: string | null } =
  { profile: null, answers: {}, last: null, business: null, clientId: null };

const DECISION = { accept: "Accepts", refer: "Refers to an underwriter", decline: "Declines" } as
  Record<string, string>;

function say(text: string): void {
  $("#error").textContent = "";
  $("#status").textContent = text;
}

function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) { showLogin(); return; }
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && error.details.length) {
    text += " " + error.details.map((d: any) => `${d.field}: ${d.message}`).join("; ");
  }
  $("#status").textContent = "";
  $("#error").textContent = text;
}

// --- login -------------------------------------------------------------------------------------

function showLogin(): void {
  const email = h("input", { type: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", autocomplete: "current-password", required: true });
  const form = h("form", { id: "login", class: "login", "aria-labelledby": "login-title",
    onsubmit: async (event: Event) => {
      event.preventDefault();
      try {
        await call("POST", "/api/auth/login/", { email: email.value, password: password.value });
        await start();
      } catch (error) { failed(error); }
    } },
    h("h1", { id: "login-title" }, "Carrier finder: log in"),
    field("E-mail", email, "login-email"), field("Password", password, "login-password"),
    h("button", { type: "submit" }, "Log in"));
  replace($("#app"), h("main", { id: "main" }, form, regions()));
  email.focus();
}

function regions(): HTMLElement[] {
  return [h("p", { id: "status", class: "message", role: "status", "aria-live": "polite" }),
          h("p", { id: "error", class: "message error", role: "alert" })];
}

// --- the page ----------------------------------------------------------------------------------

async function start(): Promise<void> {
  try {
    state.profile = await call<Profile>("GET", "/api/auth/profile/");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) { showLogin(); return; }
    throw error;
  }
  const profile = state.profile;
  replace($("#app"),
    h("header", { class: "top" },
      h("h1", {}, "Carrier finder"),
      h("span", { id: "who" }, `${profile.user.name} · ${profile.active_workspace?.name ?? "no workspace"}`),
      h("button", { type: "button", onclick: async () => {
        await call("POST", "/api/auth/logout/").catch(() => undefined); showLogin();
      } }, "Log out")),
    h("main", { id: "main", class: "finder" },
      regions(),
      describeSection(),
      h("section", { id: "questions", "aria-labelledby": "questions-title", hidden: true }),
      h("section", { id: "results", "aria-labelledby": "results-title", hidden: true }),
      h("section", { id: "save", "aria-labelledby": "save-title", hidden: true })));
  ($("#business-description") as HTMLTextAreaElement).focus();
}

function input(id: string, attrs: Record<string, string | boolean> = {}): HTMLInputElement {
  return h("input", { id, ...attrs });
}

function describeSection(): HTMLElement {
  const lines = h("fieldset", { id: "business-lines", class: "lines" },
    h("legend", {}, "Lines of business (none: every line)"),
    LINES.map((code) => h("label", { class: "check" },
      h("input", { type: "checkbox", value: code, name: "line" }), ` ${code}`)));
  const candidates = h("div", { id: "classification", class: "candidates", role: "group",
                                "aria-label": "Suggested NAICS classes" });
  const form = h("form", { id: "describe", "aria-labelledby": "describe-title",
    onsubmit: (event: Event) => { event.preventDefault(); find(); } },
    h("h2", { id: "describe-title" }, "1. Describe the business"),
    h("div", { class: "row" },
      field("Website", input("business-website-input", { type: "url", placeholder: "https://..." }),
            "business-website"),
      h("button", { type: "button", id: "scan", onclick: scan }, "Scan the website")),
    field("What the business does", h("textarea", { rows: 3 }), "business-description"),
    h("button", { type: "button", id: "classify", onclick: classify }, "Suggest a class"),
    candidates,
    h("div", { class: "row" },
      field("Name", input("x"), "business-name"),
      field("NAICS code", input("x", { inputmode: "numeric", autocomplete: "off" }), "business-naics"),
      field("State (code or name)", input("x"), "business-state")),
    h("div", { class: "row" },
      field("Annual revenue ($)", input("x", { inputmode: "decimal" }), "business-revenue"),
      field("Payroll ($)", input("x", { inputmode: "decimal" }), "business-payroll"),
      field("Employees", input("x", { inputmode: "numeric" }), "business-employees"),
      field("Years in business", input("x", { inputmode: "decimal" }), "business-years"),
      field("Requested limit ($)", input("x", { inputmode: "decimal" }), "business-limit")),
    lines,
    h("button", { type: "submit", id: "find" }, "Find carriers"));
  return h("section", { id: "describe-section" }, form);
}

const value = (id: string) => ($(`#${id}`) as HTMLInputElement).value.trim();
const setValue = (id: string, text: unknown) => {
  if (text !== null && text !== undefined && text !== "") ($(`#${id}`) as HTMLInputElement).value = String(text);
};

function amount(id: string): number | string | undefined {
  const text = value(id);
  if (!text) return undefined;
  const number = Number(text.replace(/[$,_\s]/g, ""));
  return Number.isFinite(number) ? number : text;  // text the service names the field for
}

function business(): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const put = (key: string, item: unknown) => { if (item !== undefined && item !== "") found[key] = item; };
  put("name", value("business-name"));
  put("website", value("business-website"));
  put("description", value("business-description"));
  put("naics", value("business-naics"));
  put("state", value("business-state"));
  put("annual_revenue", amount("business-revenue"));
  put("payroll", amount("business-payroll"));
  put("employee_count", amount("business-employees"));
  put("years_in_business", amount("business-years"));
  put("requested_limit", amount("business-limit"));
  const lines = [...document.querySelectorAll<HTMLInputElement>('input[name="line"]:checked')]
    .map((box) => box.value);
  if (lines.length) found.lines_of_business = lines;
  for (const [path, answer] of Object.entries(state.answers)) {
    const [group, name] = path.split(".");
    if (name === undefined) { found[group] = answer; continue; }
    found[group] = { ...(found[group] as object ?? {}), [name]: answer };
  }
  return found;
}

async function classify(): Promise<void> {
  const description = value("business-description");
  if (!description) { failed(new Error("Describe what the business does first.")); return; }
  say("Classifying…");
  try {
    const found = await call<any>("POST", `${FINDER}/classify/`, { description,
      name: value("business-name") || undefined });
    showCandidates(found.results);
    say(found.results.length ? `${found.results.length} suggested classes: choose one.`
                             : "No class suggested: enter a NAICS code.");
  } catch (error) { failed(error); }
}

function showCandidates(results: { naics: string; title: string; confidence: number }[]): void {
  replace($("#classification"), results.map((r, index) => h("label", { class: "check" },
    h("input", { type: "radio", name: "naics-choice", value: r.naics, checked: index === 0,
                 onchange: () => setValue("business-naics", r.naics) }),
    ` ${r.naics} ${r.title} (${Math.round(r.confidence * 100)}%)`)));
  if (results.length) setValue("business-naics", results[0].naics);
}

async function scan(): Promise<void> {
  const url = value("business-website");
  if (!url) { failed(new Error("Enter the website's address first.")); return; }
  say("Reading the website…");
  try {
    const found = await call<any>("POST", `${FINDER}/scan/`, { url });
    const read = found.business ?? {};
    setValue("business-name", read.name);
    setValue("business-description", read.description);
    setValue("business-state", read.state);
    showCandidates(found.classification ?? []);
    for (const line of found.recommendations ?? []) {
      const box = document.querySelector<HTMLInputElement>(`input[name="line"][value="${line.line}"]`);
      if (box) box.checked = true;
    }
    say(`Read ${found.final_url}: ${found.recommendations?.length ?? 0} lines recommended. ` +
        "Check the form, then find carriers.");
  } catch (error) { failed(error); }
}

async function find(): Promise<void> {
  say("Finding carriers…");
  try {
    state.business = business();
    const found = await call<MatchResponse>("POST", `${FINDER}/match-carriers-detailed/`,
                                            { business: state.business });
    state.last = found;
    showQuestions(found);
    showResults(found);
    showSave();
    const writing = found.carriers.filter((c) => c.decision !== "decline").length;
    say(`${writing} carrier(s) would write it (${found.considered} products considered); ` +
        `${found.questions.length} question(s) to ask the client.`);
  } catch (error) { failed(error); }
}

// --- questions -------------------------------------------------------------------------------

function answerControl(question: Question, id: string): HTMLElement {
  const known = state.answers[question.field];
  if (YES_NO.has(question.field)) {
    const select = h("select", { id },
      h("option", { value: "" }, "not asked yet"), h("option", { value: "true" }, "yes"),
      h("option", { value: "false" }, "no"));
    if (known !== undefined) select.value = String(known);
    return select;
  }
  if (question.field === "property.construction") {
    const select = h("select", { id }, h("option", { value: "" }, "not asked yet"),
                     CONSTRUCTION.map((c) => h("option", { value: c }, c.replace(/_/g, " "))));
    if (known !== undefined) select.value = String(known);
    return select;
  }
  const text = question.field === "payroll_by_class"
    ? "e.g. 5190: 620000, 8810: 90000" : "";
  return h("input", { id, placeholder: text, value: known === undefined ? "" : String(known),
                      inputmode: TEXT.has(question.field) ? "text" : "decimal" });
}

function readAnswer(question: Question, raw: string): unknown {
  if (raw === "") return undefined;
  if (YES_NO.has(question.field)) return raw === "true";
  if (question.field === "property.construction" || TEXT.has(question.field)) return raw;
  if (question.field === "payroll_by_class") {
    return raw.split(",").map((pair) => pair.split(":")).filter((p) => p.length === 2)
      .map(([code, payroll]) => ({ code: code.trim(), payroll: Number(payroll.replace(/[$,\s]/g, "")) }));
  }
  const number = Number(raw.replace(/[$,_\s%]/g, ""));
  return Number.isFinite(number) ? number : raw;
}

function showQuestions(found: MatchResponse): void {
  const section = $("#questions");
  section.hidden = found.questions.length === 0;
  const controls = found.questions.map((question, index) => {
    const id = `answer-${index}`;
    return { question, id, element: h("li", {},
      field(`${question.text[0].toUpperCase()}${question.text.slice(1)}`, answerControl(question, id), id),
      h("p", { class: "help" }, `Asked by ${question.products.length} product(s).`)) };
  });
  replace(section,
    h("h2", { id: "questions-title" }, "2. Ask the client"),
    h("p", { class: "help" }, "Unanswered questions never decide; an answer can only lower a " +
      "decision. Answer what you know and match again."),
    found.warnings.length ? h("ul", { class: "warnings", "aria-label": "How the business was read" },
      found.warnings.map((w) => h("li", {}, w))) : null,
    h("form", { id: "answers", onsubmit: (event: Event) => {
      event.preventDefault();
      for (const { question, id } of controls) {
        const answer = readAnswer(question, ($(`#${id}`) as HTMLInputElement).value.trim());
        if (answer === undefined) delete state.answers[question.field];
        else state.answers[question.field] = answer;
      }
      find();
    } }, h("ol", {}, controls.map((c) => c.element)),
      h("button", { type: "submit", id: "rematch" }, "Match again with these answers")));
}

// --- results -----------------------------------------------------------------------------------

function showResults(found: MatchResponse): void {
  const section = $("#results");
  section.hidden = false;
  const writing = found.carriers.filter((c) => c.decision !== "decline");
  const declining = found.carriers.filter((c) => c.decision === "decline");
  replace(section,
    h("h2", { id: "results-title" }, "3. Carriers, best first"),
    writing.length ? h("ol", { class: "carriers" }, writing.map(carrierItem))
                   : h("p", {}, "No carrier would write this business as described."),
    declining.length ? h("details", { id: "declines" },
      h("summary", {}, `${declining.length} carrier(s) decline, with why`),
      h("ul", {}, declining.map((c) => h("li", {}, h("strong", {}, c.name), ": ",
        c.products[0]?.reasons[0] ?? "")))) : null);
}

function carrierItem(carrier: CarrierAnswer): HTMLElement {
  const facts: [string, string | null][] = [
    ["Access", carrier.access], ["Underwriter", carrier.underwriter],
    ["Submit to", carrier.submit], ["Guide", carrier.guide]];
  return h("li", { class: `carrier ${carrier.decision}` },
    h("article", { "aria-labelledby": `carrier-${carrier.id}` },
      h("h3", { id: `carrier-${carrier.id}` }, `${carrier.name} `,
        h("span", { class: "kind" }, `(${carrier.rating}, ${carrier.kind}): ${DECISION[carrier.decision].toLowerCase()}`)),
      h("dl", {}, facts.filter(([, text]) => text).flatMap(([label, text]) =>
        [h("dt", {}, label), h("dd", {}, text)]),
        carrier.quote_url ? [h("dt", {}, "Quote online"),
          h("dd", {}, h("a", { href: carrier.quote_url, rel: "noopener noreferrer" }, carrier.quote_url))] : null),
      h("ul", { class: "products" }, carrier.products.filter((p) => p.decision !== "decline")
        .map((product) => productItem(carrier, product)))));
}

function productItem(carrier: CarrierAnswer, product: ProductAnswer): HTMLElement {
  return h("li", { class: `product ${product.decision}` },
    h("h4", {}, `${DECISION[product.decision]}: ${product.name}`),
    h("p", { class: "meta" }, `${product.line_name}` +
      (product.strength ? `, ${product.strength} appetite` : "") +
      `; minimum premium ${product.minimum_premium}, limits to ${product.max_limit}; score ${product.score}`),
    h("ol", { class: "reasons", "aria-label": "Reasons, the deciding one first" },
      product.reasons.map((reason) => h("li", {}, reason))),
    product.notes.map((note) => h("p", { class: "note" }, note)),
    product.access ? h("p", {}, `Access: ${product.access}`) : null,
    h("button", { type: "button", class: "choose", "data-product": product.id,
                  onclick: () => chooseProduct(carrier, product) }, `Start a submission to ${product.name}`));
}

// --- saving and submitting ---------------------------------------------------------------------

function showSave(): void {
  const section = $("#save");
  section.hidden = false;
  const key = h("input", { type: "password", autocomplete: "off" });
  replace(section,
    h("h2", { id: "save-title" }, "4. Save and submit"),
    h("p", { class: "help" }, "Saving writes a client to your workspace's own database through " +
      "the tenant API; paste an API key with write scope (kept in this page only)."),
    field("API key", key, "api-key"),
    field("Existing client for submissions (id or uuid; empty: the one saved here, else a new one)",
          input("x", { autocomplete: "off" }), "existing-client"),
    h("div", { class: "row" },
      h("button", { type: "button", id: "save-client", onclick: () => saveClient(key.value, "client") },
        "Save as a client"),
      h("button", { type: "button", id: "save-prospect", onclick: () => saveClient(key.value, "prospect") },
        "Save as a prospect")),
    h("div", { id: "submission", "aria-live": "polite" }));
}

function newClient(found: Record<string, unknown>, kind: "client" | "prospect"): Record<string, unknown> {
  const name = String(found.name ?? "") || "Unnamed business";
  return { name, company: name, region: found.state ?? undefined,
           external_ref: `carrier-finder:${kind}:${found.naics ?? ""}` };
}

async function saveClient(key: string, kind: "client" | "prospect"): Promise<void> {
  const found = state.business ?? business();
  if (!key) { failed(new Error("Paste an API key with write scope to save.")); return; }
  const client = newClient(found, kind);
  try {
    const saved = await call<any>("POST", "/api/v2/mcp/clients/", client,
                                  { Authorization: `Bearer ${key}` });
    if (kind === "client") state.clientId = saved.id;
    say(`Saved ${client.name} as a ${kind} (client ${saved.id}).`);
  } catch (error) { failed(error); }
}

// The submission record: for the client named, or the one saved here, or a new one saved with it.
async function startSubmission(product: ProductAnswer, found: Record<string, unknown>): Promise<void> {
  const existing = value("existing-client") || state.clientId;
  const request: Record<string, unknown> = { product_id: product.id, business: found,
                                             answered: state.answers };
  if (existing) request.client_id = existing;
  else request.client = newClient(found, "client");
  say(`Starting the submission to ${product.name}…`);
  try {
    const created = await call<SubmissionCreated>("POST", `${FINDER}/submissions/`, request);
    const record = created.submission;
    if (created.client) state.clientId = created.client.id;
    const facts: [string, string][] = [["Submission", record.id], ["Line", record.lob ?? ""],
      ["Client", created.client ? `${created.client.name} (${record.client_id}), saved now`
                                : String(record.client_id)],
      ["Created", record.created_at]];
    replace($("#submission-record"),
      h("h4", {}, "Submission record"),
      h("dl", {}, facts.flatMap(([label, text]) => [h("dt", {}, label), h("dd", {}, text)])));
    say(`Submission ${record.id} started for ${product.name}; the workspace's rules score it. ` +
        "Send it to the carrier below.");
  } catch (error) { failed(error); }
}

function chooseProduct(carrier: CarrierAnswer, product: ProductAnswer): void {
  const found = state.business ?? business();
  const lines = [
    `Submission: ${found.name ?? "a business"} for ${product.name} (${product.line_name})`,
    `Carrier: ${carrier.name}; ${carrier.access ?? ""}`, "",
    `Business: ${JSON.stringify(found, null, 2)}`, "",
    `Why it fits: ${product.reasons.join("; ")}`,
    ...(product.questions.length ? ["", `Still to ask: ${product.questions.join("; ")}`] : []),
  ];
  const body = lines.join("\n");
  const email = (carrier.submit ?? "").split(" or ").find((place) => place.includes("@"));
  const portal = (carrier.submit ?? "").split(" or ").find((place) => place.startsWith("https://"));
  replace($("#submission"),
    h("h3", { id: "submission-title", tabindex: -1 }, `Submission to ${carrier.name}: ${product.name}`),
    field("Submission (copy it, or send it)", h("textarea", { rows: 10, readonly: true, value: body }),
          "submission-text"),
    email ? h("a", { href: `mailto:${email}?subject=${encodeURIComponent(lines[0])}` +
                           `&body=${encodeURIComponent(body)}`, id: "submission-email" },
              `E-mail it to ${email}`) : null,
    portal ? h("a", { href: portal, rel: "noopener noreferrer", id: "submission-portal" },
               ` Open the carrier's portal`) : null,
    h("div", { id: "submission-record" }));
  ($("#submission-title") as HTMLElement).focus();
  void startSubmission(product, found);
}

start().catch(failed);
