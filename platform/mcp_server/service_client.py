"""The local server's only conversation with the service: validate the key, report usage counts.

Nothing else ever leaves the machine: no database URL, no client or policy data.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Self

import aiohttp

from insureops.platform.auth.requirements import Scope

VALIDATE_PATH = "/api/v2/mcp/validate-key/"
USAGE_PATH = "/api/v2/mcp/usage/"


class KeyRejectedError(Exception):
    """The service answered 401/403: the key is unknown, revoked or expired."""


class ServiceUnreachableError(Exception):
    """The service could not be asked (down, wrong SERVICE_URL, timeout, unexpected answer)."""


@dataclass(frozen=True)
class KeyInfo:
    """What the service says about the key."""

    tenant_id: str
    key_id: str
    scopes: frozenset[Scope]
    workspace_name: str

    def allows(self, scope: Scope) -> bool:
        return scope in self.scopes or (scope is Scope.READ and Scope.WRITE in self.scopes)


def _message(text: str) -> str:
    try:
        return str(json.loads(text)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return "The API key was refused."


class ServiceClient:
    """HTTP calls to the service with the API key; one aiohttp session for the server's life."""

    def __init__(self, service_url: str, api_key: str, *, timeout: float = 10.0) -> None:
        self.base = service_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}",
                         "User-Agent": "insureops-mcp-local"}
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        self._session = aiohttp.ClientSession(timeout=self._timeout, headers=self._headers)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._session is not None:
            await self._session.close()

    async def _post(self, path: str, body: dict | None) -> dict:
        if self._session is None:
            raise RuntimeError("use ServiceClient in `async with`")
        try:
            async with self._session.post(self.base + path, json=body) as response:
                if response.status in (401, 403):
                    raise KeyRejectedError((await response.json()).get("error", {}).get(
                        "message", "The API key was refused."))
                if response.status >= 300:
                    raise ServiceUnreachableError(f"the service answered {response.status}")
                return await response.json()
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise ServiceUnreachableError(f"cannot reach {self.base}: "
                                          f"{type(exc).__name__}") from None

    async def call(self, method: str, path: str, query: dict[str, str],
                   body: object) -> tuple[int, str]:
        """One tenant API operation: its status and JSON text (errors included; 401 is
        KeyRejectedError). Only what a tool's arguments name is sent."""
        if self._session is None:
            raise RuntimeError("use ServiceClient in `async with`")
        try:
            async with self._session.request(method, self.base + path, params=query or None,
                                             json=body) as response:
                text = await response.text()
                if response.status == 401:
                    raise KeyRejectedError(_message(text))
                return response.status, text
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ServiceUnreachableError(f"cannot reach {self.base}: "
                                          f"{type(exc).__name__}") from None

    async def validate_key(self) -> KeyInfo:
        """Ask the service which workspace and scopes the key has."""
        body = await self._post(VALIDATE_PATH, None)
        return KeyInfo(tenant_id=body["tenant_id"], key_id=body["key_id"],
                       scopes=frozenset(Scope(scope) for scope in body["scopes"]),
                       workspace_name=body.get("workspace", {}).get("name", ""))

    async def report_usage(self, counts: dict[str, int], start: datetime.datetime,
                           end: datetime.datetime) -> None:
        """Send tool-call counts of one period: tool names and numbers, nothing else."""
        await self._post(USAGE_PATH, {
            "period_start": start.isoformat(), "period_end": end.isoformat(),
            "counts": [{"tool": tool, "count": count} for tool, count in sorted(counts.items())]})
