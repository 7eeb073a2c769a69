// The appetite try-out: a business (the Business fields appetites read) on this appetite's
// source (simulate) and on the market (the carrier finder's detailed match).
import { call, RULES } from "./api";
import { field, h, replace } from "./dom";
import { show, traceTree } from "./trace";

const BUSINESS: [string, string, string][] = [  // field, label, input type
  ["name", "Business name", "text"], ["description", "Description", "text"], ["naics", "NAICS code", "text"],
  ["state", "State (2 letters)", "text"], ["annual_revenue", "Annual revenue", "number"],
  ["payroll", "Payroll", "number"], ["employee_count", "Employees", "number"],
  ["years_in_business", "Years in business", "number"], ["requested_limit", "Requested limit", "number"],
  ["lines_of_business", "Lines of business (comma separated codes)", "text"],
];

export function appetitePanel(source: () => string, failed: (error: unknown) => void): HTMLElement {
  const inputs = new Map(BUSINESS.map(([name, , type]) => [name, h("input", { type, step: type === "number" ? "any" : undefined })]));
  const out = h("div", { id: "appetite-result", "aria-live": "polite" });
  const form = h("form", { id: "business", onsubmit: async (event: Event) => {
    event.preventDefault();
    const business: Record<string, unknown> = {};
    for (const [name, , type] of BUSINESS) {
      const value = inputs.get(name)!.value.trim();
      if (!value) continue;
      business[name] = name === "lines_of_business" ? value.split(",").map((s) => s.trim()).filter(Boolean)
        : name === "employee_count" ? parseInt(value, 10) : type === "number" ? Number(value) : value;
    }
    try {
      const own = await call<any>("POST", `${RULES}/simulate/`, { source: source(),
        cases: [{ id: "business", inputs: { business } }], explain: true });
      const match = await call<any>("POST", "/api/v1/carrier_finder/match-carriers-detailed/", { business, limit: 10 });
      const mine = own.results[0];
      replace(out, h("h3", {}, "This appetite"),
        mine.error ? h("p", { class: "error" }, `${mine.error.code}: ${mine.error.message}`)
          : h("p", { id: "appetite-decision" }, `${mine.result.decision}, score ${show(mine.result.score)}` +
              (mine.result.reasons.length ? `: ${mine.result.reasons.join("; ")}` : "")),
        h("h3", {}, "The carrier finder's match"),
        h("table", { id: "matches", class: "grid" }, h("caption", {}, `${match.results.length} best of ${match.considered} products` +
            ` (${match.results.filter((m: any) => m.own).length} of them this workspace's own)`),
          h("thead", {}, h("tr", {}, ["Whose", "Carrier", "Product", "Decision", "Score", "Reasons"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, match.results.map((m: any) => h("tr", { class: m.own ? "own" : "market" },
            h("td", {}, m.own ? h("strong", { class: "own-badge" }, "Your own") : "Market"),
            h("td", {}, m.carrier.name), h("td", {}, m.product.name),
            h("td", {}, m.decision), h("td", {}, show(m.score)), h("td", {}, m.reasons.join("; ")))))),
        unmatchedList(match.unmatched ?? []),
        mine.result?.trace ? h("h3", {}, "Why this appetite answered so") : null,
        mine.result?.trace ? traceTree(mine.result.trace) : null);
    } catch (e) { failed(e); }
  } }, h("p", {}, "A business (the Business fields appetites read) tried on this appetite's source, and on the market."),
    BUSINESS.map(([name, label]) => field(label, inputs.get(name)!, `business-${name}`)),
    h("button", { type: "submit", id: "try-business" }, "Try"));
  return h("div", {}, form, out);
}

// The workspace's own products the finder could not match, each with why (e.g. an unpublished rule).
function unmatchedList(unmatched: any[]): HTMLElement | null {
  if (!unmatched.length) return null;
  return h("section", { id: "unmatched", "aria-label": "Your products not matched" },
    h("h3", {}, "Your own products not matched"),
    h("ul", {}, unmatched.map((u: any) => h("li", {},
      h("strong", {}, `${u.carrier.name} · ${u.product.name}`), ` (${u.appetite_status}): ${u.reason}`))));
}
