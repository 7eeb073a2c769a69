"""Use cases on clients and policies: create, get, list, update, each audited in one transaction.

Each takes the store's port (`repository.TenantRecords`) inside the caller's transaction
(`TenantStore.run` gives one): the write and its audit_logs row commit together or not at all.
`tenant_id` always comes from the caller's credentials, never from a payload (the schemas do not
even accept it). Nothing here knows SQL, HTTP or stdio: the fast tests run these on a fake.
"""

from __future__ import annotations

import ipaddress
import uuid
from dataclasses import dataclass
from typing import Any

from insureops.platform.tenancy.book.cursor import decode_cursor, encode_cursor
from insureops.platform.tenancy.book.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
    TransitionRefusedError,
)
from insureops.platform.tenancy.book.payloads import (
    ClientListQuery,
    PolicyListQuery,
    SchemaPayload,
)
from insureops.platform.tenancy.book.records import to_columns, to_json
from insureops.platform.tenancy.book.repository import TenantRecords
from insureops.schema.errors import ConstraintViolationError, InvalidTransitionError
from insureops.schema.state_machines import MACHINES, validate_transition


@dataclass(frozen=True)
class Actor:
    """Who writes, for the audit trail: the API key and how it called (HTTP request or tool)."""

    key_id: str
    method: str | None = None  # HTTP method, or "MCP" for a local tool call
    path: str | None = None  # request path, or the tool name
    ip_address: str | None = None
    user_agent: str | None = None
    email: str | None = None  # a person's session (the carrier finder page), not a key


@dataclass(frozen=True)
class Kind:
    """One resource the API serves: its table and names."""

    table: str
    entity_type: str


CLIENT = Kind("clients", "client")
POLICY = Kind("policies", "policy")
SUBMISSION = Kind("uw_submissions", "uw_submission")


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
        "actor_email": (actor.email or f"api-key:{actor.key_id}")[:255], "ip_address": address,
        "user_agent": actor.user_agent, "request_method": (actor.method or "")[:10] or None,
        "request_path": actor.path, "old_values": old, "new_values": new}


def violation_error(exc: ConstraintViolationError) -> Exception:
    """The API's answer to a refused write: 409 for a duplicate, 400 otherwise."""
    detail = [{"field": exc.field or "body", "message": exc.message}]
    if exc.code == "duplicate":
        return StateConflictError(
            f"{exc.field or 'The record'} already exists in this workspace.", detail)
    return PayloadInvalidError("The request body is invalid.", detail)


async def _resolve_references(records: TenantRecords, tenant_id: str, values: dict) -> None:
    """Check the policy's references in the tenant; a client may be named by its `id` or by its
    `uuid` (what every client route takes), and is stored by `id` (`values` gets the `id`
    found). Producers have no uuid."""
    missing = []
    client, producer = values.get("client_id"), values.get("producer_id")
    if client is not None:
        values["client_id"] = await records.client_id(tenant_id, client)
        if values["client_id"] is None:
            missing.append({"field": "client_id",
                            "message": "no client with this id or uuid in your workspace"})
    if producer is not None and not await records.producer_exists(tenant_id, producer):
        missing.append({"field": "producer_id",
                        "message": "no producer with this id in your workspace"})
    if missing:
        raise PayloadInvalidError("The request body is invalid.", missing)


def missing_record(kind: Kind, record_uuid: uuid.UUID) -> RecordMissingError:
    return RecordMissingError(f"No {kind.entity_type} {record_uuid} in your workspace.")


async def _load(records: TenantRecords, kind: Kind, tenant_id: str, record_uuid: uuid.UUID, *,
                lock: bool = False) -> dict[str, Any]:
    row = await records.find(kind.table, tenant_id, record_uuid, lock=lock)
    if row is None:
        raise missing_record(kind, record_uuid)
    return row


async def create(records: TenantRecords, kind: Kind, tenant_id: str, actor: Actor,
                 payload: SchemaPayload) -> dict[str, Any]:
    """Insert a client or policy for the tenant, audit it, and return the stored record."""
    values = to_columns(kind.table, payload.values)
    if kind is POLICY:
        await _resolve_references(records, tenant_id, values)
    try:
        row = await records.insert(kind.table, {**values, "tenant_id": tenant_id,
                                                "id": uuid.uuid4()})
    except ConstraintViolationError as exc:  # the transaction is rolled back with the error
        raise violation_error(exc) from None
    record = to_json(row)
    await records.audit(audit_values(tenant_id, actor, "create", kind, row["id"], None, record))
    return record


async def get(records: TenantRecords, kind: Kind, tenant_id: str,
              record_uuid: uuid.UUID) -> dict[str, Any]:
    """The tenant's record with that uuid; RecordMissingError otherwise."""
    return to_json(await _load(records, kind, tenant_id, record_uuid))


def _status_change(before: dict[str, Any], status: str | None) -> dict[str, Any]:
    """{"status": status} when the policy state machine allows the move, {} when it is no
    move; TransitionRefusedError otherwise."""
    if status is None:
        return {}
    try:
        validate_transition(MACHINES["policies"], before["status"], status)
    except InvalidTransitionError as exc:
        raise TransitionRefusedError(exc.message) from None
    return {} if before["status"] == status else {"status": status}


async def update(records: TenantRecords, kind: Kind, tenant_id: str, actor: Actor,
                 record_uuid: uuid.UUID, payload: SchemaPayload) -> dict[str, Any]:
    """Apply a partial update (only the fields given), audit old and new, return the record.
    The row stays locked from its first read, so the status move is checked against the
    status it replaces."""
    before = await _load(records, kind, tenant_id, record_uuid, lock=True)
    values = to_columns(kind.table, payload.values)
    if kind is POLICY:
        await _resolve_references(records, tenant_id, values)
        values.update(_status_change(before, values.pop("status", None)))
    after = before
    if values:
        try:
            after = await records.update(kind.table, before["id"], values)
        except ConstraintViolationError as exc:
            raise violation_error(exc) from None
    record = to_json(after)
    await records.audit(audit_values(tenant_id, actor, "update", kind, before["id"],
                                     to_json(before), record))
    return record


async def list_page(records: TenantRecords, kind: Kind, tenant_id: str,
                    query: ClientListQuery | PolicyListQuery) -> Page:
    """One page of the tenant's records matching the filters, oldest first, and the next cursor."""
    after = decode_cursor(query.cursor) if query.cursor else None
    rows = await records.page(kind.table, tenant_id, query, after)
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    cursor = encode_cursor(rows[-1]["id"]) if more else None
    return Page([to_json(row) for row in rows], cursor)


@dataclass(frozen=True)
class Listing:
    """A table the API reads but never writes (rules and other applications write it), with
    the column that orders its pages."""

    table: str
    entity_type: str
    order: str


TASKS = Listing("tasks", "task", "created_at")
UW_SUBMISSIONS = Listing("uw_submissions", "uw_submission", "created_at")
UW_SCORES = Listing("uw_scores", "uw_score", "decided_at")


async def read_one(records: TenantRecords, listing: Listing, tenant_id: str,
                   record_id: uuid.UUID) -> dict[str, Any]:
    """The tenant's task or uw_score with that `id`; RecordMissingError otherwise."""
    row = await records.find_by_id(listing.table, tenant_id, record_id)
    if row is None:
        raise RecordMissingError(f"No {listing.entity_type} {record_id} in your workspace.")
    return to_json(row)


async def read_page(records: TenantRecords, listing: Listing, tenant_id: str,
                    equal: dict[str, Any], limit: int, cursor: str | None) -> Page:
    """One page of the tenant's rows whose columns equal `equal`, oldest first."""
    after = decode_cursor(cursor) if cursor else None
    rows = await records.page_by(listing.table, tenant_id, listing.order, equal, after, limit)
    more = len(rows) > limit
    rows = rows[:limit]
    return Page([to_json(row) for row in rows], encode_cursor(rows[-1]["id"]) if more else None)


async def create_submission(records: TenantRecords, tenant_id: str, actor: Actor,
                            payload: SchemaPayload) -> dict[str, Any]:
    """Insert an underwriting submission for the tenant, audit it, return the stored row. Its
    client and policy, when named (by `id` or `uuid`), must be the tenant's: another tenant's
    is refused as a missing one would be. Bindings on `uw_submission` `created` see the row
    (the tenant database's outbox trigger), whoever wrote it."""
    values = to_columns(SUBMISSION.table, payload.values)
    missing = []
    for field, table, what in (("client_id", "clients", "client"),
                                ("policy_id", "policies", "policy")):
        if values.get(field) is not None:
            values[field] = await records.record_id(table, tenant_id, values[field])
            if values[field] is None:
                missing.append({"field": field,
                                "message": f"no {what} with this id or uuid in your workspace"})
    if missing:
        raise PayloadInvalidError("The request body is invalid.", missing)
    row = await records.insert(SUBMISSION.table, {**values, "tenant_id": tenant_id,
                                                  "id": uuid.uuid4()})
    record = to_json(row)
    await records.audit(audit_values(tenant_id, actor, "create", SUBMISSION, row["id"], None,
                                     record))
    return record
