"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

PostgreSQL comes from `INSUREOPS_TEST_POSTGRES_URL` (set by `.ci/run` to a throwaway database).
Each test gets databases of its own (tests/databases.py): an empty one (`database_urls`), a
migrated platform database (`platform_database_urls`) and prepared tenant databases
(`test_databases`), copied from templates each worker builds once. Without the variable the
PostgreSQL half skips with the reason (reported once, with the number of tests skipped); under
`CI=true` it fails instead, so CI can never silently test one engine only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.databases import (
    DatabaseUrls,
    PostgresDatabases,
    SqliteDatabases,
    Template,
    postgres_prefix,
)

POSTGRES_URL_VARIABLE = "INSUREOPS_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", "postgresql"]
# `pytestmark = SQLITE_ONLY` in a module whose point is not the store (the HTTP pipeline, token
# checks): its database tests run once, on SQLite, not once per engine; the stores are tested
# on both elsewhere.
SQLITE_ONLY = pytest.mark.sqlite_only
POSTGRES_SKIP_REASON = (f"PostgreSQL tests need {POSTGRES_URL_VARIABLE}, e.g. "
                        "postgresql+psycopg://postgres@127.0.0.1:5432/insureops_test "
                        "(.ci/run sets it)")


def postgres_base_url() -> str | None:
    return os.environ.get(POSTGRES_URL_VARIABLE) or None


def require_postgres() -> str:
    url = postgres_base_url()
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the PostgreSQL tests: {POSTGRES_SKIP_REASON}")
    pytest.skip(POSTGRES_SKIP_REASON)


def folded_skip_location(longrepr: object) -> object:
    """A skip for a missing PostgreSQL, placed at `require_postgres` whatever test it skipped;
    any other report part unchanged."""
    if (isinstance(longrepr, tuple) and len(longrepr) == 3
            and str(longrepr[2]).endswith(POSTGRES_SKIP_REASON)):
        return (__file__, require_postgres.__code__.co_firstlineno, longrepr[2])
    return longrepr


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """`-ra` folds skips of one location and reason into one line with a count: give every
    PostgreSQL skip the same location, so the summary says the reason once, not per test."""
    report = yield
    if report.skipped:
        report.longrepr = folded_skip_location(report.longrepr)
    return report


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the store is not the point: SQLite only")


# The longest tests (node id prefixes; `pytest --durations`), longest first. A long test collected
# late starts last and holds one worker alone at the end (the schemathesis run, collected at 87%,
# did), so these run first, dealt in turn to the heads of the workers' shares: `--dist worksteal`
# gives each worker a contiguous share of the collection, and an idle worker takes the tail of
# another's queue. The rest keeps its collection order.
LONGEST_FIRST = (
    "tests/platform/test_schemathesis.py::test_every_operation_conforms_when_called_with_",
    "tests/platform/test_schemathesis.py::",  # after its shards: one service per worker
    "tests/platform/rules_studio/test_many_processes.py::",
    "tests/platform/rules_studio/test_run_resume.py::",
    "tests/platform/test_readme_walk.py::test_readme_walk_runs_as_written",
    "tests/platform/carrier_finder/test_workspace_market.py::",
    "tests/platform/faults/",
    "tests/platform/studio_web/",
)


def longest_first_rank(nodeid: str) -> int | None:
    """The place of `nodeid` in LONGEST_FIRST (its first matching prefix), None if none."""
    return next((rank for rank, prefix in enumerate(LONGEST_FIRST) if nodeid.startswith(prefix)),
                None)


def longest_first(items: list, rank, workers: int) -> list:
    """`items` with the ranked ones dealt in turn to the heads of `workers` contiguous shares
    (as xdist splits the collection: share i holds len // (workers - i) of what is left)."""
    ranked = sorted((item for item in items if rank(item) is not None), key=rank)
    rest = iter([item for item in items if rank(item) is None])
    ordered, left = [], len(items)
    for share in range(workers):
        size = left // (workers - share)
        heads = ranked[share::workers]
        ordered += heads + [next(rest) for _ in range(max(0, size - len(heads)))]
        left -= size
    return ordered + list(rest)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    items[:] = longest_first(items, lambda item: longest_first_rank(item.nodeid), workers)


@pytest.hookimpl(tryfirst=True)  # before the fixture's own params apply
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker(
            "sqlite_only"):
        metafunc.definition.add_marker(
            pytest.mark.parametrize("backend", ["sqlite"], indirect=True))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database engine under test: "sqlite" or "postgresql"."""
    if request.param == "postgresql":
        require_postgres()
    return request.param


@pytest.fixture(scope="session")
def sqlite_databases(tmp_path_factory: pytest.TempPathFactory) -> SqliteDatabases:
    return SqliteDatabases(tmp_path_factory.mktemp("database-templates"))


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases | None]:
    base = postgres_base_url()
    if base is None:
        yield None
        return
    databases = PostgresDatabases(base, postgres_prefix())
    try:
        yield databases
    finally:
        databases.close()


@dataclass
class TestDatabases:
    """Databases of one test on the backend under test; dropped when the test ends."""

    backend: str
    directory: Path
    sqlite: SqliteDatabases
    postgres: PostgresDatabases | None
    _drops: list[Callable[[], None]] = field(default_factory=list)

    def empty(self) -> DatabaseUrls:
        """A new database with nothing in it."""
        if self.backend == "sqlite":
            return self.sqlite.empty(self.directory, f"empty-{len(self._drops)}")
        urls, drop = self._postgres.empty_schema()
        self._drops.append(drop)
        return urls

    def copy(self, template: Template, directory: Path | None = None) -> DatabaseUrls:
        """A new database holding what `template` holds (on SQLite, a file in `directory`,
        by default the test's own temporary directory)."""
        if self.backend == "sqlite":
            return self.sqlite.copy(template, directory or self.directory)
        urls, drop = self._postgres.copy(template)
        self._drops.append(drop)
        return urls

    @property
    def _postgres(self) -> PostgresDatabases:
        assert self.postgres is not None, "the backend fixture skips without PostgreSQL"
        return self.postgres

    def drop_all(self) -> None:
        while self._drops:
            self._drops.pop()()


@pytest.fixture
def test_databases(backend: str, tmp_path: Path, sqlite_databases,
                   postgres_databases) -> Iterator[TestDatabases]:
    """`test_databases.empty()` / `.copy(Template.TENANT)`: databases of this test."""
    databases = TestDatabases(backend, tmp_path, sqlite_databases, postgres_databases)
    try:
        yield databases
    finally:
        databases.drop_all()


@pytest.fixture
def database_urls(test_databases: TestDatabases) -> DatabaseUrls:
    """A fresh, empty database for one test, on the engine `backend` names."""
    return test_databases.empty()


@pytest.fixture
def platform_database_urls(test_databases: TestDatabases) -> DatabaseUrls:
    """A platform database of this test's own, migrated to head."""
    return test_databases.copy(Template.PLATFORM)


@pytest.fixture(scope="session", autouse=True)
def _user_cache_folder_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The CLI's rules cache (platformdirs' user cache folder, docs/rules-language.md) of the
    tests, in-process or in the processes they start, is a folder of the run: never the user's.
    The run's pytest-xdist workers share it (the caches are made for concurrent processes), so
    what one worker compiled (the example market's appetites: seconds) the others read."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "user-cache"
    folder.mkdir(exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(folder)
