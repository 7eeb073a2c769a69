"""psycopg connections bounded in time: every round trip to the server ends within a set number
of seconds, and a round trip cancelled from outside closes its connection at once. Every
PostgreSQL engine and pool of the service makes its connections here (issue 17's fault tests).
"""

from __future__ import annotations

import asyncio

import psycopg
import psycopg.waiting

# psycopg's exception for a wait that outlived its timeout (internal to psycopg, an
# OperationalError subclass).
_WAIT_TIMEOUT = getattr(psycopg.errors, "_WaitTimeout", psycopg.errors.OperationalError)


class BoundedConnection(psycopg.AsyncConnection):
    """A psycopg connection whose every round trip to the server ends within `round_trip_timeout`
    seconds; past it the connection is closed (SQLAlchemy then discards it from the pool) and
    OperationalError is raised, which the service answers 503.

    A round trip cancelled from outside (a request's deadline) closes the connection at once:
    psycopg would first send a cancel request over a new connection and wait for the answer,
    which on a stalled server added up to 10 s to every deadline.
    """

    round_trip_timeout: float | None = None

    async def wait(self, gen, interval: float = 0.1, timeout: float | None = None):  # type: ignore[override]
        if timeout is not None:  # the caller's own bound (e.g. notifies): its own handling
            return await super().wait(gen, interval, timeout)
        try:
            return await psycopg.waiting.wait_async(
                gen, self.pgconn.socket, interval=interval, timeout=self.round_trip_timeout)
        except _WAIT_TIMEOUT:
            await self.close()
            raise psycopg.OperationalError(
                f"the database did not answer within {self.round_trip_timeout} s") from None
        except asyncio.CancelledError:
            await self.close()
            raise


def bounded_connector(timeout: float):
    """`async_creator_fn` of SQLAlchemy's psycopg dialect making BoundedConnections."""
    async def connect(*args, **kwargs) -> BoundedConnection:
        connection = await BoundedConnection.connect(*args, **kwargs)
        connection.round_trip_timeout = timeout
        return connection
    return connect
