"""PostgreSQL statements sent through psycopg directly, on a pool per database: how the service
reaches a PostgreSQL tenant database (every use case on clients and policies, the hot routes'
get by uuid and create among them).

SQLAlchemy still compiles the SQL (a Core statement, once), converts the values (the columns'
own processors, the dialect's psycopg adapters) and names the errors (raised as the DBAPIError
it would raise), so tables keep one definition and callers one error handling; its per-call
execution context, result objects and greenlet-adapted pool are skipped (docs/mcp.md, "The
direct path"). The pool connects lazily and keeps the engine's bounds: size, pool wait, connect
and round-trip timeouts; a connection found dead before COMMIT is replaced by a new one and the
work run once more, one lost once COMMIT was sent is CommitOutcomeUnknownError (the one retry
policy, `insureops.platform.data.retry`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, TypeVar

import psycopg
import sqlalchemy as sa
from psycopg.pq import TransactionStatus
from sqlalchemy.engine import URL, make_url

from insureops.platform.data.bounded_connection import BoundedConnection
from insureops.platform.data.retry import CommitOutcomeUnknownError, once_more_on_a_new_connection
from insureops.schema.sql.violations import translated_violations

T = TypeVar("T")

# The psycopg dialect every direct statement is compiled for and converted with; its connect
# arguments carry the same psycopg adapters SQLAlchemy's own connections use.
DIALECT = sa.create_engine("postgresql+psycopg://").dialect

Processor = Callable[[Any], Any] | None

# Called with the pool and each statement's SQL before it is sent, on every pool: the profile
# and the tests count round trips with it, as SQLAlchemy's before_cursor_execute does for its
# engines. Empty in the service.
OBSERVERS: list[Callable[[DirectPool, str], None]] = []


def _bind_processor(type_: sa.types.TypeEngine) -> Processor:
    return type_.dialect_impl(DIALECT).bind_processor(DIALECT)


class Statement:
    """A Core statement compiled once for psycopg: its SQL, its parameters' conversions and (from
    its first run) its result columns' conversions."""

    def __init__(self, statement: sa.Executable) -> None:
        compiled = statement.compile(dialect=DIALECT)
        self.statement = statement  # the Core statement (another backend executes it as is)
        self._compiled = compiled
        self.sql: str = compiled.string
        escaped = compiled.escaped_bind_names
        self._binds = tuple((escaped.get(name, name), processor)
                            for bind, name in compiled.bind_names.items()
                            if (processor := _bind_processor(bind.type)) is not None)
        columns = getattr(statement, "exported_columns", ())
        self._keys = tuple(column.key for column in columns)
        self._types = tuple(column.type for column in columns)
        self._readers: tuple[Processor, ...] | None = None

    def parameters(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The driver's parameters for `values` (keyed by bind name), converted as SQLAlchemy
        converts them."""
        params = self._compiled.construct_params(values)
        for name, processor in self._binds:
            params[name] = processor(params[name])
        return params

    def row(self, description: Sequence[psycopg.Column], values: Sequence[Any]) -> dict[str, Any]:
        """A result row as {column key: value}, converted by the columns' result processors."""
        readers = self._readers
        if readers is None:
            if len(description) != len(self._keys):
                raise RuntimeError(f"{len(description)} result columns for {len(self._keys)} "
                                   "declared ones")
            readers = self._readers = tuple(
                type_.dialect_impl(DIALECT).result_processor(DIALECT, column.type_code)
                for type_, column in zip(self._types, description, strict=True))
        return {key: reader(value) if reader is not None else value
                for key, reader, value in zip(self._keys, readers, values, strict=True)}


@lru_cache(maxsize=64)
def _python_defaults(table: sa.Table) -> tuple[tuple[str, Any, bool], ...]:
    """(key, scalar or callable, whether callable) of each column with a Python-side default."""
    found = []
    for column in table.columns:
        default = column.default
        if isinstance(default, sa.ColumnDefault) and (default.is_scalar or default.is_callable):
            found.append((column.key, default.arg, default.is_callable))
    return tuple(found)


def with_python_defaults(table: sa.Table, values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` plus the Python-side defaults of the columns it leaves out (SQLAlchemy's
    execution fills them in; a direct INSERT must too). Server defaults stay the server's."""
    result = dict(values)
    for key, default, is_callable in _python_defaults(table):
        if key not in result:
            result[key] = default(None) if is_callable else default
    return result


def compiled(statement: Statement | sa.Executable) -> Statement:
    """A Statement as it is; a Core statement compiled now, for this call only (one built per
    call, e.g. a listing's filters, would only churn the cache of `prepared`)."""
    return statement if isinstance(statement, Statement) else Statement(statement)


@lru_cache(maxsize=256)
def prepared(statement: sa.Executable) -> Statement:
    """The Statement of a Core statement built once (a module's cached statement objects)."""
    return Statement(statement)


@lru_cache(maxsize=512)
def insert(table: sa.Table, keys: frozenset[str], *, returning: bool = False) -> Statement:
    """INSERT of exactly the columns `keys` (a create sends only the fields it was given, the
    server fills in the rest), RETURNING the whole stored row when `returning`."""
    statement = sa.insert(table).values({name: sa.bindparam(name, type_=table.c[name].type)
                                         for name in sorted(keys)})
    # inline: no implicit RETURNING of a server-made primary key nobody reads
    return Statement(statement.returning(*table.c) if returning else statement.inline())


def _error(exc: psycopg.Error, statement: str, params: object,
           connection: psycopg.AsyncConnection) -> sa.exc.DBAPIError:
    return sa.exc.DBAPIError.instance(
        statement, params, exc, psycopg.Error, dialect=DIALECT,
        connection_invalidated=bool(connection.closed or connection.broken))


class DirectConnection:
    """One checked-out connection, as the work of `DirectPool.run` sees it."""

    dialect = "postgresql"

    def __init__(self, connection: psycopg.AsyncConnection, pool: DirectPool) -> None:
        self._connection = connection
        self._pool = pool
        self.committing = False  # COMMIT sent: a failure from here on is never retried

    @property
    def info(self) -> psycopg.ConnectionInfo:
        """What the connection is connected to (host, address, server process)."""
        return self._connection.info

    async def _execute(self, sql: str, params: object) -> psycopg.AsyncCursor:
        for observe in OBSERVERS:
            observe(self._pool, sql)
        try:
            return await self._connection.execute(sql, params)
        except psycopg.Error as exc:
            raise _error(exc, sql, params, self._connection) from exc

    async def _rows(self, statement: Statement | sa.Executable, values: Mapping[str, Any],
                    limit: int | None, convert: bool = True) -> list[dict[str, Any]]:
        statement = compiled(statement)
        params = statement.parameters(values)
        cursor = await self._execute(statement.sql, params)
        try:
            rows = await (cursor.fetchall() if limit is None else cursor.fetchmany(limit))
        except psycopg.Error as exc:
            raise _error(exc, statement.sql, params, self._connection) from exc
        description = cursor.description  # psycopg builds it anew on each access
        if not convert:
            names = [column.name for column in description]
            return [dict(zip(names, row, strict=True)) for row in rows]
        return [statement.row(description, row) for row in rows]

    async def first(self, statement: Statement | sa.Executable,
                    values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The statement's first row (converted), or None."""
        rows = await self._rows(statement, values, 1)
        return rows[0] if rows else None

    async def all(self, statement: Statement | sa.Executable, values: Mapping[str, Any], *,
                  convert: bool = True) -> list[dict[str, Any]]:
        """Every row of the statement (converted; `convert=False`: the driver's values, keyed
        by column name, for a caller that converts them itself off the loop: a book run's
        pages, two thousand rows of every column)."""
        return await self._rows(statement, values, None, convert)

    async def one(self, statement: Statement | sa.Executable,
                  values: Mapping[str, Any]) -> dict[str, Any]:
        row = await self.first(statement, values)
        if row is None:
            raise sa.exc.NoResultFound("the statement returned no row")
        return row

    async def execute(self, statement: Statement | sa.Executable,
                      values: Mapping[str, Any]) -> None:
        """Run a statement that returns no rows."""
        statement = compiled(statement)
        await self._execute(statement.sql, statement.parameters(values))

    def violations(self) -> AbstractContextManager[None]:
        """Refusals of the block's writes as ConstraintViolationError (PostgreSQL names the
        constraint, so no look-up on the connection is needed)."""
        return translated_violations()

    async def command(self, sql: str) -> None:
        """Transaction control (BEGIN, COMMIT, ROLLBACK)."""
        await self._execute(sql, None)


def connect_arguments(url: str | URL) -> dict[str, Any]:
    """psycopg's connect keywords for a postgresql URL, as SQLAlchemy's dialect makes them."""
    _, kwargs = DIALECT.create_connect_args(make_url(url))
    return kwargs


class DirectPool:
    """At most `max_size` autocommit psycopg connections to one PostgreSQL database."""

    def __init__(self, url: str | URL, *, max_size: int = 5, pool_timeout: float = 5.0,
                 connect_timeout: float = 3.0, round_trip_timeout: float | None = 15.0,
                 hostaddr: str | None = None) -> None:
        self._kwargs = connect_arguments(url)
        self._kwargs.update(autocommit=True, connect_timeout=max(1, round(connect_timeout)))
        if hostaddr is not None:
            self._kwargs["hostaddr"] = hostaddr
        self._round_trip_timeout = round_trip_timeout
        self._pool_timeout = pool_timeout
        self._idle: list[BoundedConnection] = []
        self._slots = asyncio.Semaphore(max_size)
        self._closed = False
        self.database: str = self._kwargs.get("dbname") or ""  # for observers

    async def run(self, work: Callable[[DirectConnection], Awaitable[T]], *,
                  transaction: bool) -> T:
        """`work` on a pooled connection: in one transaction (BEGIN ... COMMIT) when
        `transaction`, else each statement on its own (autocommit, for reads).

        A connection found dead before COMMIT is sent is replaced by a new one (not another
        pooled one, which a database restart killed too) and `work` runs once more: nothing of
        it was committed. One lost from the moment COMMIT is sent raises
        CommitOutcomeUnknownError and `work` never runs again: the COMMIT may have been applied.

        A transaction runs in psycopg's pipeline mode: BEGIN leaves with the first statement
        whose result `work` reads, and COMMIT with the statements after the last one (a create
        is two round trips, not four). A dead connection is therefore found before COMMIT when
        `work` reads a result first, as every use case on this path does."""
        return await once_more_on_a_new_connection(
            lambda new: self._attempt(work, transaction=transaction, new=new))

    async def _attempt(self, work: Callable[[DirectConnection], Awaitable[T]], *,
                       transaction: bool, new: bool) -> T:
        connection = await self._acquire(new=new)
        direct = DirectConnection(connection, self)
        try:
            if not transaction:
                return await work(direct)
            return await self._transaction(connection, direct, work)
        except sa.exc.DBAPIError as exc:
            if direct.committing and exc.connection_invalidated:
                raise CommitOutcomeUnknownError.after(exc) from exc
            raise
        finally:
            await self._release(connection)

    @staticmethod
    async def _transaction(connection: BoundedConnection, direct: DirectConnection,
                           work: Callable[[DirectConnection], Awaitable[T]]) -> T:
        try:
            async with connection.pipeline():
                await direct.command("BEGIN")
                result = await work(direct)
                direct.committing = True
                await direct.command("COMMIT")
        except psycopg.Error as exc:  # raised by the pipeline's last sync (the COMMIT's)
            raise _error(exc, "COMMIT", None, connection) from exc
        return result

    async def _acquire(self, *, new: bool = False) -> BoundedConnection:
        if self._closed:
            raise sa.exc.InvalidRequestError("the pool is closed")
        if self._slots.locked():
            try:
                async with asyncio.timeout(self._pool_timeout):
                    await self._slots.acquire()
            except TimeoutError:
                raise sa.exc.TimeoutError(
                    f"no free connection within {self._pool_timeout} s") from None
        else:
            await self._slots.acquire()
        try:
            while self._idle and not new:
                connection = self._idle.pop()
                if not connection.closed:
                    return connection
            connection = await BoundedConnection.connect(**self._kwargs)
            connection.round_trip_timeout = self._round_trip_timeout
            return connection
        except psycopg.Error as exc:
            self._slots.release()
            raise sa.exc.OperationalError(None, None, exc) from exc
        except BaseException:
            self._slots.release()
            raise

    async def _release(self, connection: BoundedConnection) -> None:
        """Back to the pool if it is usable and idle; an open transaction (the work raised) is
        rolled back first; anything else is closed."""
        try:
            if not connection.closed and not self._closed:
                status = connection.info.transaction_status
                if status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
                    try:
                        await connection.execute("ROLLBACK")
                    except psycopg.Error:  # a cancellation closes it (BoundedConnection)
                        pass
                    status = connection.info.transaction_status
                if status == TransactionStatus.IDLE and not connection.broken:
                    self._idle.append(connection)
                    return
            await connection.close()
        finally:
            self._slots.release()

    async def close(self) -> None:
        """Close the idle connections; those checked out are closed when returned."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()
