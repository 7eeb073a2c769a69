"""Tool-call counting of the local server, reported to the service in batches (billing only)."""

from __future__ import annotations

import datetime
import logging
from collections import Counter
from collections.abc import Callable

from insureops.platform.mcp_server.service_client import (
    KeyRejectedError,
    ServiceClient,
    ServiceUnreachableError,
)

logger = logging.getLogger("insureops.mcp_server.usage")


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class UsageBatcher:
    """Counts calls per tool; `flush` sends the counts since the last successful report."""

    def __init__(self, client: ServiceClient,
                 clock: Callable[[], datetime.datetime] = _utc_now) -> None:
        self._client = client
        self._clock = clock
        self._counts: Counter[str] = Counter()
        self._since = clock()

    def count(self, tool: str) -> None:
        self._counts[tool] += 1

    @property
    def pending(self) -> dict[str, int]:
        return dict(self._counts)

    async def flush(self) -> bool:
        """Report the pending counts; on failure keep them for the next flush. True if sent."""
        if not self._counts:
            return True
        counts, since, now = dict(self._counts), self._since, self._clock()
        try:
            await self._client.report_usage(counts, since, now)
        except (ServiceUnreachableError, KeyRejectedError) as exc:
            logger.warning("usage report not sent (kept for the next one): %s", exc)
            return False
        self._counts.subtract(counts)
        self._counts = +self._counts  # drop zeros; calls counted meanwhile stay
        self._since = now
        return True
