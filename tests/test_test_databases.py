"""The test suite's own seams: per-test database copies are isolated, reset and reported; the
longest tests are dealt to the heads of the workers' shares."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from sqlalchemy import create_engine, inspect, text

from tests.conftest import (
    LONGEST_FIRST,
    POSTGRES_SKIP_REASON,
    folded_skip_location,
    longest_first,
    require_postgres,
)
from tests.databases import Template


def _rows(url: str, table: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
    finally:
        engine.dispose()


def _write(url: str, statement: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()


def test_platform_copy_is_migrated_and_empty_when_a_test_starts(platform_database_urls):
    from insureops.platform.data.database import create_engine as create_async_engine
    from insureops.platform.migrations import current_revision, head_revision

    async def revision() -> str | None:
        engine = create_async_engine(platform_database_urls.async_)
        try:
            return await current_revision(engine)
        finally:
            await engine.dispose()

    assert asyncio.run(revision()) == head_revision()
    assert _rows(platform_database_urls.sync, "users") == 0


def test_copies_never_share_rows_when_one_test_holds_two(test_databases):
    first, second = test_databases.copy(Template.TENANT), test_databases.copy(Template.TENANT)
    _write(first.sync, "INSERT INTO reinsurers (tenant_id, name) VALUES ('t', 'Re One')")
    assert (_rows(first.sync, "reinsurers"), _rows(second.sync, "reinsurers")) == (1, 0)


def test_reused_postgres_schema_is_empty_when_the_next_test_gets_it(postgres_databases):
    require_postgres()
    urls, release = postgres_databases.copy(Template.TENANT)
    _write(urls.sync, "INSERT INTO reinsurers (tenant_id, name) VALUES ('t', 'Re One')")
    release()
    again, release_again = postgres_databases.copy(Template.TENANT)
    try:
        assert again.sync == urls.sync, "the worker reuses the schema it emptied"
        assert _rows(again.sync, "reinsurers") == 0
        assert _rows(again.sync, "insureops_data_model") == 1, "version rows are kept"
    finally:
        release_again()


def test_postgres_schema_is_dropped_not_reused_when_a_test_changed_its_structure(
        postgres_databases):
    require_postgres()
    urls, release = postgres_databases.copy(Template.PLATFORM)
    _write(urls.sync, "CREATE TABLE left_behind (x integer)")
    release()
    again, release_again = postgres_databases.copy(Template.PLATFORM)
    try:
        assert again.sync != urls.sync
        engine = create_engine(again.sync)
        try:
            assert "left_behind" not in inspect(engine).get_table_names()
        finally:
            engine.dispose()
    finally:
        release_again()


def test_postgres_skips_share_one_location_when_reported():
    first = ("tests/platform/a.py", 10, f"Skipped: {POSTGRES_SKIP_REASON}")
    second = ("tests/engine/b.py", 99, f"Skipped: {POSTGRES_SKIP_REASON}")
    other = ("tests/engine/b.py", 99, "Skipped: needs a display")
    assert folded_skip_location(first) == folded_skip_location(second)
    assert folded_skip_location(other) == other


def test_postgres_schema_is_dropped_when_a_test_changed_its_version_rows(postgres_databases):
    require_postgres()
    urls, release = postgres_databases.copy(Template.TENANT)
    _write(urls.sync, "DELETE FROM insureops_data_model")
    release()
    again, release_again = postgres_databases.copy(Template.TENANT)
    try:
        assert again.sync != urls.sync
        assert _rows(again.sync, "insureops_data_model") == 1
    finally:
        release_again()


def test_postgres_schema_is_emptied_past_a_connection_the_test_left_in_a_transaction(
        postgres_databases):
    require_postgres()
    urls, release = postgres_databases.copy(Template.TENANT)
    engine = create_engine(urls.sync)
    connection = engine.connect()
    connection.execute(text("INSERT INTO reinsurers (tenant_id, name) VALUES ('t', 'Re One')"))
    try:
        release()  # ends the open connection, then empties the schema
        again, release_again = postgres_databases.copy(Template.TENANT)
        try:
            assert again.sync == urls.sync
            assert _rows(again.sync, "reinsurers") == 0
        finally:
            release_again()
    finally:
        connection.invalidate()
        engine.dispose()


def test_longest_tests_head_each_workers_share_in_turn_and_the_rest_keeps_its_order():
    items = list("abcdefghij")
    rank = {"h": 0, "c": 1, "j": 2}.get
    assert longest_first(items, rank, 2) == list("hjabd" "cefgi")  # shares of 5 and 5
    assert longest_first(items, rank, 1) == list("hcjabdefgi")


def test_every_longest_first_prefix_names_a_test_that_exists():
    root = Path(__file__).resolve().parents[1]
    for prefix in LONGEST_FIRST:
        path, _, name = prefix.partition("::")
        assert (root / path).exists(), prefix
        if name:
            assert re.search(rf"def {re.escape(name)}", (root / path).read_text()), prefix
