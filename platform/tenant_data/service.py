"""Use cases on clients and policies: create, get, list, update, each audited in one transaction.

Functions take an open Connection inside the caller's transaction (TenantStore.run gives one):
the write and its audit_logs row commit together or not at all. `tenant_id` always comes from
the caller's credentials, never from a payload (the schemas do not even accept it).
"""

from __future__ import annotations

import ipaddress
import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from insureops.platform.tenant_data import repository
from insureops.platform.tenant_data.cursor import decode_cursor, encode_cursor
from insureops.platform.tenant_data.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
    TransitionRefusedError,
)
from insureops.platform.tenant_data.payloads import (
    ClientListQuery,
    PolicyListQuery,
    SchemaPayload,
)
from insureops.platform.tenant_data.records import to_columns, to_json
from insureops.schema.errors import ConstraintViolationError, InvalidTransitionError
from insureops.schema.sql.status import update_status
from insureops.schema.sql.tables import sa_table


@dataclass(frozen=True)
class Actor:
    """Who writes, for the audit trail: the API key and how it called (HTTP request or tool)."""

    key_id: str
    method: str | None = None  # HTTP method, or "MCP" for a local tool call
    path: str | None = None  # request path, or the tool name
    ip_address: str | None = None
    user_agent: str | None = None


@dataclass(frozen=True)
class Kind:
    """One resource the API serves: its table and names."""

    table: str
    entity_type: str


CLIENT = Kind("clients", "client")
POLICY = Kind("policies", "policy")


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    next_cursor: str | None


def audit_values(tenant_id: str, actor: Actor, action: str, kind: Kind, record_id: uuid.UUID,
                 old: dict | None, new: dict | None) -> dict[str, Any]:
    """The audit_logs row of one write (`old` and `new` as the API returns the record)."""
    try:
        actor_uuid = uuid.UUID(actor.key_id)
    except ValueError:
        actor_uuid = None
    try:
        address = str(ipaddress.ip_address(actor.ip_address)) if actor.ip_address else None
    except ValueError:
        address = None
    return {
        "tenant_id": tenant_id, "action": action, "entity_type": kind.entity_type,
        "entity_id": record_id, "actor_id": actor_uuid,
        "actor_email": f"api-key:{actor.key_id}"[:255], "ip_address": address,
        "user_agent": actor.user_agent, "request_method": (actor.method or "")[:10] or None,
        "request_path": actor.path, "old_values": old, "new_values": new}


def _audit(connection: sa.Connection, tenant_id: str, actor: Actor, action: str, kind: Kind,
           record_id: uuid.UUID, old: dict | None, new: dict | None) -> None:
    repository.insert_audit(connection, audit_values(tenant_id, actor, action, kind, record_id,
                                                     old, new))


def violation_error(exc: ConstraintViolationError) -> Exception:
    """The API's answer to a refused write: 409 for a duplicate, 400 otherwise."""
    detail = [{"field": exc.field or "body", "message": exc.message}]
    if exc.code == "duplicate":
        return StateConflictError(
            f"{exc.field or 'The record'} already exists in this workspace.", detail)
    return PayloadInvalidError("The request body is invalid.", detail)


def reference_errors(values: dict, client_found: uuid.UUID | None,
                     producer_found: bool) -> list[dict[str, str]]:
    """The policy's references that name nothing in the tenant (its `client_id` is set to the
    client's `id` found, which a client's `uuid` may also name)."""
    missing = []
    if values.get("client_id") is not None:
        if client_found is None:
            missing.append({"field": "client_id",
                            "message": "no client with this id or uuid in your workspace"})
        values["client_id"] = client_found
    if values.get("producer_id") is not None and not producer_found:
        missing.append({"field": "producer_id",
                        "message": "no producer with this id in your workspace"})
    return missing


def _resolve_references(connection: sa.Connection, tenant_id: str, values: dict) -> None:
    """Check the policy's references in the tenant; a client may be named by its `id` or by its
    `uuid` (what every client route takes), and is stored by `id`. Producers have no uuid."""
    client, producer = values.get("client_id"), values.get("producer_id")
    missing = reference_errors(
        values, client and repository.client_id_of(connection, tenant_id, client),
        producer is not None and repository.exists(connection, "producers", tenant_id, producer))
    if missing:
        raise PayloadInvalidError("The request body is invalid.", missing)


def missing_record(kind: Kind, record_uuid: uuid.UUID) -> RecordMissingError:
    return RecordMissingError(f"No {kind.entity_type} {record_uuid} in your workspace.")


def _load(connection: sa.Connection, kind: Kind, tenant_id: str,
          record_uuid: uuid.UUID) -> dict[str, Any]:
    row = repository.find_by_uuid(connection, kind.table, tenant_id, record_uuid)
    if row is None:
        raise missing_record(kind, record_uuid)
    return row


def create(connection: sa.Connection, kind: Kind, tenant_id: str, actor: Actor,
           payload: SchemaPayload) -> dict[str, Any]:
    """Insert a client or policy for the tenant, audit it, and return the stored record."""
    values = to_columns(kind.table, payload.values)
    if kind is POLICY:
        _resolve_references(connection, tenant_id, values)
    try:
        row = repository.insert_returning(connection, kind.table,
                                          {**values, "tenant_id": tenant_id})
    except ConstraintViolationError as exc:  # the transaction is rolled back with the error
        raise violation_error(exc) from None
    record = to_json(row)
    _audit(connection, tenant_id, actor, "create", kind, row["id"], None, record)
    return record


def get(connection: sa.Connection, kind: Kind, tenant_id: str,
        record_uuid: uuid.UUID) -> dict[str, Any]:
    """The tenant's record with that uuid; RecordMissingError otherwise."""
    return to_json(_load(connection, kind, tenant_id, record_uuid))


def _change_status(connection: sa.Connection, tenant_id: str, record_id: uuid.UUID,
                   status: str) -> None:
    try:
        update_status(connection, "policies", record_id, status, tenant_id=tenant_id)
    except InvalidTransitionError as exc:
        raise TransitionRefusedError(exc.message) from None


def update(connection: sa.Connection, kind: Kind, tenant_id: str, actor: Actor,
           record_uuid: uuid.UUID, payload: SchemaPayload) -> dict[str, Any]:
    """Apply a partial update (only the fields given), audit old and new, return the record."""
    before = _load(connection, kind, tenant_id, record_uuid)
    values = to_columns(kind.table, payload.values)
    if kind is POLICY:
        _resolve_references(connection, tenant_id, values)
        status = values.pop("status", None)
        if status is not None:
            _change_status(connection, tenant_id, before["id"], status)
    try:
        repository.update(connection, kind.table, before["id"], values)
    except ConstraintViolationError as exc:
        raise violation_error(exc) from None
    after = to_json(repository.find_by_id(connection, kind.table, tenant_id, before["id"]) or {})
    _audit(connection, tenant_id, actor, "update", kind, before["id"], to_json(before), after)
    return after


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


def _created_range(table: sa.Table, query: ClientListQuery | PolicyListQuery) -> list:
    conditions = []
    if query.created_from is not None:
        conditions.append(table.c.created >= query.created_from)
    if query.created_to is not None:
        conditions.append(table.c.created < query.created_to)
    return conditions


def _policy_conditions(tenant_id: str, query: PolicyListQuery) -> list[sa.ColumnElement[bool]]:
    policies = sa_table("policies")
    conditions: list[sa.ColumnElement[bool]] = []
    for name in ("status", "line_of_business", "policy_number"):
        if getattr(query, name) is not None:
            conditions.append(policies.c[name] == getattr(query, name))
    if query.client_uuid is not None:
        conditions.append(policies.c.client_id == repository.client_id_subquery(
            tenant_id, query.client_uuid))
    for column in ("start_date", "end_date"):
        low, high = getattr(query, f"{column}_from"), getattr(query, f"{column}_to")
        if low is not None:
            conditions.append(policies.c[column] >= low)
        if high is not None:
            conditions.append(policies.c[column] <= high)
    return conditions + _created_range(policies, query)


def list_page(connection: sa.Connection, kind: Kind, tenant_id: str,
              query: ClientListQuery | PolicyListQuery) -> Page:
    """One page of the tenant's records matching the filters, oldest first, and the next cursor."""
    after = decode_cursor(query.cursor) if query.cursor else None
    conditions = (_client_conditions(query) if isinstance(query, ClientListQuery)
                  else _policy_conditions(tenant_id, query))
    rows = repository.page(connection, kind.table, tenant_id, conditions, query.limit, after)
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    cursor = encode_cursor(rows[-1]["id"]) if more else None
    return Page([to_json(row) for row in rows], cursor)

