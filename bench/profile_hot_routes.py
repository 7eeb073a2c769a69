"""Profile of the other hot routes: login, carrier matching, studio simulate and execute.

    python bench/profile_hot_routes.py [--setup sqlite|pg] [--rounds 200] [--routes ...]
        [--profile ROUTE] [--top 25] [--statements] [--postgres postgresql://...]

The real app in-process (aiohttp's test server, the example market) on the embedded default or
on PostgreSQL (databases `insureops_hotpath_profile_*`, made and dropped here). An owner logs in;
a studio rule is published. Each route then runs `--rounds` sequential requests: median and p90
time, CPU time per request (the figure noise moves least), SQL statements per request and, on
PostgreSQL, round trips (statements plus BEGIN, COMMIT, pre-pings); `--profile ROUTE` adds a
cProfile. Login keeps the real argon2 parameters: the rest of its time is what is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import datetime
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psycopg._cursor_base
import psycopg.generators
import sqlalchemy as sa
from aiohttp.test_utils import TestClient, TestServer
from cryptography.fernet import Fernet

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hot_path import drop_postgres, prepare_postgres

from insureops.platform.app import create_app
from insureops.platform.carrier_finder.market.startup import example_market_folder, load_folder
from insureops.platform.config import Settings
from insureops.platform.identity import Membership, Passwords, User, Workspace, new_tenant_id
from insureops.platform.keys import DATABASE

ROOT = Path(__file__).resolve().parents[1]
EMAIL, PASSWORD = "bench@example.com", "correct horse battery staple"
STUDIO = "/api/rules/rules"
MATCH = "/api/v1/carrier_finder/match-carriers-detailed/"
SOURCE = (ROOT / "examples" / "appetite_acme_contractors.rules").read_text(encoding="utf-8")
BUSINESS = json.loads((ROOT / "examples" / "business.json").read_text(encoding="utf-8"))
ROUTES = ("login", "match", "simulate", "execute")
COUNTS: collections.Counter[str] = collections.Counter()


SEEN: list[str] = []  # with --statements: the text of each statement of the last request


def _count_round_trips() -> None:
    """On PostgreSQL count each exchange with the server as `round trips`: psycopg runs every
    query, BEGIN, COMMIT, ROLLBACK and pool pre-ping through `generators.execute`."""
    execute = psycopg.generators.execute

    def counted(pgconn):
        COUNTS["round trips"] += 1
        return (yield from execute(pgconn))
    psycopg.generators.execute = counted
    psycopg._cursor_base.execute = counted


def _count(conn, cursor, statement, parameters, context, executemany) -> None:
    COUNTS[statement.split()[0].upper()] += 1
    COUNTS["all"] += 1
    SEEN.append(" ".join(statement.split())[:160])


async def _owner(app) -> None:
    now = datetime.datetime.now(datetime.UTC)
    user_id, workspace_id = new_tenant_id(time.time()), new_tenant_id(time.time() + 1)
    async with app[DATABASE].unit_of_work() as uow:
        uow.session.add(User(id=user_id, email=EMAIL, name="Bench",
                             password_hash=Passwords().hash(PASSWORD), email_verified_at=now,
                             created_at=now))
        uow.session.add(Workspace(tenant_id=workspace_id, name="Bench", created_at=now))
        await uow.session.flush()
        uow.session.add(Membership(user_id=user_id, workspace_id=workspace_id, role="owner",
                                   created_at=now))


def _cases(count: int) -> list[dict]:
    return [{"id": n, "inputs": {"business": {**BUSINESS, "employee_count": n % 40}}}
            for n in range(count)]


async def _request(client: TestClient, route: str, state: dict) -> int:
    """One request of `route`; its status."""
    if route == "login":
        response = await client.post("/api/auth/login/",
                                     json={"email": EMAIL, "password": PASSWORD})
    elif route == "match":
        response = await client.post(MATCH, json={"business": BUSINESS},
                                     headers=state["headers"])
    elif route == "simulate":
        response = await client.post(f"{STUDIO}/simulate/", json={
            "rule_id": state["rule"], "cases": state["cases"], "as_of": "2026-03-01"},
            headers=state["headers"])
    else:
        response = await client.post(f"{STUDIO}/{state['rule']}/execute/", json={
            "inputs": {"business": BUSINESS}, "as_of": "2026-03-01"}, headers=state["headers"])
    await response.read()
    return response.status


async def _prepare(client: TestClient, cases: int) -> dict:
    response = await client.post("/api/auth/login/", json={"email": EMAIL, "password": PASSWORD})
    assert response.status == 200, await response.text()
    headers = {"Cookie": f"sessionid={response.cookies['sessionid'].value}"}
    response = await client.post(f"{STUDIO}/", json={"source": SOURCE}, headers=headers)
    assert response.status == 201, await response.text()
    rule = (await response.json())["id"]
    response = await client.patch(f"{STUDIO}/{rule}/", json={"status": "published"},
                                  headers=headers)
    assert response.status == 200, await response.text()
    return {"headers": headers, "rule": rule, "cases": _cases(cases)}


async def main(args: argparse.Namespace) -> None:
    directory = tempfile.mkdtemp(prefix="insureops-routes-")
    platform_url = f"sqlite+aiosqlite:///{directory}/platform.sqlite3"
    if args.setup == "pg":
        platform_url, _ = prepare_postgres(args.postgres)
    settings = Settings(
        database_url=platform_url, secret_key="bench-secret-" + "x" * 40,
        fernet_keys=(Fernet.generate_key().decode(),), log_level="WARNING",
        tenant_sqlite_directory=Path(directory) / "tenants")
    app = create_app(settings)
    sa.event.listen(sa.Engine, "before_cursor_execute", _count)
    if args.setup == "pg":
        _count_round_trips()
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        if args.setup == "pg":  # the embedded default loads the example market itself
            await load_folder(app[DATABASE], example_market_folder(),
                              now=datetime.datetime.now(datetime.UTC))
        await _owner(app)
        state = await _prepare(client, args.cases)
        print(f"{args.setup}: {args.rounds} sequential requests per route after a warm-up; "
              f"simulate: {args.cases} cases; times in ms")
        print("| route | median | p90 | CPU per request | statements per request | of which |")
        print("|---|---:|---:|---:|---:|---|")
        for route in args.routes.split(","):
            rounds = max(5, args.rounds // 20) if route == "login" else args.rounds
            for _ in range(3):
                status = await _request(client, route, state)
                assert status == 200, (route, status)
            COUNTS.clear()
            profile = cProfile.Profile() if route == args.profile else None
            times = []
            cpu_started = time.process_time()
            for _ in range(rounds):
                if profile:
                    profile.enable()
                started = time.perf_counter()
                status = await _request(client, route, state)
                times.append((time.perf_counter() - started) * 1e3)
                if profile:
                    profile.disable()
                assert status == 200, (route, status)
            cpu = (time.process_time() - cpu_started) * 1e3 / rounds
            if args.statements:
                SEEN.clear()
                await _request(client, route, state)
                print(f"statements of one {route} request:", *SEEN, sep="\n  ")
            times.sort()
            kinds = ", ".join(f"{name} {count / rounds:.1f}" for name, count
                              in sorted(COUNTS.items()) if name != "all")
            print(f"| {route} | {statistics.median(times):.2f} | "
                  f"{times[int(len(times) * 0.9)]:.2f} | {cpu:.2f} | {COUNTS['all'] / rounds:.1f} | "
                  f"{kinds} |")
            if profile:
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out)
                stats.sort_stats("cumulative").print_stats(args.top)
                stats.sort_stats("tottime").print_stats(args.top)
                print(out.getvalue())
    finally:
        await client.close()
        if args.setup == "pg":
            drop_postgres(args.postgres)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", choices=("sqlite", "pg"), default="sqlite")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--routes", default=",".join(ROUTES))
    parser.add_argument("--profile", choices=ROUTES)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--statements", action="store_true",
                        help="print the statements of one request of each route")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    asyncio.run(main(parser.parse_args()))
