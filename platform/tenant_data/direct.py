"""The tenant API's hottest use cases, get by uuid and create, on PostgreSQL through the direct
pool (`insureops.platform.direct_sql`): the steps, statements, checks and audit row of
`service.get` and `service.create`, awaited on psycopg instead of run on SQLAlchemy's
connection. `TenantStore.run` takes them as the `direct` form of those use cases.
"""

from __future__ import annotations

import uuid
from typing import Any

from insureops.platform.direct_sql import DirectConnection, insert, prepared, with_python_defaults
from insureops.platform.tenant_data import repository, service
from insureops.platform.tenant_data.errors import PayloadInvalidError
from insureops.platform.tenant_data.payloads import SchemaPayload
from insureops.platform.tenant_data.records import to_columns, to_json
from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.violations import translated_violations


async def get(connection: DirectConnection, kind: service.Kind, tenant_id: str,
              record_uuid: uuid.UUID) -> dict[str, Any]:
    """`service.get`: the tenant's record with that uuid; RecordMissingError otherwise."""
    row = await connection.first(prepared(repository.select_by_uuid(kind.table)),
                                 {"record_uuid": record_uuid, "tenant_id": tenant_id})
    if row is None:
        raise service.missing_record(kind, record_uuid)
    return to_json(row)


async def _resolve_references(connection: DirectConnection, tenant_id: str,
                              values: dict) -> None:
    client, producer = values.get("client_id"), values.get("producer_id")
    client_found = None
    if client is not None:
        client_found = repository.pick_client_id(await connection.all(
            prepared(repository.select_client_ids()), {"reference": client, "tenant_id": tenant_id}))
    producer_found = producer is not None and await connection.first(
        prepared(repository.select_exists("producers")),
        {"record_id": producer, "tenant_id": tenant_id}) is not None
    missing = service.reference_errors(values, client_found, producer_found)
    if missing:
        raise PayloadInvalidError("The request body is invalid.", missing)


async def _insert(connection: DirectConnection, table_name: str, values: dict[str, Any], *,
                  returning: bool) -> dict[str, Any] | None:
    table = sa_table(table_name)
    values = with_python_defaults(table, values)
    statement = insert(table, frozenset(values), returning=returning)
    if returning:
        return await connection.one(statement, values)
    await connection.execute(statement, values)
    return None


async def create(connection: DirectConnection, kind: service.Kind, tenant_id: str,
                 actor: service.Actor, payload: SchemaPayload) -> dict[str, Any]:
    """`service.create`: insert the record, audit it in the same transaction, return it."""
    values = to_columns(kind.table, payload.values)
    if kind is service.POLICY:
        await _resolve_references(connection, tenant_id, values)
    try:
        with translated_violations():
            row = await _insert(connection, kind.table,
                                {**values, "tenant_id": tenant_id, "id": uuid.uuid4()},
                                returning=True)
    except ConstraintViolationError as exc:  # the transaction is rolled back with the error
        raise service.violation_error(exc) from None
    assert row is not None
    record = to_json(row)
    await _insert(connection, "audit_logs", service.audit_values(
        tenant_id, actor, "create", kind, row["id"], None, record), returning=False)
    return record
