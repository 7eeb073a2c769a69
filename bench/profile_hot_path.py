"""Profile of the tenant API's hot path: cProfile and the SQL statements of each request.

    /work/venvs/hotpath/bin/python bench/profile_hot_path.py [--setup sqlite|pg] [--rounds 300]
        [--top 25] [--postgres postgresql://postgres@127.0.0.1:5432]

Serves the service in-process (aiohttp's test server) on the embedded default (SQLite platform
file, embedded SQLite tenant database) or on PostgreSQL (platform and tenant databases
`insureops_hotpath_profile_*`, made and dropped here), runs `--rounds` sequential create + GET
pairs under cProfile and prints the functions with the most cumulative and own time, then the
statements each request sends to the platform and the tenant database (counted with SQLAlchemy's
`before_cursor_execute` and the direct pools' observers, transaction control included): the
round trips, a figure the noisy machine does not blur.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import io
import pstats
import sys
import tempfile
from pathlib import Path

import sqlalchemy as sa
from aiohttp.test_utils import TestClient, TestServer
from cryptography.fernet import Fernet

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hot_path import PATH, _seed, drop_postgres, prepare_postgres

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.data.direct import OBSERVERS, DirectPool

COUNTS: collections.Counter[str] = collections.Counter()


def _count(conn, cursor, statement, parameters, context, executemany) -> None:
    _count_in(str(conn.engine.url.database), statement)


def _count_direct(pool: DirectPool, statement: str) -> None:
    _count_in(pool.database, statement)


def _count_in(database_name: str, statement: str) -> None:
    database = "platform" if "platform" in database_name else "tenant"
    COUNTS[database] += 1
    COUNTS[f"{database}: {statement.split()[0].upper()}"] += 1


async def main(args: argparse.Namespace) -> None:
    directory = tempfile.mkdtemp(prefix="insureops-profile-")
    tenant_url = None
    platform_url = f"sqlite+aiosqlite:///{directory}/platform.sqlite3"
    if args.setup == "pg":
        platform_url, tenant_url = prepare_postgres(args.postgres)
    settings = Settings(
        database_url=platform_url, secret_key="bench-secret-" + "x" * 40,
        fernet_keys=(Fernet.generate_key().decode(),), log_level="WARNING",
        tenant_database_allowed_networks=("127.0.0.1/32",),
        tenant_sqlite_directory=Path(directory) / "tenants")
    app = create_app(settings)
    sa.event.listen(sa.Engine, "before_cursor_execute", _count)
    OBSERVERS.append(_count_direct)  # the PostgreSQL hot statements' direct pools
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        key = await _seed(app, tenant_url)
        headers = {"Authorization": f"Bearer {key}"}
        for _ in range(20):  # warm-up
            response = await client.post(PATH, json={"name": "Warm"}, headers=headers)
            assert response.status == 201, await response.text()
        COUNTS.clear()
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.rounds):
            response = await client.post(PATH, json={"name": "Someone"}, headers=headers)
            created = (await response.json())["uuid"]
            response = await client.get(f"{PATH}{created}/", headers=headers)
            assert response.status == 200
        profile.disable()
        if args.dump:
            profile.dump_stats(args.dump)
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out)
        stats.sort_stats("cumulative").print_stats(args.top)
        stats.sort_stats("tottime").print_stats(args.top)
        print(out.getvalue())
        requests = 2 * args.rounds
        print("SQL statements per request (create and GET averaged):")
        for name, count in sorted(COUNTS.items()):
            print(f"  {name:30} {count / requests:.2f}")
    finally:
        await client.close()
        if args.setup == "pg":
            drop_postgres(args.postgres)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", choices=("sqlite", "pg"), default="sqlite")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", help="write the raw profile here (pstats)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    asyncio.run(main(parser.parse_args()))
