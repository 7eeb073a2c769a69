"""The HTTP client of `insureops rules pull` / `push`: the rule studio's API-key routes
(`/api/rules/sync/...`), each answer bounded in time and size, errors read in the service's
shape ({"error": {"code", "message"}}) and raised as `WorkspaceError`."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

TIMEOUT_SECONDS = 60.0  # one request; a push saves a version, which runs its tests
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # a rule of 512 KiB, a case set of 2 MiB: far below
BASE = "/api/rules/sync/rules/"


class WorkspaceError(Exception):
    """The service refused a request, or could not be reached."""

    def __init__(self, status: int, code: str, message: str,
                 details: list | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details or []


@dataclass(frozen=True)
class Answer:
    payload: Any
    etag: str | None

    @property
    def version(self) -> int | None:
        """The version the ETag names (`"3"` -> 3)."""
        return int(self.etag.strip('"')) if self.etag and self.etag.strip('"').isdigit() else None


class Workspace:
    """A workspace of a service, reached with one API key."""

    def __init__(self, url: str, key: str) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise WorkspaceError(0, "bad_url", f"{url!r} is not an http(s) URL of the service")
        self.url, self.key = url.rstrip("/"), key

    def call(self, method: str, path: str, body: Any = None,
             if_match: int | None = None) -> Answer:
        headers = {"Authorization": f"Bearer {self.key}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
                return Answer(_read_json(response), response.headers.get("ETag"))
        except urllib.error.HTTPError as exc:
            raise _refusal(exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise WorkspaceError(0, "unreachable", f"cannot reach {self.url}: {reason}") from None

    def rules(self) -> list[dict]:
        """Every rule of the workspace (all pages), oldest first."""
        found, cursor = [], None
        while True:
            query = {"limit": 200, **({"cursor": cursor} if cursor else {})}
            page = self.call("GET", f"{BASE}?{urllib.parse.urlencode(query)}").payload
            found.extend(page["items"])
            cursor = page.get("next_cursor")
            if not cursor:
                return found

    def rule(self, rule_id: str, version: int | None = None) -> Answer:
        suffix = f"?version={version}" if version is not None else ""
        return self.call("GET", f"{BASE}{rule_id}/{suffix}")

    def create_rule(self, source: str) -> Answer:
        return self.call("POST", BASE, {"source": source})

    def save_source(self, rule_id: str, source: str, based_on: int) -> Answer:
        return self.call("PATCH", f"{BASE}{rule_id}/", {"source": source}, if_match=based_on)

    def case_sets(self, rule_id: str) -> list[dict]:
        return self.call("GET", f"{BASE}{rule_id}/case-sets/").payload["case_sets"]

    def case_set(self, rule_id: str, case_set_id: str) -> Answer:
        return self.call("GET", f"{BASE}{rule_id}/case-sets/{case_set_id}/")

    def create_case_set(self, rule_id: str, name: str, cases: list[dict]) -> Answer:
        return self.call("POST", f"{BASE}{rule_id}/case-sets/", {"name": name, "cases": cases})

    def save_cases(self, rule_id: str, case_set_id: str, cases: list[dict],
                   based_on: int) -> Answer:
        return self.call("PATCH", f"{BASE}{rule_id}/case-sets/{case_set_id}/",
                         {"cases": cases}, if_match=based_on)


def _read_json(response: Any) -> Any:
    data = response.read(MAX_ANSWER_BYTES + 1)
    if len(data) > MAX_ANSWER_BYTES:
        raise WorkspaceError(0, "answer_too_large", "the service's answer is too large")
    return json.loads(data) if data else None


def _refusal(exc: urllib.error.HTTPError) -> WorkspaceError:
    try:
        error = _read_json(exc)["error"]
        return WorkspaceError(exc.code, error["code"], error["message"], error.get("details"))
    except (ValueError, KeyError, TypeError, WorkspaceError):
        return WorkspaceError(exc.code, "http_error", f"HTTP {exc.code} {exc.reason}")
