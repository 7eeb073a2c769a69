"""Test databases: empty ones, and copies of templates each pytest worker prepares once.

A platform test needs a migrated platform database and a tenant test a database holding the data
model. Running the migrations for every test cost most of a test's set-up, so each worker builds
one template per kind on first use and every test gets a copy of its own: a file copy on SQLite,
a prepared schema on PostgreSQL, emptied after the test and reused by the worker's later tests.
Tests stay isolated (no two tests hold the same database at once) and run in any order.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import sql


class Template(StrEnum):
    """What a template database holds."""

    PLATFORM = "platform"  # the platform database, migrated to head
    TENANT = "tenant"  # a tenant database prepared with the data model


@dataclass(frozen=True)
class DatabaseUrls:
    """One isolated database, as a sync URL (alembic, DDL, plain SQL) and an async one."""

    backend: str
    sync: str
    async_: str


def _prepare_platform(urls: DatabaseUrls) -> None:
    from insureops.platform.data.database import create_engine
    from insureops.platform.migrations import upgrade

    async def migrate() -> None:
        engine = create_engine(urls.async_)
        try:
            await upgrade(engine)
        finally:
            await engine.dispose()

    # A fixture may run while an event loop is running in this thread: migrate in another one.
    with ThreadPoolExecutor(1) as executor:
        executor.submit(asyncio.run, migrate()).result()


def _prepare_tenant(urls: DatabaseUrls) -> None:
    from insureops.platform.tenancy.data_model import apply_data_model
    from insureops.platform.tenancy.engine import create_tenant_engine

    engine = create_tenant_engine(urls.sync)
    try:
        apply_data_model(engine)
    finally:
        engine.dispose()


PREPARE: dict[Template, Callable[[DatabaseUrls], None]] = {
    Template.PLATFORM: _prepare_platform,
    Template.TENANT: _prepare_tenant,
}


def plain_conninfo(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg's connection string."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@dataclass
class SqliteDatabases:
    """SQLite files under `directory`; templates are files copied per test."""

    directory: Path
    _templates: dict[Template, Path] = field(default_factory=dict)

    @staticmethod
    def urls(path: Path) -> DatabaseUrls:
        return DatabaseUrls("sqlite", f"sqlite:///{path}", f"sqlite+aiosqlite:///{path}")

    def empty(self, directory: Path, name: str = "test") -> DatabaseUrls:
        return self.urls(directory / f"{name}.sqlite3")

    def copy(self, template: Template, directory: Path, name: str | None = None) -> DatabaseUrls:
        target = directory / f"{name or template.value}-{uuid.uuid4().hex[:8]}.sqlite3"
        shutil.copyfile(self._template(template), target)
        return self.urls(target)

    def _template(self, template: Template) -> Path:
        if template not in self._templates:
            path = self.directory / f"template-{template.value}.sqlite3"
            PREPARE[template](self.urls(path))
            with sqlite3.connect(path) as connection:  # fold the WAL into the file we copy
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()
            self._templates[template] = path
        return self._templates[template]


@dataclass(frozen=True)
class _PreparedSchema:
    """A prepared schema of the base database and what resetting it means."""

    name: str
    tables: tuple[str, ...]  # emptied between tests
    seeded: tuple[str, ...]  # rows the preparation wrote (version tables): kept, and compared
    fingerprint: str


def _fingerprint_query(schema: str, seeded: tuple[str, ...]) -> sql.Composed:
    """An expression of the tables' columns and the seeded rows: unchanged when a test changed
    no structure and no version."""
    structure = sql.SQL(
        "(SELECT md5(coalesce(string_agg(c.relname || '.' || a.attname || ':' || "
        "a.atttypid::text, ',' ORDER BY c.relname, a.attnum), '')) "
        "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = {} AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped)"
    ).format(sql.Literal(schema))
    rows = [sql.SQL("(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) "
                    "FROM {} t)").format(sql.Identifier(schema, table)) for table in seeded]
    return sql.SQL(" || ':' || ").join([structure, *rows])


@dataclass
class PostgresDatabases:
    """Schemas of the base database: empty ones, and prepared ones the worker's tests reuse.

    A prepared schema (migrated, or holding the data model) costs a migration run, and a copy
    of a template database costs a checkpoint; so a prepared schema a test is done with is
    emptied (every table the preparation left empty, sequences restarted) and handed to the
    worker's next test, in one statement on the worker's own connection (a round trip per
    table and a connection per test cost more than most tests). One whose structure or version
    rows the test changed, or that cannot be emptied, is dropped instead. Every connection to a
    schema carries its name as `application_name`, so connections a test left open are ended
    before the reset. Names start with the worker's, and a run drops its schemas when it ends.
    """

    base_url: str
    prefix: str
    _free: dict[Template, list[_PreparedSchema]] = field(default_factory=dict)
    _all: set[str] = field(default_factory=set)
    _connection: psycopg.Connection | None = None

    def _connect(self) -> psycopg.Connection:
        """The worker's connection to the base database (autocommit), opened again if lost."""
        if self._connection is None or self._connection.closed or self._connection.broken:
            self._connection = psycopg.connect(plain_conninfo(self.base_url), autocommit=True)
        return self._connection

    def _new_schema(self, label: str) -> tuple[str, DatabaseUrls]:
        schema = f"{self.prefix}_{label}_{uuid.uuid4().hex[:12]}"
        self._connect().execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        self._all.add(schema)
        return schema, self._urls(schema)

    def _urls(self, schema: str) -> DatabaseUrls:
        separator = "&" if "?" in self.base_url else "?"
        url = (f"{self.base_url}{separator}options={quote(f'-csearch_path={schema}')}"
               f"&application_name={schema}")
        return DatabaseUrls("postgresql", url, url)

    def empty_schema(self) -> tuple[DatabaseUrls, Callable[[], None]]:
        """An empty schema, selected by search_path; and its drop."""
        schema, urls = self._new_schema("empty")
        return urls, lambda: self._drop(schema)

    def copy(self, template: Template) -> tuple[DatabaseUrls, Callable[[], None]]:
        """A schema holding what `template` holds, for one test; and its release."""
        free = self._free.setdefault(template, [])
        prepared = free.pop() if free else self._prepare(template)
        return self._urls(prepared.name), lambda: self._release(template, prepared)

    def _prepare(self, template: Template) -> _PreparedSchema:
        schema, urls = self._new_schema(template.value)
        PREPARE[template](urls)
        connection = self._connect()
        names = [row[0] for row in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename",
            (schema,))]
        seeded = tuple(table for table in names if connection.execute(
            sql.SQL("SELECT EXISTS (SELECT 1 FROM {})").format(sql.Identifier(schema, table))
        ).fetchone()[0])
        fingerprint = connection.execute(
            sql.SQL("SELECT {}").format(_fingerprint_query(schema, seeded))).fetchone()[0]
        return _PreparedSchema(schema, tuple(t for t in names if t not in seeded), seeded,
                               fingerprint)

    @staticmethod
    def _reset(prepared: _PreparedSchema) -> sql.Composed:
        """One statement: end the schema's connections, refuse a changed schema, empty it.

        DELETE, not TRUNCATE: TRUNCATE makes new files for every table, which waits on the
        disk; replica mode skips the triggers (append-only tables, foreign keys), so any order
        works. Settings are local to the statement's transaction."""
        schema = prepared.name
        deletes = sql.SQL(" ").join(sql.SQL("DELETE FROM {};").format(sql.Identifier(schema, t))
                                    for t in prepared.tables)
        return sql.SQL("""DO $reset$ BEGIN
PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = {schema};
IF {fingerprint} IS DISTINCT FROM {expected} THEN
  RAISE EXCEPTION 'the test changed the schema''s structure or version';
END IF;
PERFORM set_config('session_replication_role', 'replica', true);
PERFORM set_config('lock_timeout', '2s', true);
{deletes}
PERFORM setval(c.oid, s.seqstart, false) FROM pg_class c
  JOIN pg_sequence s ON s.seqrelid = c.oid
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = {schema};
END $reset$""").format(schema=sql.Literal(schema),
                       fingerprint=_fingerprint_query(schema, prepared.seeded),
                       expected=sql.Literal(prepared.fingerprint), deletes=deletes)

    def _release(self, template: Template, prepared: _PreparedSchema) -> None:
        try:
            self._connect().execute(self._reset(prepared))
        except psycopg.Error:
            self._drop(prepared.name)
            return
        self._free[template].append(prepared)

    def _drop(self, schema: str) -> None:
        try:
            connection = self._connect()
            connection.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE application_name = %s", (schema,))
            connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(schema)))
        finally:
            self._all.discard(schema)

    def close(self) -> None:
        for schema in list(self._all):
            self._drop(schema)
        self._free.clear()
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def postgres_prefix() -> str:
    """`t_<xdist worker>`: schema names of one worker never meet another's."""
    return f"t_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
