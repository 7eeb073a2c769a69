// The failed records of a binding or a book run (GET <base>failures/), each with the engine's
// error, and a Retry for admins (POST <base>failures/<record_id>/retry/) that evaluates the
// record as it is now: docs/rules-at-work.md, "Failed records".
import { call } from "./api";
import { h, replace } from "./dom";

interface Failure {
  record_type: string; record_id: string; record_version: string | null;
  error: { code: string; message: string }; failed_at: string | null;
}
interface Retry {
  record_type: string; record_id: string; status: "succeeded" | "failed" | "not_matched";
  decision: string | null; error: { code: string; message: string } | null; effects: number;
}
export interface FailuresContext {
  canWrite: boolean; when: (iso: string) => string;
  say: (text: string, error?: boolean) => void; failed: (error: unknown) => void;
}

const PAGE = 50;

export function retryText(retry: Retry): string {
  const record = `${retry.record_type} ${retry.record_id}`;
  if (retry.status === "failed") {
    return `Retried ${record}: it fails again (${retry.error?.code}: ${retry.error?.message}).`;
  }
  if (retry.status === "not_matched") {
    return `Retried ${record}: the where condition no longer holds; the failure is resolved.`;
  }
  return `Retried ${record}: ${retry.decision ?? "no decision"}, ${retry.effects} effect` +
    `${retry.effects === 1 ? "" : "s"} written; the failure is resolved.`;
}

/** A section listing the failed records under `base` (".../bindings/<id>/" or
 *  ".../runs/<id>/"); `changed` runs after a retry that resolved one (to refresh counts). */
export function failuresSection(base: string, title: string, context: FailuresContext,
                                changed: () => void): HTMLElement {
  const body = h("tbody", {});
  const more = h("p", { class: "help", hidden: true });

  async function list(): Promise<void> {
    try {
      const page = await call<{ items: Failure[]; next_cursor: number | null }>(
        "GET", `${base}failures/?limit=${PAGE}`);
      replace(body, page.items.length ? page.items.map((f) => h("tr", { "data-record": f.record_id },
        h("th", { scope: "row" }, h("code", {}, f.record_id)),
        h("td", {}, f.record_type),
        h("td", {}, f.record_version ?? "—"),
        h("td", {}, h("code", {}, f.error.code), ` ${f.error.message}`),
        h("td", {}, f.failed_at ? context.when(f.failed_at) : "—"),
        h("td", {}, h("button", { type: "button", disabled: !context.canWrite,
          "aria-label": `Retry ${f.record_type} ${f.record_id}`, onclick: () => retry(f) }, "Retry"))))
        : h("tr", {}, h("td", { colspan: 6 }, "No failed records.")));
      more.hidden = page.next_cursor === null;
      more.textContent = `Showing the first ${PAGE}: retry these to see the next.`;
    } catch (e) { context.failed(e); }
  }
  async function retry(failure: Failure): Promise<void> {
    try {
      const outcome = await call<Retry>("POST", `${base}failures/${failure.record_id}/retry/`);
      context.say(retryText(outcome), outcome.status === "failed");
      await list();
      if (outcome.status !== "failed") changed();
    } catch (e) { context.failed(e); }
  }

  list();
  return h("section", { class: "failures", "aria-label": title },
    h("table", { class: "grid" }, h("caption", {}, `${title}, oldest first`),
      h("thead", {}, h("tr", {}, ["Record", "Type", "Version", "Error", "Failed", ""]
        .map((c) => h("th", { scope: "col" }, c)))),
      body),
    more);
}
