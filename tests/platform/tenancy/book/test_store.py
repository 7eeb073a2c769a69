"""The tenant store on both engines: one implementation of each use case, run on PostgreSQL's
direct pool and on a SQLite file, stores, reads, refuses and audits alike (the rules themselves
are tested on a fake in test_service.py)."""

from __future__ import annotations

import uuid

import psycopg
import pytest
import sqlalchemy as sa

from insureops.platform.data.direct import DirectPool
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
    PolicyCreate,
    PolicyListQuery,
    PolicyUpdate,
)
from insureops.platform.tenancy.book.store import open_tenant_store
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.sql.tables import sa_table
from tests.databases import Template

TENANT = "01JTESTTENANT0000000000000"
ACTOR = service.Actor(key_id=str(uuid.uuid4()), method="POST", path="/api/v2/mcp/policies/",
                      ip_address="203.0.113.9", user_agent="test/1")
POLICY = {"policy_number": "P-1", "status": "quote", "premium": 1234.5, "service_fee": 0.1,
          "commission_rate": 0.125, "start_date": "2026-01-01", "notes": "ß ✓"}


@pytest.fixture
def tenant_urls(test_databases):
    return test_databases.copy(Template.TENANT)


@pytest.fixture
async def store(tenant_urls):
    opened = open_tenant_store(tenant_urls.sync)
    try:
        yield opened
    finally:
        await opened.close()


def _audit(url: str) -> list[dict]:
    """The audit rows committed, read past the store."""
    engine = create_tenant_engine(url)
    table = sa_table("audit_logs")
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(
                sa.select(table).order_by(table.c.created_at, table.c.id))]
    finally:
        engine.dispose()


async def test_a_create_stores_and_audits_the_record_on_either_engine(store, tenant_urls):
    client = await store.run(service.create, service.CLIENT, TENANT, ACTOR, ClientCreate(
        name="Ann", email="ann@example.com", date_of_birth="1980-02-29"))
    by_uuid = await store.run(service.create, service.POLICY, TENANT, ACTOR, PolicyCreate(
        **{**POLICY, "client_id": client["uuid"]}))
    by_id = await store.run(service.create, service.POLICY, TENANT, ACTOR, PolicyCreate(
        **{**POLICY, "policy_number": "P-2", "client_id": client["id"]}))
    assert by_uuid["client_id"] == by_id["client_id"] == client["id"]  # stored by its id
    assert by_uuid["premium"] == 1234.5 and by_uuid["commission_rate"] == 0.13  # half-up
    assert client["date_of_birth"] == "1980-02-29" and by_uuid["notes"] == "ß ✓"

    rows = _audit(tenant_urls.sync)
    assert [row["new_values"]["uuid"] for row in rows] == [
        client["uuid"], by_uuid["uuid"], by_id["uuid"]]  # the audit row is the record
    assert rows[1]["new_values"] == by_uuid and rows[1]["old_values"] is None
    assert {str(row["ip_address"]) for row in rows} == {"203.0.113.9"}
    assert {(row["action"], row["request_method"], row["user_agent"]) for row in rows} == {
        ("create", "POST", "test/1")}


async def test_a_get_reads_the_record_of_its_tenant_only(store):
    created = await store.run(service.create, service.POLICY, TENANT, ACTOR,
                              PolicyCreate(**POLICY))
    found = await store.run(service.get, service.POLICY, TENANT, uuid.UUID(created["uuid"]),
                            read_only=True)
    assert found == created
    with pytest.raises(RecordMissingError):
        await store.run(service.get, service.POLICY, "01JOTHERTENANT000000000000",
                        uuid.UUID(created["uuid"]), read_only=True)


async def test_refusals_name_the_field_and_leave_nothing_behind(store, tenant_urls):
    payload = PolicyCreate(**POLICY)
    await store.run(service.create, service.POLICY, TENANT, ACTOR, payload)
    with pytest.raises(StateConflictError) as duplicate:
        await store.run(service.create, service.POLICY, TENANT, ACTOR, payload)
    assert duplicate.value.details[0]["field"] == "policy_number"
    dangling = PolicyCreate(**{**POLICY, "policy_number": "P-9",
                               "client_id": str(uuid.uuid4()), "producer_id": str(uuid.uuid4())})
    with pytest.raises(PayloadInvalidError) as missing:
        await store.run(service.create, service.POLICY, TENANT, ACTOR, dangling)
    assert [item["field"] for item in missing.value.details] == ["client_id", "producer_id"]
    assert len(_audit(tenant_urls.sync)) == 1  # the first create's, nothing of the refused ones
    if isinstance(store.backend, DirectPool):  # the refused transactions were rolled back
        assert store.backend._idle and all(
            connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            for connection in store.backend._idle)


async def test_an_update_moves_the_status_and_audits_old_and_new(store, tenant_urls):
    created = await store.run(service.create, service.POLICY, TENANT, ACTOR,
                              PolicyCreate(**POLICY))
    record = uuid.UUID(created["uuid"])
    bound = await store.run(service.update, service.POLICY, TENANT, ACTOR, record,
                            PolicyUpdate(status="bound", notes="signed"))
    assert bound["status"] == "bound" and bound["notes"] == "signed"
    assert bound == await store.run(service.get, service.POLICY, TENANT, record, read_only=True)
    with pytest.raises(TransitionRefusedError):
        await store.run(service.update, service.POLICY, TENANT, ACTOR, record,
                        PolicyUpdate(status="quote"))
    with pytest.raises(StateConflictError):  # a duplicate policy_number, refused as on create
        other = await store.run(service.create, service.POLICY, TENANT, ACTOR,
                                PolicyCreate(**{**POLICY, "policy_number": "P-2"}))
        await store.run(service.update, service.POLICY, TENANT, ACTOR,
                        uuid.UUID(other["uuid"]), PolicyUpdate(policy_number="P-1"))
    rows = [row for row in _audit(tenant_urls.sync) if row["action"] == "update"]
    assert len(rows) == 1
    assert rows[0]["old_values"] == created and rows[0]["new_values"] == bound


async def test_a_listing_pages_in_creation_order_with_its_filters(store):
    names = [f"Client {n}" for n in range(5)]
    for name in names:
        await store.run(service.create, service.CLIENT, TENANT, ACTOR, ClientCreate(name=name))
    seen, cursor = [], None
    while True:
        page = await store.run(service.list_page, service.CLIENT, TENANT,
                               ClientListQuery(limit=2, cursor=cursor), read_only=True)
        seen += [item["name"] for item in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    # every record once, in the listing's (created, id) order: two creates within one clock
    # tick (a millisecond on SQLite) tie on `created` and are ordered by id
    whole = await store.run(service.list_page, service.CLIENT, TENANT,
                            ClientListQuery(limit=200), read_only=True)
    assert seen == [item["name"] for item in whole.items] and sorted(seen) == names
    found = await store.run(service.list_page, service.CLIENT, TENANT,
                            ClientListQuery(name_contains="T 3"), read_only=True)
    assert [item["name"] for item in found.items] == ["Client 3"]
    none = await store.run(service.list_page, service.POLICY, TENANT,
                           PolicyListQuery(status="active"), read_only=True)
    assert none.items == [] and none.next_cursor is None


def test_a_store_refuses_a_url_of_another_scheme():
    with pytest.raises(ValueError, match="unsupported database URL scheme"):
        open_tenant_store("mysql://somewhere/db")


async def test_statements_of_their_own_run_in_one_transaction_with_cpu_work_off_the_loop(
        store, tenant_urls):
    """`run_statements` (rules at work's tenant work): a failure after a write leaves nothing
    behind, a success commits; `off_the_loop` runs the CPU part on a thread on PostgreSQL and
    at once in the SQLite use case's own thread, never on the event loop's."""
    import threading

    from insureops.platform.data.direct import with_python_defaults
    from insureops.platform.tenancy.book.store import off_the_loop

    table = sa_table("clients")
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def cpu(name: str) -> str:
        seen.append(threading.get_ident())
        return name.upper()

    async def create(connection, name: str, fail: bool) -> int:
        upper = await off_the_loop(None, cpu, name)
        await connection.execute(sa.insert(table).values(with_python_defaults(
            table, {"id": uuid.uuid4(), "uuid": uuid.uuid4(), "tenant_id": TENANT,
                    "name": upper})), {})
        if fail:
            raise LookupError("after the write")
        row = await connection.one(sa.select(sa.func.count().label("n")).select_from(table)
                                   .where(table.c.tenant_id == TENANT), {})
        return row["n"]

    with pytest.raises(LookupError):
        await store.run_statements(create, "gone", True)
    assert await store.run_statements(create, "kept", False) == 1
    assert loop_thread not in seen and len(seen) == 2
    engine = create_tenant_engine(tenant_urls.sync)
    try:
        with engine.connect() as connection:
            names = connection.execute(sa.select(table.c.name)).scalars().all()
    finally:
        engine.dispose()
    assert names == ["KEPT"]
