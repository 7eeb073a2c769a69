// The public APIs the page uses, on the same origin: the session cookie goes with every call
// and the browser's Origin header passes the service's check for writes.
export interface Diagnostic {
  code: string; name: string; severity: "error" | "warning"; message: string;
  hint: string | null; line: number | null; column: number | null;
  end_line: number | null; end_column: number | null;
}
export interface TestResult { description: string; passed: boolean; message: string | null; line: number | null }
export interface VersionInfo {
  number: number; content_hash: string; author_id: string | null; created_at: string;
  tests_passed: boolean; tests_failed: number;
}
export interface VersionDetail extends VersionInfo { source: string; warnings: Diagnostic[]; tests: TestResult[] }
export interface RuleSummary {
  id: string; name: string; title: string; kind: string; status: string;
  current_version: number; published_version: number | null; updated_at: string;
}
export interface RuleInfo extends RuleSummary { version: VersionDetail }
export interface Profile {
  user: { id: string; email: string; name: string };
  active_workspace: { id: string; name: string; role: string } | null;
}

export class ApiError extends Error {
  constructor(public status: number, public code: string, message: string, public details: any[] = []) {
    super(message);
  }
}

export async function call<T>(method: string, path: string, body?: unknown,
                              headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  if (response.status === 204) return undefined as T;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error ?? {};
    throw new ApiError(response.status, error.code ?? "server_error",
                       error.message ?? `HTTP ${response.status}`, error.details ?? []);
  }
  return data as T;
}

export const RULES = "/api/rules/rules";
