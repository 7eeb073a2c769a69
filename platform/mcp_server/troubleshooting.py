"""The local server's troubleshooting messages (interface spec, item 7) and the checks behind them.

Three conditions: an invalid API key, a failed database connection, tools missing in the desktop
client. The server prints the matching message at start; `insureops mcp doctor` runs all three.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from insureops.platform.records.api_keys import KEY_LENGTH, KEY_PREFIX

INVALID_KEY_TIPS = (
    "Check SERVICE_API_KEY for stray spaces or line breaks (copy it again in one piece).",
    f"Check that the key starts with the service's prefix `{KEY_PREFIX}`.",
    "Generate a new key in the dashboard (Settings -> API keys) and use that one.",
)
DATABASE_TIPS = (
    "Check the connection string in DATABASE_URL (host, port, database name, user, password).",
    "If the database is a hosted project that pauses when idle, resume (un-pause) it.",
    ("If the password contains special characters (@ : / ? # [ ] % and spaces), they break the "
     "URI: percent-encode them so the URL is URL-safe (e.g. p@ss -> p%40ss)."),
)
TOOLS_TIPS = (
    "Restart the desktop client completely after changing its configuration.",
    ("Make sure the server command is on the PATH the client uses (or give its absolute path; "
     "`insureops mcp config` prints one)."),
    "Read the desktop client's MCP logs for the server's start-up messages.",
)


@dataclass(frozen=True)
class Finding:
    """One checked condition: ok or a problem, what was found, and what to try."""

    check: str  # api_key | database | tools
    ok: bool
    summary: str
    tips: tuple[str, ...] = field(default=())

    def render(self) -> str:
        mark = "ok" if self.ok else "PROBLEM"
        lines = [f"[{mark}] {self.check}: {self.summary}"]
        lines += [f"    - {tip}" for tip in self.tips]
        return "\n".join(lines)


def key_problems(key: str) -> list[str]:
    """What is visibly wrong with the key's text (before asking the service)."""
    if not key:
        return ["SERVICE_API_KEY is not set."]
    problems = []
    if key != key.strip() or any(char.isspace() for char in key):
        problems.append("the key contains spaces or line breaks")
    bare = "".join(key.split())
    if not bare.startswith(KEY_PREFIX):
        problems.append(f"the key does not start with `{KEY_PREFIX}`")
    elif len(bare) != KEY_LENGTH:
        problems.append(f"the key has {len(bare)} characters instead of {KEY_LENGTH} "
                        "(incomplete copy?)")
    return problems


def invalid_key(summary: str) -> Finding:
    return Finding("api_key", False, f"invalid API key: {summary}", INVALID_KEY_TIPS)


def url_problem(url: str) -> str | None:
    """Why DATABASE_URL cannot even be parsed as a database URI, or None."""
    if not url:
        return "DATABASE_URL is not set."
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return "DATABASE_URL is not a valid connection URI"
    if parsed.get_backend_name() not in ("postgresql", "sqlite"):
        return f"DATABASE_URL uses {parsed.drivername}://; use postgresql:// (or sqlite:///PATH)"
    if parsed.get_backend_name() == "postgresql" and any(
            char in (parsed.host or "") for char in "@:/#[]% "):
        return ("DATABASE_URL's host part is malformed: the password probably holds special "
                "characters that are not percent-encoded")
    return None


def database_failed(summary: str) -> Finding:
    return Finding("database", False, f"database connection failed: {summary}", DATABASE_TIPS)


def tools_finding(tool_names: list[str], command: str = "insureops") -> Finding:
    """Whether the server command is on the PATH and how many tools it serves."""
    found = shutil.which(command)
    summary = (f"{len(tool_names)} tools ({', '.join(tool_names)}); command `{command}` "
               + (f"found at {found}" if found else "NOT found on the PATH"))
    return Finding("tools", found is not None, summary, TOOLS_TIPS)
