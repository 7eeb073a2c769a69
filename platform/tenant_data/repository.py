"""SQLAlchemy Core queries on the clients, policies, producers and audit_logs tables.

Every function receives an open Connection (inside the caller's transaction) and filters by
tenant_id; none opens a connection or commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import sqlalchemy as sa

from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.violations import translated_violations

# The hot statements are built once per table with bound parameters: building a statement and
# its cache key per call cost more than compiling (which SQLAlchemy caches anyway).

@cache
def select_by_uuid(table_name: str) -> sa.Select:
    table = sa_table(table_name)
    return sa.select(table).where(table.c.uuid == sa.bindparam("record_uuid"),
                                  table.c.tenant_id == sa.bindparam("tenant_id"))


@cache
def _insert_returning(table_name: str) -> sa.Insert:
    table = sa_table(table_name)
    return sa.insert(table).returning(*table.c)


@cache
def _insert(table_name: str) -> sa.Insert:
    return sa.insert(sa_table(table_name))


def find_by_uuid(connection: sa.Connection, table_name: str, tenant_id: str,
                 record_uuid: uuid.UUID) -> dict[str, Any] | None:
    """The row whose public `uuid` is `record_uuid` in the tenant, or None."""
    row = connection.execute(select_by_uuid(table_name),
                             {"record_uuid": record_uuid, "tenant_id": tenant_id}).first()
    return dict(row._mapping) if row else None


def find_by_id(connection: sa.Connection, table_name: str, tenant_id: str,
               record_id: uuid.UUID) -> dict[str, Any] | None:
    table = sa_table(table_name)
    row = connection.execute(sa.select(table).where(
        table.c.id == record_id, table.c.tenant_id == tenant_id)).first()
    return dict(row._mapping) if row else None


@cache
def select_exists(table_name: str) -> sa.Select:
    table = sa_table(table_name)
    return sa.select(sa.literal(1)).where(table.c.id == sa.bindparam("record_id"),
                                          table.c.tenant_id == sa.bindparam("tenant_id"))


@cache
def select_client_ids() -> sa.Select:
    """The tenant's clients whose `id` or `uuid` is `reference`, each with whether it matched by
    `id` (a policy names its client either way)."""
    clients = sa_table("clients")
    reference = sa.bindparam("reference", type_=clients.c.id.type)
    return sa.select(clients.c.id, (clients.c.id == reference).label("by_id")).where(
        clients.c.tenant_id == sa.bindparam("tenant_id"),
        sa.or_(clients.c.id == reference, clients.c.uuid == reference))


def pick_client_id(rows: Sequence[Mapping[str, Any]]) -> uuid.UUID | None:
    """Of `select_client_ids`' rows, the one matched by `id` first."""
    ordered = sorted(rows, key=lambda row: not row["by_id"])
    return ordered[0]["id"] if ordered else None


def exists(connection: sa.Connection, table_name: str, tenant_id: str,
           record_id: uuid.UUID) -> bool:
    """Whether the tenant has a row with primary key `record_id` in `table_name`."""
    return connection.execute(select_exists(table_name),
                              {"record_id": record_id, "tenant_id": tenant_id}).first() is not None


def client_id_of(connection: sa.Connection, tenant_id: str,
                 reference: uuid.UUID) -> uuid.UUID | None:
    """The `id` of the tenant's client whose `id` or `uuid` is `reference` (by `id` first)."""
    rows = connection.execute(select_client_ids(), {"reference": reference, "tenant_id": tenant_id})
    return pick_client_id([row._mapping for row in rows])


def insert_returning(connection: sa.Connection, table_name: str,
                     values: Mapping[str, Any]) -> dict[str, Any]:
    """Insert one row and return it as stored (RETURNING: one round trip). No savepoint: on a
    refusal (ConstraintViolationError) the caller abandons its whole transaction."""
    with translated_violations(connection):
        row = connection.execute(_insert_returning(table_name),
                                 {**values, "id": uuid.uuid4()}).one()
    return dict(row._mapping)


def update(connection: sa.Connection, table_name: str, record_id: uuid.UUID,
           values: Mapping[str, Any]) -> None:
    """Write `values` to the row `record_id` (refusals as ConstraintViolationError)."""
    if not values:
        return
    table = sa_table(table_name)
    with connection.begin_nested(), translated_violations(connection):
        connection.execute(sa.update(table).where(table.c.id == record_id).values(**values))


def client_id_subquery(tenant_id: str, client_uuid: uuid.UUID) -> sa.ScalarSelect:
    """The id of the tenant's client with that uuid, as a scalar subquery (for filters)."""
    clients = sa_table("clients")
    return (sa.select(clients.c.id)
            .where(clients.c.uuid == client_uuid, clients.c.tenant_id == tenant_id)
            .scalar_subquery())


def page(connection: sa.Connection, table_name: str, tenant_id: str,
         conditions: Sequence[sa.ColumnElement[bool]], limit: int,
         after: uuid.UUID | None) -> list[dict[str, Any]]:
    """Up to `limit` + 1 rows in (created, id) order, after the row `after` when given.

    The position is the cursor row's own stored values (a subquery), so no timestamp ever
    round-trips through text and the order is exact on both engines.
    """
    table = sa_table(table_name)
    query = sa.select(table).where(table.c.tenant_id == tenant_id, *conditions)
    if after is not None:
        anchor = (sa.select(table.c.created, table.c.id)
                  .where(table.c.id == after, table.c.tenant_id == tenant_id).subquery())
        anchor_created = sa.select(anchor.c.created).scalar_subquery()
        query = query.where(sa.or_(
            table.c.created > anchor_created,
            sa.and_(table.c.created == anchor_created, table.c.id > after)))
    query = query.order_by(table.c.created, table.c.id).limit(limit + 1)
    return [dict(row._mapping) for row in connection.execute(query)]


def insert_audit(connection: sa.Connection, values: Mapping[str, Any]) -> None:
    """Append one audit_logs row."""
    connection.execute(_insert("audit_logs"), dict(values))
