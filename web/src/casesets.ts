// Saved case sets of a rule (/rules/<id>/case-sets/): load one into the cases box, save the
// box as a new set, update or delete the loaded one. While the box still holds the loaded
// set's cases, simulate and compare send its id (`case_set_id`) instead of the cases.
import { call, RULES } from "./api";
import { field, h, replace } from "./dom";
import { parseCases } from "./results";

interface CaseSet { id: string; name: string; version: number; case_count: number; cases?: any[] }

export interface CaseSetContext {
  ruleId: string | null; canWrite: boolean;
  text: () => string; setText: (text: string) => void;
  say: (text: string, error?: boolean) => void; failed: (error: unknown) => void;
}

let loaded: { ruleId: string; set: CaseSet; text: string } | null = null;
let showStatus: (() => void) | null = null;  // the status line of the controls on the page

/** The id of the loaded set when the cases box still holds exactly its cases, else null. */
export function chosenCaseSet(ruleId: string | null, text: string): string | null {
  return loaded && loaded.ruleId === ruleId && loaded.text === text ? loaded.set.id : null;
}

const asLines = (cases: any[]) => cases.map((c) => JSON.stringify(c)).join("\n") + (cases.length ? "\n" : "");

export function caseSetControls(context: CaseSetContext): HTMLElement {
  const { ruleId } = context;
  if (!ruleId) return h("p", { class: "help" }, "Save the rule to keep case sets with it.");
  const sets = h("select", {});
  const name = h("input", { type: "text", placeholder: "name of a new set", maxlength: 100 });
  const status = h("p", { id: "case-set-status", class: "help", "aria-live": "polite" });
  const url = `${RULES}/${ruleId}/case-sets/`;

  async function refresh(selected?: string): Promise<void> {
    try {
      const list = await call<{ case_sets: CaseSet[] }>("GET", url);
      replace(sets, h("option", { value: "" }, list.case_sets.length ? "choose a saved set" : "no saved sets yet"),
        list.case_sets.map((s) => h("option", { value: s.id, selected: s.id === selected },
          `${s.name} (${s.case_count} case${s.case_count === 1 ? "" : "s"}, v${s.version})`)));
    } catch (e) { context.failed(e); }
  }
  function show(): void {
    const using = chosenCaseSet(ruleId, context.text());
    status.textContent = loaded && loaded.ruleId === ruleId
      ? using ? `Simulate and compare run on the saved set "${loaded.set.name}" (v${loaded.set.version}).`
        : `The cases differ from the saved set "${loaded.set.name}": the cases above are used; Update saves them.`
      : "The cases above are used.";
  }
  async function load(): Promise<void> {
    if (!sets.value) return;
    try {
      const set = await call<CaseSet>("GET", `${url}${sets.value}/`);
      const text = asLines(set.cases ?? []);
      loaded = { ruleId: ruleId!, set, text };
      context.setText(text);
      show();
    } catch (e) { context.failed(e); }
  }
  async function saveAs(): Promise<void> {
    try {
      const set = await call<CaseSet>("POST", url, { name: name.value.trim(), cases: parseCases(context.text()) });
      loaded = { ruleId: ruleId!, set, text: context.text() };
      name.value = "";
      context.say(`Saved the case set "${set.name}" (${set.case_count} cases).`);
      await refresh(set.id); show();
    } catch (e) { context.failed(e); }
  }
  async function update(): Promise<void> {
    if (!loaded || loaded.ruleId !== ruleId) { context.say("Load a saved set first.", true); return; }
    try {
      const set = await call<CaseSet>("PATCH", `${url}${loaded.set.id}/`, { cases: parseCases(context.text()) },
        { "If-Match": `"${loaded.set.version}"` });
      loaded = { ruleId: ruleId!, set, text: context.text() };
      context.say(`Updated the case set "${set.name}" (v${set.version}).`);
      await refresh(set.id); show();
    } catch (e) { context.failed(e); }
  }
  async function remove(): Promise<void> {
    if (!loaded || loaded.ruleId !== ruleId || !confirm(`Delete the case set "${loaded.set.name}"?`)) return;
    try {
      await call("DELETE", `${url}${loaded.set.id}/`);
      context.say(`Deleted the case set "${loaded.set.name}".`);
      loaded = null;
      await refresh(); show();
    } catch (e) { context.failed(e); }
  }
  showStatus = show;
  sets.addEventListener("change", load);
  refresh(loaded?.ruleId === ruleId ? loaded.set.id : undefined).then(show);
  const write = !context.canWrite;  // disabled: members read and load sets, admins keep them
  return h("fieldset", { class: "case-sets", id: "case-sets" }, h("legend", {}, "Saved case sets of this rule"),
    h("div", { class: "filters" }, field("Saved set", sets, "case-set"),
      h("button", { type: "button", id: "case-set-update", disabled: write, onclick: update }, "Update set"),
      h("button", { type: "button", id: "case-set-delete", disabled: write, onclick: remove }, "Delete set"),
      field("New set", name, "case-set-name"),
      h("button", { type: "button", id: "case-set-save", disabled: write, onclick: saveAs }, "Save as new set")),
    status);
}

/** Tell the controls the cases box changed (the status line says which cases run). */
export function casesEdited(): void {
  showStatus?.();
}
