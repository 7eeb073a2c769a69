"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

PostgreSQL comes from `INSUREOPS_TEST_POSTGRES_URL` (set by `.ci/run` to a throwaway database).
Each test gets its own PostgreSQL schema (selected through `search_path`), or its own SQLite
file, so tests never see each other's rows. Without the variable the PostgreSQL half skips with
the reason; under `CI=true` it fails instead, so CI can never silently test one engine only.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

POSTGRES_URL_VARIABLE = "INSUREOPS_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", "postgresql"]


@dataclass(frozen=True)
class DatabaseUrls:
    """One isolated database, as a sync URL (alembic, DDL, plain SQL) and an async one."""

    backend: str
    sync: str
    async_: str


def postgres_base_url() -> str | None:
    return os.environ.get(POSTGRES_URL_VARIABLE) or None


def require_postgres() -> str:
    url = postgres_base_url()
    if url:
        return url
    reason = (f"PostgreSQL tests need {POSTGRES_URL_VARIABLE}, e.g. "
              "postgresql+psycopg://postgres@127.0.0.1:5432/insureops_test (.ci/run sets it)")
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the PostgreSQL tests: {reason}")
    pytest.skip(reason)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database engine under test: "sqlite" or "postgresql"."""
    if request.param == "postgresql":
        require_postgres()
    return request.param


def _plain_psycopg_conninfo(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture
def database_urls(backend: str, tmp_path: Path):
    """A fresh, empty database for one test, on the engine `backend` names."""
    if backend == "sqlite":
        path = tmp_path / "test.sqlite3"
        yield DatabaseUrls("sqlite", f"sqlite:///{path}", f"sqlite+aiosqlite:///{path}")
        return
    import psycopg

    base = require_postgres()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(_plain_psycopg_conninfo(base), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in base else "?"
    url = f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
    try:
        yield DatabaseUrls("postgresql", url, url)
    finally:
        with psycopg.connect(_plain_psycopg_conninfo(base), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
