"""What one instance remembers of recently used API keys: each key's row (scopes, expiry,
revocation and its workspace's saved tenant database token) for a bounded number of seconds.

A request whose key was read less than `seconds` ago sends nothing to the platform database.
Expiry is still checked on every request against the clock; a change made through this instance
(a key revoked, a connection saved) forgets everything at once; a change made through another
instance, or by `insureops rotate-keys`, is seen within `seconds` (docs/mcp.md). Unknown keys
are never remembered: a new key works at once everywhere, and guessing cannot fill the cache.
While rows are remembered, the requests of one key that miss at the same moment (a burst of its
first requests) share one read: one connection of the platform database, not one each.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Row = Mapping[str, Any]


class ApiKeyCache:
    """Key rows by key hash, each for `seconds` (0: nothing is kept), at most `max_keys`."""

    def __init__(self, seconds: float, *, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.max_keys = max_keys
        self._clock = clock
        self._rows: dict[str, tuple[float, Mapping[str, Any]]] = {}
        self._reading: dict[str, asyncio.Future[Row | None]] = {}

    def get(self, key_hash: str) -> Mapping[str, Any] | None:
        """The row read less than `seconds` ago, or None (read it again)."""
        found = self._rows.get(key_hash)
        if found is None:
            return None
        if self._clock() >= found[0]:
            del self._rows[key_hash]
            return None
        return found[1]

    async def read_through(self, key_hash: str,
                           read: Callable[[], Awaitable[Row | None]]) -> Row | None:
        """The row remembered, else the one `read()` finds (remembered when there is one). With
        `seconds` 0 every call reads; otherwise calls missing the same key at once share one
        read (each caller's cancellation leaves it running for the others)."""
        row = self.get(key_hash)
        if row is not None:
            return row
        if self.seconds <= 0:
            return await read()
        pending = self._reading.get(key_hash)
        if pending is None:
            pending = asyncio.ensure_future(self._read_and_keep(key_hash, read))
            self._reading[key_hash] = pending
            pending.add_done_callback(lambda done: self._finished(key_hash, done))
        row = await asyncio.shield(pending)
        return None if row is None else self.get(key_hash) or row

    async def _read_and_keep(self, key_hash: str,
                             read: Callable[[], Awaitable[Row | None]]) -> Row | None:
        row = await read()
        if row is not None:
            self.put(key_hash, row)
        return row

    def _finished(self, key_hash: str, done: asyncio.Future[Row | None]) -> None:
        if self._reading.get(key_hash) is done:
            del self._reading[key_hash]
        if not done.cancelled():
            done.exception()  # retrieved: its callers were told (or all left)

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
