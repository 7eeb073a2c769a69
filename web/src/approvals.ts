// The Approvals tab: the workspace's four-eyes setting, a rule's approval requests with who
// asked and who decided, and requesting, approving and rejecting them. Four eyes are shown:
// Approve is off, with the reason, for the version's author and for the requester.
import { ApiError, call, RULES, type RuleInfo, type VersionInfo } from "./api";
import { field, h, replace } from "./dom";

interface Approval {
  id: string; version: number; status: "pending" | "approved" | "rejected";
  requested_by: string | null; requested_at: string; decided_by: string | null;
  decided_at: string | null; comment: string | null;
}

export interface ApprovalContext {
  rule: RuleInfo; me: string; canWrite: boolean; isOwner: boolean;
  who: (id: string | null) => string; when: (iso: string) => string;
  failed: (error: unknown) => void; say: (text: string, error?: boolean) => void;
  published: (message: string) => void;  // an approval published a version: reload the rule
}

export function approvalsPanel(context: ApprovalContext): HTMLElement {
  const box = h("div", { id: "approvals-panel" }, h("p", {}, "Loading…"));
  const rule = context.rule;
  const load = () => Promise.all([
    call<{ four_eyes: boolean }>("GET", `${RULES}/settings/`),
    call<{ approvals: Approval[] }>("GET", `${RULES}/${rule.id}/approvals/`),
    call<{ versions: VersionInfo[] }>("GET", `${RULES}/${rule.id}/versions/`),
  ]).then(([settings, list, versions]) => replace(box, ...render(context, settings.four_eyes, list.approvals,
    versions.versions, load))).catch(context.failed);
  load();
  return box;
}

function render(context: ApprovalContext, fourEyes: boolean, approvals: Approval[], versions: VersionInfo[],
                reload: () => void): HTMLElement[] {
  const { rule } = context;
  const authors = new Map(versions.map((v) => [v.number, v.author_id]));
  const write = context.canWrite && rule.status !== "archived";
  const setting = h("input", { type: "checkbox", id: "four-eyes-setting", checked: fourEyes, disabled: !context.isOwner,
    onchange: async (event: Event) => {
      const on = (event.target as HTMLInputElement).checked;
      try {
        await call("PUT", `${RULES}/settings/`, { four_eyes: on });
        context.say(on ? "Four eyes on: publishing now needs another admin's approval." : "Four eyes off.");
        reload();
      } catch (e) { context.failed(e); }
    } });
  const publishable = versions.filter((v) => v.tests_passed).reverse();
  const version = h("select", {}, publishable.map((v) => h("option", { value: String(v.number) },
    `v${v.number}${v.number === rule.current_version ? " (current)" : ""}${v.number === rule.published_version ? " (published)" : ""}`)));
  const request = h("button", { type: "button", id: "request-approval-tab", disabled: !write || !publishable.length,
    onclick: async () => {
      try {
        await call("POST", `${RULES}/${rule.id}/approvals/`, { version: Number(version.value) });
        context.say(`Approval of v${version.value} requested: another admin approves it, which publishes it.`);
        reload();
      } catch (e) { context.failed(e); }
    } }, "Request approval");
  return [
    h("p", { id: "four-eyes", class: fourEyes ? "four-eyes on" : "four-eyes" }, fourEyes
      ? "Four eyes is on: a version is published only when an admin other than its author and the requester approves it."
      : "Four eyes is off: admins publish directly. Approval requests still record a second admin's decision."),
    h("div", { class: "field inline" }, setting, h("label", { for: "four-eyes-setting" },
      context.isOwner ? "Require four eyes in this workspace" : "Require four eyes (the owner changes this)")),
    h("div", { class: "filters" }, field("Version", version, "approval-version"), request),
    h("table", { id: "approvals", class: "grid" }, h("caption", {}, "Approval requests"),
      h("thead", {}, h("tr", {}, ["Version", "Status", "Requested", "Decided", "Comment", ""]
        .map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, approvals.length ? [...approvals].reverse().map((a) =>
        row(context, a, authors.get(a.version) ?? null, write, reload))
        : h("tr", {}, h("td", { colspan: 6, class: "empty" }, "No approval requests yet.")))),
  ];
}

function row(context: ApprovalContext, a: Approval, author: string | null, write: boolean,
             reload: () => void): HTMLElement {
  const { who, when, me } = context;
  const cells = [
    h("th", { scope: "row" }, `v${a.version}`), h("td", { class: `status ${a.status}` }, a.status),
    h("td", {}, `${who(a.requested_by)}, ${when(a.requested_at)}`),
    h("td", {}, a.decided_at ? `${who(a.decided_by)}, ${when(a.decided_at)}` : ""),
    h("td", {}, a.comment ?? ""),
  ];
  if (a.status !== "pending") return h("tr", { "data-id": a.id }, cells, h("td", {}));
  const own = a.requested_by === me ? "You requested it" : author === me ? `You wrote v${a.version}` : "";
  const comment = h("input", { type: "text", placeholder: "comment (optional)", "aria-label": `Comment on v${a.version}` });
  const decide = (verb: "approve" | "reject") => async () => {
    try {
      await call("POST", `${RULES}/${context.rule.id}/approvals/${a.id}/${verb}/`,
        comment.value.trim() ? { comment: comment.value.trim() } : {});
      if (verb === "approve") context.published(`Approved: v${a.version} is published.`);
      else { context.say(`Rejected the request for v${a.version}.`); reload(); }
    } catch (e) {
      if (e instanceof ApiError && e.code === "self_approval") context.say(e.message, true);
      else context.failed(e);
    }
  };
  return h("tr", { "data-id": a.id, class: "pending" }, cells, h("td", {}, comment,
    h("button", { type: "button", class: "approve", disabled: !write || !!own, onclick: decide("approve"),
      title: own ? `${own}: four eyes need another admin to approve.` : undefined }, "Approve"),
    h("button", { type: "button", class: "reject", disabled: !write, onclick: decide("reject") }, "Reject"),
    own ? h("span", { class: "four-eyes-note" }, `${own}: another admin approves (four eyes).`) : null));
}
