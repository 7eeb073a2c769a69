"""The fast tier of the tenant API's use cases (`tenancy/book/service.py`) on an in-memory fake
of their port: references, the policy state machine, partial updates, the audit trail, paging
and the payloads' rules. No database and no HTTP: whether the store keeps the same promises on
SQLite and PostgreSQL is test_store.py's question, the routes' wiring tests/platform/mcp/'s."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ValidationError

from insureops.platform.tenancy.book import service
from insureops.platform.tenancy.book.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
    TransitionRefusedError,
)
from insureops.platform.tenancy.book.payloads import (
    ClientCreate,
    ClientListQuery,
    ClientUpdate,
    PolicyCreate,
    PolicyListQuery,
    PolicyUpdate,
)
from tests.platform.tenancy.book.fakes import FakeTenantStore

TENANT = "01JTESTTENANT0000000000000"
OTHER = "01JOTHERTENANT000000000000"
KEY = str(uuid.uuid4())
ACTOR = service.Actor(key_id=KEY, method="PATCH", path="/api/v2/mcp/policies/x/update/",
                      ip_address="203.0.113.9", user_agent="test/1")


@pytest.fixture
def store() -> FakeTenantStore:
    return FakeTenantStore()


async def _client(store, tenant=TENANT, **fields) -> dict:
    return await store.run(service.create, service.CLIENT, tenant, ACTOR,
                           ClientCreate(**{"name": "Holder", **fields}))


async def _policy(store, tenant=TENANT, **fields) -> dict:
    return await store.run(service.create, service.POLICY, tenant, ACTOR, PolicyCreate(**fields))


async def _update(store, record: dict, kind=service.POLICY, **fields) -> dict:
    payload = (PolicyUpdate if kind is service.POLICY else ClientUpdate)(**fields)
    return await store.run(service.update, kind, TENANT, ACTOR, uuid.UUID(record["uuid"]),
                           payload)


async def test_a_create_is_audited_with_the_record_and_who_wrote_it(store):
    created = await _client(store, email="ann@example.org")
    assert created["tenant_id"] == TENANT and created["email"] == "ann@example.org"
    [row] = store.records.tables["audit_logs"]
    assert row["action"] == "create" and row["entity_type"] == "client"
    assert row["new_values"] == created and row["old_values"] is None
    assert row["actor_id"] == uuid.UUID(KEY) and row["actor_email"] == f"api-key:{KEY}"
    assert (row["ip_address"], row["user_agent"], row["request_method"]) == (
        "203.0.113.9", "test/1", "PATCH")


@pytest.mark.parametrize(("actor", "expected"), [
    (service.Actor(key_id="not-a-uuid", ip_address="nonsense"), (None, None, None)),
    (service.Actor(key_id=KEY, method="MCP", path="create_client", ip_address="::1"),
     (uuid.UUID(KEY), "::1", "MCP")),
    (service.Actor(key_id=KEY, method="X" * 30), (uuid.UUID(KEY), None, "X" * 10)),
])
def test_audit_values_keep_what_fits_when_the_actor_is_odd(actor, expected):
    values = service.audit_values(TENANT, actor, "create", service.CLIENT, uuid.uuid4(), None, {})
    assert (values["actor_id"], values["ip_address"], values["request_method"]) == expected


async def test_a_policy_names_its_client_by_id_or_uuid_and_stores_the_id(store):
    holder = await _client(store)
    by_uuid = await _policy(store, client_id=holder["uuid"], policy_number="P-1")
    by_id = await _policy(store, client_id=holder["id"], policy_number="P-2")
    assert by_uuid["client_id"] == by_id["client_id"] == holder["id"]
    moved = await _update(store, by_uuid, client_id=holder["uuid"])
    assert moved["client_id"] == holder["id"]


async def test_references_outside_the_tenant_are_refused_naming_each_field(store):
    foreign = await _client(store, tenant=OTHER)
    producer = store.records.add_producer(OTHER)
    with pytest.raises(PayloadInvalidError) as refused:
        await _policy(store, client_id=foreign["id"], producer_id=str(producer))
    assert [d["field"] for d in refused.value.details] == ["client_id", "producer_id"]
    assert store.records.tables["policies"] == []  # nothing written, nothing audited
    assert store.records.tables["audit_logs"][-1]["entity_type"] == "client"


async def test_a_producer_of_the_tenant_is_accepted(store):
    producer = store.records.add_producer(TENANT)
    assert (await _policy(store, producer_id=str(producer)))["producer_id"] == str(producer)


async def test_a_duplicate_policy_number_is_a_conflict_naming_the_field(store):
    await _policy(store, policy_number="P-1")
    await _policy(store, tenant=OTHER, policy_number="P-1")  # another tenant's may repeat it
    with pytest.raises(StateConflictError) as duplicate:
        await _policy(store, policy_number="P-1")
    assert duplicate.value.details[0]["field"] == "policy_number"
    second = await _policy(store, policy_number="P-2")
    with pytest.raises(StateConflictError):
        await _update(store, second, policy_number="P-1")


@pytest.mark.parametrize(("moves", "last_refused"), [
    (["bound", "active", "expired"], False),
    (["pending", "bound", "cancelled", "active"], False),
    (["bound", "active", "unpaid", "active", "completed"], False),
    (["active"], True),
    (["declined", "quote"], True),
    (["bound", "active", "expired", "active"], True),
    (["pending", "quote"], True),
])
async def test_status_follows_the_state_machine_when_updated(store, moves, last_refused):
    policy = await _policy(store)
    allowed = moves[:-1] if last_refused else moves
    for status in allowed:
        policy = await _update(store, policy, status=status)
        assert policy["status"] == status
    if last_refused:
        with pytest.raises(TransitionRefusedError) as error:
            await _update(store, policy, status=moves[-1])
        assert error.value.code == "invalid_transition"


async def test_a_refused_transition_changes_nothing_when_other_fields_came_with_it(store):
    policy = await _policy(store, notes="before")
    audited = len(store.records.tables["audit_logs"])
    with pytest.raises(TransitionRefusedError):
        await _update(store, policy, status="expired", notes="after")
    read = await store.run(service.get, service.POLICY, TENANT, uuid.UUID(policy["uuid"]))
    assert read["notes"] == "before" and read["status"] == "quote"
    assert len(store.records.tables["audit_logs"]) == audited


async def test_the_same_status_is_no_move_and_writes_only_the_audit_row(store):
    policy = await _policy(store)
    same = await _update(store, policy, status="quote")
    assert same == policy  # nothing written: not even `modified` moved
    row = store.records.tables["audit_logs"][-1]
    assert row["action"] == "update" and row["old_values"] == row["new_values"] == policy


async def test_an_update_changes_only_the_given_fields_and_audits_old_and_new(store):
    created = await _client(store, city="Springfield", phone="+1 555 0100", company="Bakery")
    updated = await _update(store, created, kind=service.CLIENT, city="Chicago", phone=None)
    assert updated["city"] == "Chicago" and updated["phone"] is None
    unchanged = ("city", "phone", "modified")
    assert ({k: v for k, v in updated.items() if k not in unchanged}
            == {k: v for k, v in created.items() if k not in unchanged})
    assert updated["modified"] > created["modified"]
    row = store.records.tables["audit_logs"][-1]
    assert (row["old_values"], row["new_values"]) == (created, updated)


async def test_a_record_of_another_tenant_or_none_is_missing(store):
    policy = await _policy(store)
    for tenant, record in ((OTHER, policy["uuid"]), (TENANT, str(uuid.uuid4()))):
        with pytest.raises(RecordMissingError) as missing:
            await store.run(service.get, service.POLICY, tenant, uuid.UUID(record))
        assert missing.value.code == "not_found" and record in missing.value.message
    with pytest.raises(RecordMissingError):
        await store.run(service.update, service.POLICY, OTHER, ACTOR,
                        uuid.UUID(policy["uuid"]), PolicyUpdate(notes="x"))


async def test_a_listing_pages_through_every_record_once_oldest_first(store):
    made = [(await _client(store, name=f"Client {n}"))["uuid"] for n in range(7)]
    await _client(store, tenant=OTHER)
    seen, cursor = [], None
    while True:
        page = await store.run(service.list_page, service.CLIENT, TENANT,
                               ClientListQuery(limit=3, cursor=cursor))
        seen += [item["uuid"] for item in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == made


async def test_a_listing_is_fifty_long_when_no_limit_is_given(store):
    for n in range(51):
        await _client(store, name=f"C{n}")
    page = await store.run(service.list_page, service.CLIENT, TENANT, ClientListQuery())
    assert len(page.items) == 50 and page.next_cursor is not None
    rest = await store.run(service.list_page, service.CLIENT, TENANT,
                           ClientListQuery(cursor=page.next_cursor))
    assert len(rest.items) == 1 and rest.next_cursor is None


async def test_a_mangled_cursor_is_refused_naming_the_field(store):
    with pytest.raises(PayloadInvalidError) as refused:
        await store.run(service.list_page, service.CLIENT, TENANT,
                        ClientListQuery(cursor="garbage"))
    assert refused.value.details[0]["field"] == "cursor"


async def test_policy_filters_combine_when_several_are_given(store):
    holder = await _client(store)
    await _policy(store, client_id=holder["uuid"], status="quote", line_of_business="property",
                  policy_number="P-1", start_date="2026-01-01")
    await _policy(store, status="quote", line_of_business="auto", policy_number="P-2",
                  start_date="2026-06-01")

    async def numbers(**query) -> list[str]:
        page = await store.run(service.list_page, service.POLICY, TENANT,
                               PolicyListQuery(**query))
        return [item["policy_number"] for item in page.items]

    assert await numbers(line_of_business="property") == ["P-1"]
    assert await numbers(client_uuid=holder["uuid"]) == ["P-1"]
    assert await numbers(start_date_from="2026-03-01") == ["P-2"]
    assert await numbers(status="quote", policy_number="P-2") == ["P-2"]
    assert await numbers(status="active") == []


# The payloads' rules: the data model's JSON Schemas, whatever calls (HTTP or a local tool).

def _fields(error: ValidationError) -> set[str]:
    return {".".join(str(part) for part in item["loc"]) for item in error.errors()}


def test_a_create_refuses_a_status_other_than_quote():
    with pytest.raises(ValidationError) as refused:
        PolicyCreate(status="active")
    assert _fields(refused.value) == {"status"}


def test_a_create_refuses_what_the_service_stamps_and_fields_it_does_not_know():
    with pytest.raises(ValidationError) as refused:
        ClientCreate(name="x" * 256, email=5, date_of_birth="29/02/1980", shoe_size=44,
                     tenant_id="01HZZZZZZZZZZZZZZZZZZZZZZZ", created="2020-05-01T12:00:00Z")
    assert _fields(refused.value) == {"name", "email", "date_of_birth", "shoe_size",
                                      "tenant_id", "created"}
    assert "x" * 256 not in str(refused.value)  # values are never echoed


def test_a_create_needs_a_name_and_an_update_refuses_null_where_required():
    with pytest.raises(ValidationError) as missing:
        ClientCreate(email="a@b.c")
    assert _fields(missing.value) == {"name"}
    with pytest.raises(ValidationError) as nulls:
        ClientUpdate(name=None, marketing_opt_in=None)
    assert _fields(nulls.value) == {"name", "marketing_opt_in"}


@pytest.mark.parametrize("query", [{"limit": 201}, {"limit": 0}, {"colour": "red"}])
def test_a_list_query_is_refused_past_its_bounds_or_with_unknown_keys(query):
    with pytest.raises(ValidationError):
        ClientListQuery(**query)
