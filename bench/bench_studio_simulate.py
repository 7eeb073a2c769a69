"""The rule studio's simulate route: server time of one request of 10,000 cases.

    /work/.venv/bin/python bench/bench_studio_simulate.py [--cases 10000] [--rounds 5]

Starts the real service in-process on a temporary SQLite platform database, makes a user who
owns a workspace, logs in, and POSTs the appetite example with `--cases` seeded businesses to
/api/rules/rules/simulate/ `--rounds` times (the body encoded once). A middleware added in front
of the service measures each request's server time, from the request's arrival to its response
(JSON body read and validated, the simulation in its worker thread, the response written); the
round trip seen by the client is printed beside it. Then times 50 calls of /rules/check/ on the
same source (what an editor calls as the author types). Prints medians.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from argon2 import PasswordHasher
from cryptography.fernet import Fernet

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import APPETITE, AS_OF, generate_businesses

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.identity import Membership, Passwords, User, Workspace, new_tenant_id
from insureops.platform.keys import DATABASE

PASSWORD = "correct horse battery"
CHECKS = 50


async def owner_session(client: TestClient) -> str:
    """A verified user owning a workspace, logged in through the real login route."""
    now = datetime.datetime.now(datetime.UTC)
    hasher = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    user_id, workspace_id = new_tenant_id(time.time()), new_tenant_id(time.time() + 1)
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(User(id=user_id, email="bench@example.com", name="Bench",
                             password_hash=hasher.hash(PASSWORD), email_verified_at=now,
                             created_at=now))
        uow.session.add(Workspace(tenant_id=workspace_id, name="Bench", created_at=now))
        await uow.session.flush()
        uow.session.add(Membership(user_id=user_id, workspace_id=workspace_id, role="owner",
                                   created_at=now))
    response = await client.post("/api/auth/login/",
                                 json={"email": "bench@example.com", "password": PASSWORD})
    assert response.status == 200, await response.text()
    return response.cookies["sessionid"].value


async def run(cases: int, rounds: int) -> None:
    server_times: list[float] = []
    check_times: list[float] = []

    @web.middleware
    async def timing(request, handler):
        started = time.perf_counter()
        response = await handler(request)
        if request.path.endswith("/simulate/"):
            server_times.append(time.perf_counter() - started)
        elif request.path.endswith("/check/"):
            check_times.append(time.perf_counter() - started)
        return response

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db",
                            secret_key="bench", fernet_keys=(Fernet.generate_key().decode(),))
        app = create_app(settings)
        app.middlewares.insert(0, timing)
        async with TestClient(TestServer(app)) as client:
            session = await owner_session(client)
            body = json.dumps({
                "source": APPETITE.read_text(), "as_of": AS_OF.isoformat(),
                "cases": [{"id": n, "inputs": {"business": business}}
                          for n, business in enumerate(generate_businesses(cases), start=1)],
            }).encode()
            headers = {"Cookie": f"sessionid={session}", "Content-Type": "application/json"}
            trips = []
            for _ in range(rounds + 1):  # the first round compiles the ruleset: not counted
                started = time.perf_counter()
                response = await client.post("/api/rules/rules/simulate/", data=body,
                                             headers=headers)
                payload = await response.read()
                trips.append(time.perf_counter() - started)
                assert response.status == 200, payload[:500]
            check = json.dumps({"source": APPETITE.read_text()}).encode()
            for _ in range(CHECKS):  # what an editor calls as the author types
                response = await client.post("/api/rules/rules/check/", data=check,
                                             headers=headers)
                assert response.status == 200, await response.text()
    server, trip = server_times[1:], trips[1:]
    print(f"{cases:,} cases, body {len(body) / 1e6:.1f} MB, response {len(payload) / 1e6:.1f} MB")
    print(f"server time  median {statistics.median(server):.3f} s  "
          f"(min {min(server):.3f}, max {max(server):.3f}; first round {server_times[0]:.3f})")
    print(f"round trip   median {statistics.median(trip):.3f} s")
    print(f"check (appetite example, {len(APPETITE.read_text().splitlines())} lines) server time "
          f"median {statistics.median(check_times) * 1000:.1f} ms over {CHECKS} calls "
          f"(max {max(check_times) * 1000:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.cases, arguments.rounds))


if __name__ == "__main__":
    main()
