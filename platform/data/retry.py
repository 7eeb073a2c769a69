"""The one retry policy of every store: work that failed on a dead connection before anything
was committed runs once more, on a new connection; work whose COMMIT was lost never runs again.

A pooled connection the server closed (a restart, an idle kill) is found on its first use, not by
a ping before each use (a round trip per checkout): the statement fails, nothing of the work was
committed, and running it again on a new connection is safe. Once COMMIT has been sent, a lost
connection leaves the outcome unknown, so the work is never run twice (docs/mcp.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import sqlalchemy as sa

T = TypeVar("T")


class CommitOutcomeUnknownError(sa.exc.OperationalError):
    """The connection was lost once COMMIT had been sent: the server may have committed the
    transaction or not, and nobody can tell which (docs/mcp.md). Never retried, as running the
    work again could do it twice; a 503 like any lost connection."""

    @classmethod
    def after(cls, lost: sa.exc.DBAPIError) -> CommitOutcomeUnknownError:
        return cls("COMMIT", None, lost.orig, connection_invalidated=True)


def is_retryable(exc: BaseException) -> bool:
    """Whether `exc` says the connection died with nothing of the work committed."""
    return (isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated
            and not isinstance(exc, CommitOutcomeUnknownError))


async def once_more_on_a_new_connection(attempt: Callable[[bool], Awaitable[T]]) -> T:
    """`attempt(False)`, and when it fails on a dead connection with nothing committed,
    `attempt(True)` (True: take a new connection, not another pooled one, which a database
    restart killed too). Any other failure, and the second attempt's, propagates."""
    try:
        return await attempt(False)
    except sa.exc.DBAPIError as exc:
        if not is_retryable(exc):
            raise
    return await attempt(True)
