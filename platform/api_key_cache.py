"""What one instance remembers of recently used API keys: each key's row (scopes, expiry,
revocation and its workspace's saved tenant database token) for a bounded number of seconds.

A request whose key was read less than `seconds` ago sends nothing to the platform database.
Expiry is still checked on every request against the clock; a change made through this instance
(a key revoked, a connection saved) forgets everything at once; a change made through another
instance, or by `insureops rotate-keys`, is seen within `seconds` (docs/mcp.md). Unknown keys
are never remembered: a new key works at once everywhere, and guessing cannot fill the cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any


class ApiKeyCache:
    """Key rows by key hash, each for `seconds` (0: nothing is kept), at most `max_keys`."""

    def __init__(self, seconds: float, *, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.max_keys = max_keys
        self._clock = clock
        self._rows: dict[str, tuple[float, Mapping[str, Any]]] = {}

    def get(self, key_hash: str) -> Mapping[str, Any] | None:
        """The row read less than `seconds` ago, or None (read it again)."""
        found = self._rows.get(key_hash)
        if found is None:
            return None
        if self._clock() >= found[0]:
            del self._rows[key_hash]
            return None
        return found[1]

    def put(self, key_hash: str, row: Mapping[str, Any]) -> None:
        if self.seconds <= 0:
            return
        if len(self._rows) >= self.max_keys:
            self._rows.clear()  # bounded; the next requests read their keys again
        self._rows[key_hash] = (self._clock() + self.seconds, row)

    def update(self, key_hash: str, **values: Any) -> None:
        """Change a remembered row in place (its expiry stays), e.g. after `last_used_at` moved."""
        found = self._rows.get(key_hash)
        if found is not None:
            self._rows[key_hash] = (found[0], {**found[1], **values})

    def forget_all(self) -> None:
        """After a key or a saved connection changed through this instance."""
        self._rows.clear()
