// The invitation page (/invitations/<id>/accept?token=...): accept a team invitation after
// logging in, or by creating the account (name and password). A bundle of its own, apart from
// the rule studio's; it uses only the public accounts and team APIs on the same origin.

interface ApiError {
  code: string;
  message: string;
  details?: { field: string; message: string }[];
}

interface Accepted {
  workspace: { id: string; name: string };
  user: { id: string; email: string; name: string };
  role: string;
  new_user: boolean;
}

type Answer<T> = { ok: true; body: T } | { ok: false; status: number; error: ApiError };

async function call<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (response.ok) return { ok: true, body: data as T };
  const error = (data && data.error) || { code: "server_error", message: response.statusText };
  return { ok: false, status: response.status, error };
}

// What a person should read for each refusal of the accept route (docs/team-and-settings.md).
const CLOSED: Record<string, string> = {
  invalid_token: "This invitation link is not valid. Ask for a new invitation.",
  invitation_expired: "This invitation has expired. Ask the workspace's admin to resend it.",
  invitation_revoked: "This invitation was revoked. Ask the workspace's admin for a new one.",
  invitation_used: "This invitation was already accepted. Log in to use the workspace.",
};

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K, attributes: Record<string, string> = {}, ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function field(label: string, id: string, type: string, autocomplete: string): HTMLElement {
  return element("p", {}, element("label", { for: id }, label),
    element("input", { id, name: id, type, autocomplete, required: "" }));
}

function value(id: string): string {
  return (document.getElementById(id) as HTMLInputElement).value;
}

function describe(error: ApiError): string {
  const details = (error.details || []).map((d) => `${d.field}: ${d.message}`).join("; ");
  return CLOSED[error.code] || (details ? `${error.message} (${details})` : error.message);
}

class InvitationPage {
  private readonly status = element("p", { id: "status", role: "status", "aria-live": "polite" });

  constructor(private readonly root: HTMLElement, private readonly id: string,
              private readonly token: string) {}

  async start(): Promise<void> {
    this.root.replaceChildren(element("h1", {}, "Join a workspace on insureops"));
    if (!this.id || !this.token) {
      this.show(element("p", { class: "error" }, "This link lacks its invitation or its token: "
        + "open the link from the e-mail as it is."));
      return;
    }
    const profile = await call<{ user: { email: string } }>("GET", "/api/auth/profile/");
    if (profile.ok) this.loggedIn(profile.body.user.email);
    else this.loggedOut();
  }

  private show(...nodes: Node[]): void {
    this.root.replaceChildren(this.root.firstChild as Node, ...nodes, this.status);
  }

  private say(text: string, isError = true): void {
    this.status.textContent = text;
    this.status.className = isError ? "error" : "";
  }

  private loggedIn(email: string): void {
    const accept = element("button", { type: "button" }, "Accept invitation");
    accept.addEventListener("click", () => this.acceptAs(email));
    this.show(element("p", {}, `You are logged in as ${email}. The invitation joins the `
      + "account of the address it was sent to."), accept);
  }

  private loggedOut(): void {
    const login = element("form", { id: "login", "aria-labelledby": "login-title" },
      element("h2", { id: "login-title" }, "I have an account"),
      field("E-mail", "login-email", "email", "username"),
      field("Password", "login-password", "password", "current-password"),
      element("button", { type: "submit" }, "Log in and accept"));
    login.addEventListener("submit", (event) => { event.preventDefault(); this.logInThenAccept(); });
    const signup = element("form", { id: "signup", "aria-labelledby": "signup-title" },
      element("h2", { id: "signup-title" }, "I am new to insureops"),
      element("p", { class: "hint" }, "The invitation verifies your e-mail address: choose "
        + "your name and a password (at least 10 characters)."),
      field("Your name", "signup-name", "text", "name"),
      field("New password", "signup-password", "password", "new-password"),
      element("button", { type: "submit" }, "Create account and accept"));
    signup.addEventListener("submit", (event) => { event.preventDefault(); this.signUp(); });
    this.show(login, signup);
  }

  private async logInThenAccept(): Promise<void> {
    this.say("Logging in...", false);
    const email = value("login-email");
    const login = await call("POST", "/api/auth/login/",
      { email, password: value("login-password") });
    if (!login.ok) {
      this.say(login.error.code === "invalid_credentials"
        ? "Wrong e-mail or password. New to insureops? Create your account instead."
        : describe(login.error));
      return;
    }
    await this.acceptAs(email);
  }

  private async acceptAs(email: string): Promise<void> {
    const done = await this.accept({}, email);
    if (done !== null) this.joined(done, email);
  }

  private async signUp(): Promise<void> {
    const password = value("signup-password");
    const done = await this.accept({ name: value("signup-name"), password });
    if (done === null) return;
    const login = await call("POST", "/api/auth/login/", { email: done.user.email, password });
    this.joined(done);
    if (!login.ok) this.say(`Your account is ready, but logging in failed: ${describe(login.error)}`);
  }

  private async accept(extra: Record<string, string>, loggedInAs?: string): Promise<Accepted | null> {
    this.say("Accepting...", false);
    const answer = await call<Accepted>("POST",
      `/api/team/invitations/${encodeURIComponent(this.id)}/accept/`, { token: this.token, ...extra });
    if (!answer.ok) {
      const needsAccount = answer.error.code === "validation_error"
        && (answer.error.details || []).some((d) => d.field === "name" || d.field === "password");
      this.say(needsAccount && !extra.password
        ? "This address has no account yet: create it with your name and a password."
        : describe(answer.error));
      if (needsAccount && loggedInAs !== undefined && !extra.password) this.loggedOut();
      return null;
    }
    return answer.body;
  }

  // The end of every path: what was joined, and where to go (shown once logged in).
  private joined(joined: Accepted, loggedInAs?: string): void {
    const other = loggedInAs && loggedInAs.toLowerCase() !== joined.user.email.toLowerCase()
      ? [element("p", { class: "hint" }, `The invitation was for ${joined.user.email}; you are `
        + `logged in as ${loggedInAs}. Log in as ${joined.user.email} to work in the workspace.`)]
      : [];
    this.show(element("p", { id: "joined" }, `You joined ${joined.workspace.name} as ${joined.role}.`),
      ...other, element("p", {}, element("a", { href: "/studio/" }, "Open the rule studio")));
    this.say("", false);
  }
}

function start(): void {
  const root = document.getElementById("app");
  if (root === null) return;
  const match = /^\/invitations\/([^/]+)\/accept\/?$/.exec(location.pathname);
  const token = new URLSearchParams(location.search).get("token") || "";
  // The token leaves the address bar (and so the history and screen shares) once read.
  history.replaceState(null, "", location.pathname);
  void new InvitationPage(root, match ? decodeURIComponent(match[1]) : "", token).start();
}

start();
