"""In-memory fakes of the tenant store's port (`tenancy/book/repository.py` `TenantRecords`) and
of the store itself, for the fast tier: the use cases' rules tested without a database.

The fake keeps what the port promises and the use cases rely on: rows per table filtered by
tenant, every column of the data model's table (its Python-side defaults filled in, a public
`uuid`, `created`/`modified` stamps in order), the data model's one unique key
the use cases meet (a tenant's `policy_number`) refused as ConstraintViolationError, the
listings' filters and (created, id) order. It knows no SQL: whether the SQL does the same is the
database tier's question (test_store.py, on SQLite and PostgreSQL).
"""

from __future__ import annotations

import copy
import datetime
import itertools
import uuid
from collections.abc import Mapping
from typing import Any

from insureops.platform.data.direct import with_python_defaults
from insureops.platform.tenancy.book.payloads import ClientListQuery, PolicyListQuery
from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import sa_table

Row = dict[str, Any]
START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


class FakeTenantRecords:
    """`TenantRecords` in memory; `tables` holds the rows (copies go in and out)."""

    def __init__(self) -> None:
        self.tables: dict[str, list[Row]] = {"clients": [], "policies": [], "producers": [],
                                             "uw_submissions": [], "audit_logs": []}
        self._ticks = itertools.count(1)

    def _now(self) -> datetime.datetime:
        return START + datetime.timedelta(seconds=next(self._ticks))

    def add_producer(self, tenant_id: str) -> uuid.UUID:
        """A producer row (the API has no producer endpoint)."""
        producer = {"id": uuid.uuid4(), "tenant_id": tenant_id, "name": "Pat Producer"}
        self.tables["producers"].append(producer)
        return producer["id"]

    def _rows(self, table: str, tenant_id: str) -> list[Row]:
        return [row for row in self.tables[table] if row["tenant_id"] == tenant_id]

    async def find(self, table: str, tenant_id: str, record_uuid: uuid.UUID, *,
                   lock: bool = False) -> Row | None:
        found = [row for row in self._rows(table, tenant_id) if row["uuid"] == record_uuid]
        return copy.deepcopy(found[0]) if found else None

    async def client_id(self, tenant_id: str, reference: uuid.UUID) -> uuid.UUID | None:
        return await self.record_id("clients", tenant_id, reference)

    async def record_id(self, table: str, tenant_id: str,
                        reference: uuid.UUID) -> uuid.UUID | None:
        clients = self._rows(table, tenant_id)
        for row in [r for r in clients if r["id"] == reference] + [
                r for r in clients if r["uuid"] == reference]:
            return row["id"]
        return None

    async def producer_exists(self, tenant_id: str, producer_id: uuid.UUID) -> bool:
        return any(row["id"] == producer_id for row in self._rows("producers", tenant_id))

    def _check_unique(self, table: str, row: Row) -> None:
        if table == "policies" and row.get("policy_number") is not None and any(
                other["id"] != row["id"] and other["tenant_id"] == row["tenant_id"]
                and other.get("policy_number") == row["policy_number"]
                for other in self.tables[table]):
            raise ConstraintViolationError("policy_number", "duplicate",
                                           "policies.tenant_id, policies.policy_number: "
                                           "already exists", table=table)

    async def insert(self, table: str, values: Mapping[str, Any]) -> Row:
        now = self._now()
        columns = sa_table(table).columns
        row = {**dict.fromkeys(column.key for column in columns), "created": now,
               "modified": now, **with_python_defaults(sa_table(table), copy.deepcopy(values))}
        self._check_unique(table, row)
        self.tables[table].append(row)
        return copy.deepcopy(row)

    async def update(self, table: str, record_id: uuid.UUID, values: Mapping[str, Any]) -> Row:
        row = next(row for row in self.tables[table] if row["id"] == record_id)
        changed = {**row, **copy.deepcopy(values), "modified": self._now()}
        self._check_unique(table, changed)
        row.update(changed)
        return copy.deepcopy(row)

    async def page(self, table: str, tenant_id: str, query: ClientListQuery | PolicyListQuery,
                   after: uuid.UUID | None) -> list[Row]:
        rows = sorted((row for row in self._rows(table, tenant_id) if _kept(row, query, self)),
                      key=lambda row: (row["created"], str(row["id"])))
        if after is not None:
            anchor = next((row for row in rows if row["id"] == after), None)
            if anchor is None:
                return []
            rows = rows[rows.index(anchor) + 1:]
        return copy.deepcopy(rows[:query.limit + 1])

    async def audit(self, values: Mapping[str, Any]) -> None:
        self.tables["audit_logs"].append(copy.deepcopy(dict(values)))


def _kept(row: Row, query: ClientListQuery | PolicyListQuery, records: FakeTenantRecords) -> bool:
    def text(name: str) -> str:
        return (row.get(name) or "").lower()

    if query.created_from is not None and row["created"] < query.created_from:
        return False
    if query.created_to is not None and row["created"] >= query.created_to:
        return False
    if isinstance(query, ClientListQuery):
        return ((query.email is None or text("email") == query.email.lower())
                and (not query.name_contains or query.name_contains.lower() in text("name"))
                and (query.country is None or row.get("country") == query.country))
    for name in ("status", "line_of_business", "policy_number"):
        if getattr(query, name) is not None and row.get(name) != getattr(query, name):
            return False
    if query.client_uuid is not None:
        owner = [c["id"] for c in records.tables["clients"]
                 if c["uuid"] == query.client_uuid and c["tenant_id"] == row["tenant_id"]]
        if row.get("client_id") not in owner:
            return False
    for column in ("start_date", "end_date"):
        low, high = getattr(query, f"{column}_from"), getattr(query, f"{column}_to")
        value = row.get(column)
        if (low is not None or high is not None) and value is None:
            return False
        if (low is not None and value < low) or (high is not None and value > high):
            return False
    return True


class FakeTenantStore:
    """`TenantStore.run` on a FakeTenantRecords: one use case at a time, its writes undone when
    it raises (as a transaction rolls back)."""

    def __init__(self, records: FakeTenantRecords | None = None) -> None:
        self.records = records or FakeTenantRecords()

    async def run(self, use_case, *args: Any, read_only: bool = False) -> Any:
        saved = copy.deepcopy(self.records.tables)
        try:
            return await use_case(self.records, *args)
        except BaseException:
            self.records.tables = saved
            raise

    async def close(self) -> None:
        pass
