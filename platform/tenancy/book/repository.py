"""The store of clients, policies and their audit rows: the port the use cases call, and its one
implementation in SQL.

`TenantRecords` is what a use case may ask of a tenant database inside its transaction;
`SqlTenantRecords` answers it with SQLAlchemy Core statements on a `RecordsConnection`: a
PostgreSQL connection of the direct pool (psycopg, `insureops.platform.data.direct`) or a SQLite
file's connection (`store.SqliteConnection`). Every method filters by tenant_id; none opens a
connection or commits. Refused writes raise ConstraintViolationError naming the field.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from contextlib import AbstractContextManager
from functools import cache
from typing import Any, Protocol

import sqlalchemy as sa

from insureops.platform.data.direct import Statement, insert, with_python_defaults
from insureops.platform.tenancy.book.payloads import ClientListQuery, PolicyListQuery
from insureops.schema.sql.tables import sa_table

Row = dict[str, Any]
ListQuery = ClientListQuery | PolicyListQuery


class TenantRecords(Protocol):
    """Clients, policies and audit rows of one tenant database, inside one transaction."""

    async def find(self, table: str, tenant_id: str, record_uuid: uuid.UUID, *,
                   lock: bool = False) -> Row | None:
        """The tenant's row whose public `uuid` is `record_uuid` (locked for the transaction
        with `lock`), or None."""

    async def client_id(self, tenant_id: str, reference: uuid.UUID) -> uuid.UUID | None:
        """The `id` of the tenant's client whose `id` or `uuid` is `reference` (by `id` first)."""

    async def record_id(self, table: str, tenant_id: str,
                        reference: uuid.UUID) -> uuid.UUID | None:
        """As `client_id`, for the clients or the policies table."""

    async def producer_exists(self, tenant_id: str, producer_id: uuid.UUID) -> bool:
        """Whether the tenant has a producer with that `id` (producers have no uuid)."""

    async def insert(self, table: str, values: Mapping[str, Any]) -> Row:
        """Insert one row; return it as stored."""

    async def update(self, table: str, record_id: uuid.UUID, values: Mapping[str, Any]) -> Row:
        """Write `values` to the row `record_id`; return it as stored."""

    async def page(self, table: str, tenant_id: str, query: ListQuery,
                   after: uuid.UUID | None) -> list[Row]:
        """Up to `query.limit` + 1 rows matching the query's filters in (created, id) order,
        after the row `after` when given."""

    async def audit(self, values: Mapping[str, Any]) -> None:
        """Append one audit_logs row."""

    async def find_by_id(self, table: str, tenant_id: str, record_id: uuid.UUID) -> Row | None:
        """The tenant's row whose `id` is `record_id` (tables without a public uuid), or None."""

    async def page_by(self, table: str, tenant_id: str, order: str,
                      equal: Mapping[str, Any], after: uuid.UUID | None,
                      limit: int) -> list[Row]:
        """Up to `limit` + 1 of the tenant's rows whose columns equal `equal`, in (`order`, id)
        order, after the row `after` when given (read-only listings: tasks, uw_scores)."""


class RecordsConnection(Protocol):
    """A connection `SqlTenantRecords` runs its statements on (rows come back as dicts of
    Python values converted by the columns' types)."""

    dialect: str  # "postgresql" or "sqlite": which flavour of INSERT ... ON CONFLICT to build

    async def first(self, statement: Statement | sa.Executable,
                    values: Mapping[str, Any]) -> Row | None: ...

    async def all(self, statement: Statement | sa.Executable, values: Mapping[str, Any], *,
                  convert: bool = True) -> list[Row]: ...

    async def one(self, statement: Statement | sa.Executable,
                  values: Mapping[str, Any]) -> Row: ...

    async def execute(self, statement: Statement | sa.Executable,
                      values: Mapping[str, Any]) -> None: ...

    def violations(self) -> AbstractContextManager[None]:
        """Refusals of the block's writes raised as ConstraintViolationError."""


# The hot statements are built and compiled once per table with bound parameters: building a
# statement and its cache key per call cost more than the work it does.

@cache
def _by_uuid(table_name: str, lock: bool) -> Statement:
    table = sa_table(table_name)
    query = sa.select(table).where(table.c.uuid == sa.bindparam("record_uuid"),
                                   table.c.tenant_id == sa.bindparam("tenant_id"))
    return Statement(query.with_for_update() if lock else query)


@cache
def _by_id(table_name: str) -> Statement:
    table = sa_table(table_name)
    return Statement(sa.select(table).where(table.c.id == sa.bindparam("record_id")))


@cache
def _exists(table_name: str) -> Statement:
    table = sa_table(table_name)
    return Statement(sa.select(sa.literal(1)).where(
        table.c.id == sa.bindparam("record_id"), table.c.tenant_id == sa.bindparam("tenant_id")))


@cache
def _record_ids(table_name: str) -> Statement:
    """The tenant's clients (or policies) whose `id` or `uuid` is `reference`, each with whether
    it matched by `id` (a policy names its client either way, a submission both)."""
    rows = sa_table(table_name)
    reference = sa.bindparam("reference", type_=rows.c.id.type)
    return Statement(sa.select(rows.c.id, (rows.c.id == reference).label("by_id")).where(
        rows.c.tenant_id == sa.bindparam("tenant_id"),
        sa.or_(rows.c.id == reference, rows.c.uuid == reference)))


def _client_conditions(query: ClientListQuery) -> list[sa.ColumnElement[bool]]:
    clients = sa_table("clients")
    conditions: list[sa.ColumnElement[bool]] = []
    if query.email is not None:
        conditions.append(sa.func.lower(clients.c.email) == query.email.lower())
    if query.name_contains:
        conditions.append(sa.func.lower(clients.c.name).contains(
            query.name_contains.lower(), autoescape=True))
    if query.country is not None:
        conditions.append(clients.c.country == query.country)
    return conditions + _created_range(clients, query)


def _created_range(table: sa.Table, query: ListQuery) -> list[sa.ColumnElement[bool]]:
    conditions = []
    if query.created_from is not None:
        conditions.append(table.c.created >= query.created_from)
    if query.created_to is not None:
        conditions.append(table.c.created < query.created_to)
    return conditions


def _policy_conditions(tenant_id: str, query: PolicyListQuery) -> list[sa.ColumnElement[bool]]:
    policies, clients = sa_table("policies"), sa_table("clients")
    conditions: list[sa.ColumnElement[bool]] = []
    for name in ("status", "line_of_business", "policy_number"):
        if getattr(query, name) is not None:
            conditions.append(policies.c[name] == getattr(query, name))
    if query.client_uuid is not None:
        conditions.append(policies.c.client_id == sa.select(clients.c.id).where(
            clients.c.uuid == query.client_uuid,
            clients.c.tenant_id == tenant_id).scalar_subquery())
    for column in ("start_date", "end_date"):
        low, high = getattr(query, f"{column}_from"), getattr(query, f"{column}_to")
        if low is not None:
            conditions.append(policies.c[column] >= low)
        if high is not None:
            conditions.append(policies.c[column] <= high)
    return conditions + _created_range(policies, query)


class SqlTenantRecords:
    """`TenantRecords` in SQL on one connection (its caller's transaction)."""

    def __init__(self, connection: RecordsConnection) -> None:
        self._connection = connection

    async def find(self, table: str, tenant_id: str, record_uuid: uuid.UUID, *,
                   lock: bool = False) -> Row | None:
        return await self._connection.first(_by_uuid(table, lock), {
            "record_uuid": record_uuid, "tenant_id": tenant_id})

    async def client_id(self, tenant_id: str, reference: uuid.UUID) -> uuid.UUID | None:
        return await self.record_id("clients", tenant_id, reference)

    async def record_id(self, table: str, tenant_id: str,
                        reference: uuid.UUID) -> uuid.UUID | None:
        rows = await self._connection.all(_record_ids(table), {"reference": reference,
                                                               "tenant_id": tenant_id})
        ordered = sorted(rows, key=lambda row: not row["by_id"])
        return ordered[0]["id"] if ordered else None

    async def producer_exists(self, tenant_id: str, producer_id: uuid.UUID) -> bool:
        return await self._connection.first(_exists("producers"), {
            "record_id": producer_id, "tenant_id": tenant_id}) is not None

    async def insert(self, table: str, values: Mapping[str, Any]) -> Row:
        # No savepoint: on a refusal the use case abandons its whole transaction.
        values = with_python_defaults(sa_table(table), values)
        with self._connection.violations():
            return await self._connection.one(insert(sa_table(table), frozenset(values),
                                                     returning=True), values)

    async def update(self, table: str, record_id: uuid.UUID, values: Mapping[str, Any]) -> Row:
        columns = sa_table(table)
        statement = (sa.update(columns).where(columns.c.id == record_id).values(**values)
                     .returning(columns.c.id))
        with self._connection.violations():  # a result read inside: a refusal is raised here
            await self._connection.one(statement, {})
        # read again, not RETURNING *: SQLite's triggers set `modified` after the row returns
        return await self._connection.one(_by_id(table), {"record_id": record_id})

    async def page(self, table: str, tenant_id: str, query: ListQuery,
                   after: uuid.UUID | None) -> list[Row]:
        # The position is the cursor row's own stored values (a subquery), so no timestamp
        # ever round-trips through text and the order is exact on both engines.
        columns = sa_table(table)
        conditions = (_client_conditions(query) if isinstance(query, ClientListQuery)
                      else _policy_conditions(tenant_id, query))
        statement = sa.select(columns).where(columns.c.tenant_id == tenant_id, *conditions)
        if after is not None:
            anchor = (sa.select(columns.c.created, columns.c.id)
                      .where(columns.c.id == after, columns.c.tenant_id == tenant_id).subquery())
            anchor_created = sa.select(anchor.c.created).scalar_subquery()
            statement = statement.where(sa.or_(
                columns.c.created > anchor_created,
                sa.and_(columns.c.created == anchor_created, columns.c.id > after)))
        statement = statement.order_by(columns.c.created, columns.c.id).limit(query.limit + 1)
        return await self._connection.all(statement, {})

    async def audit(self, values: Mapping[str, Any]) -> None:
        table = sa_table("audit_logs")
        values = with_python_defaults(table, values)
        await self._connection.execute(insert(table, frozenset(values)), values)

    async def find_by_id(self, table: str, tenant_id: str, record_id: uuid.UUID) -> Row | None:
        columns = sa_table(table)
        return await self._connection.first(sa.select(columns).where(
            columns.c.id == record_id, columns.c.tenant_id == tenant_id), {})

    async def page_by(self, table: str, tenant_id: str, order: str,
                      equal: Mapping[str, Any], after: uuid.UUID | None,
                      limit: int) -> list[Row]:
        columns = sa_table(table)
        statement = sa.select(columns).where(
            columns.c.tenant_id == tenant_id,
            *(columns.c[name] == value for name, value in equal.items()))
        if after is not None:  # the cursor row's stored values, as page() does
            anchor = (sa.select(columns.c[order]).where(columns.c.id == after,
                                                         columns.c.tenant_id == tenant_id)
                      .scalar_subquery())
            statement = statement.where(sa.or_(
                columns.c[order] > anchor,
                sa.and_(columns.c[order] == anchor, columns.c.id > after)))
        statement = statement.order_by(columns.c[order], columns.c.id).limit(limit + 1)
        return await self._connection.all(statement, {})
