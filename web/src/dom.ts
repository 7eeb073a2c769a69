// A tiny element builder: text always goes through textContent, never innerHTML.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key in element && !key.includes("-") && key !== "list") (element as any)[key] = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export const $ = <T extends HTMLElement>(selector: string): T =>
  document.querySelector(selector) as T;

export function field(label: string, control: HTMLElement, id: string): HTMLElement {
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

export function select(options: string[], blank?: string): HTMLSelectElement {
  return h("select", {}, blank !== undefined ? h("option", { value: "" }, blank) : null,
           options.map((o) => h("option", { value: o }, o)));
}
