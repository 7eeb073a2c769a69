"""Fixtures of the tenant-database tests: a prepared database on each backend and a row factory."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
import sqlalchemy as sa

from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.catalog import TABLES_BY_NAME
from insureops.schema.model import Field
from insureops.schema.sql.tables import sa_table
from tests.databases import Template

TENANT = "01JD0000000000000000000000"
WHEN = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)


@pytest.fixture
def engine(test_databases):
    """A tenant database at data model 2.2.0 (SQLite file or PostgreSQL schema) of this test: a
    copy of the worker's template (tests/databases.py), which `apply_data_model` prepared."""
    engine = create_tenant_engine(test_databases.copy(Template.TENANT).sync)
    yield engine
    engine.dispose()


def sample_value(item: Field) -> object:
    """A valid value for a required field without a default."""
    if item.name == "tenant_id":
        return TENANT
    if item.unique:
        return uuid.uuid4().hex[:20]
    if item.choices:
        return item.choices[0]
    return {
        "string": "x", "text": "x", "date": date(2026, 1, 1), "timestamp": WHEN,
        "decimal": Decimal("1.00"), "integer": 1, "boolean": True, "json": {}, "double": 1.0,
        "uuid": uuid.uuid4(), "ip_address": "127.0.0.1", "text_array": [],
    }[item.kind]


class Rows:
    """Inserts valid rows of any table, creating the parents a row needs."""

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def make(self, table_name: str, **values) -> uuid.UUID | int:
        """Insert one row (`values` override the generated ones); return its id."""
        row = {}
        for item in TABLES_BY_NAME[table_name].fields:
            if item.name in values or not item.required or item.default is not None:
                continue
            if item.references:
                row[item.name] = self.make(item.references.table)
            elif not item.generated:
                row[item.name] = sample_value(item)
        row.update(values)
        table = sa_table(table_name)
        if table.c.id.type.python_type is uuid.UUID and "id" not in row:
            row["id"] = uuid.uuid4()
        result = self.connection.execute(sa.insert(table).values(**row).returning(table.c.id))
        return result.scalar_one()

    def make_plain(self, table_name: str, **values) -> uuid.UUID | int:
        """Insert by plain SQL, naming only required fields: the database fills in the rest."""
        row = {}
        for item in TABLES_BY_NAME[table_name].fields:
            if item.required and item.default is None and not item.generated:
                row[item.name] = (self.make(item.references.table) if item.references
                                  else sample_value(item))
        row.update(values)
        table = sa_table(table_name)
        statement = sa.text(
            f"INSERT INTO {table_name} ({', '.join(row)}) "
            f"VALUES ({', '.join(':' + name for name in row)}) RETURNING id"
        ).bindparams(*[sa.bindparam(name, type_=table.c[name].type) for name in row])
        raw_id = self.connection.execute(statement, row).scalar_one()
        return table.c.id.type.result_processor(self.connection.dialect, None)(raw_id) \
            if table.c.id.type.result_processor(self.connection.dialect, None) else raw_id

    def get(self, table_name: str, row_id) -> sa.Row | None:
        table = sa_table(table_name)
        return self.connection.execute(sa.select(table).where(table.c.id == row_id)).first()

    def count(self, table_name: str) -> int:
        return self.connection.execute(
            sa.select(sa.func.count()).select_from(sa_table(table_name))).scalar_one()


@pytest.fixture
def connection(engine):
    """A connection with an open transaction, rolled back after the test."""
    with engine.connect() as connection:
        transaction = connection.begin()
        yield connection
        if transaction.is_active:
            transaction.rollback()


@pytest.fixture
def tenant_id() -> str:
    """The tenant that Rows puts its rows in."""
    return TENANT


@pytest.fixture
def rows(connection) -> Rows:
    return Rows(connection)
