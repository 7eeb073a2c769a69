"""Server time of one detailed match with and without a workspace's own appetite.

    python bench/bench_own_market.py [--rounds 40]

Starts the real service in-process on a temporary SQLite platform database (which loads the
example market on its first start), and two workspaces: one with nothing of its own, one with an own carrier, a
product and a published appetite rule (the rule studio's). POSTs the same business to
/api/v1/carrier_finder/match-carriers-detailed/ as each, alternating, `--rounds` times; a
middleware in front of the service times each request from arrival to response. Prints the
medians and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import DummyCookieJar, web
from aiohttp.test_utils import TestClient, TestServer
from argon2 import PasswordHasher
from cryptography.fernet import Fernet

sys.path.insert(0, str(Path(__file__).resolve().parent))

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.identity import Membership, Passwords, User, Workspace, new_tenant_id
from insureops.platform.keys import DATABASE

PASSWORD = "correct horse battery"
BUSINESS = {"name": "Bright Spark Electric", "naics": "238210", "state": "AZ",
            "annual_revenue": 1750000, "employee_count": 8, "years_in_business": 15,
            "requested_limit": 1000000, "prior_claims": []}
APPETITE = '''ruleset appetite.mesa_county.gl "Mesa County Mutual: contractors liability"
input business: Business
default decision decline

rule electricians "Electrical contractors in Arizona"
when business.naics == "238210" and business.state == "AZ"
then
    score += 72
    accept "Mesa County Mutual writes electricians in Arizona"
end
'''


async def owner_headers(client: TestClient, email: str) -> dict:
    """A verified user owning a new workspace, logged in through the real login route."""
    now = datetime.datetime.now(datetime.UTC)
    hasher = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    user_id, workspace_id = new_tenant_id(time.time()), new_tenant_id(time.time() + 1)
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(User(id=user_id, email=email, name="Bench",
                             password_hash=hasher.hash(PASSWORD), email_verified_at=now,
                             created_at=now))
        uow.session.add(Workspace(tenant_id=workspace_id, name=email, created_at=now))
        await uow.session.flush()
        uow.session.add(Membership(user_id=user_id, workspace_id=workspace_id, role="owner",
                                   created_at=now))
    response = await client.post("/api/auth/login/", json={"email": email, "password": PASSWORD})
    assert response.status == 200, await response.text()
    return {"Cookie": f"sessionid={response.cookies['sessionid'].value}"}


async def ok(client: TestClient, method: str, path: str, headers: dict, body: dict) -> dict:
    response = await client.request(method, path, json=body, headers=headers)
    assert response.status in (200, 201), await response.text()
    return await response.json()


async def run(rounds: int) -> None:
    times: dict[str, list[float]] = {"market only": [], "with own appetite": []}
    current: list[str] = []

    @web.middleware
    async def timing(request, handler):
        started = time.perf_counter()
        response = await handler(request)
        if request.path.endswith("/match-carriers-detailed/"):
            times[current[0]].append(time.perf_counter() - started)
        return response

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db",
                            secret_key="bench", fernet_keys=(Fernet.generate_key().decode(),))
        app = create_app(settings)
        app.middlewares.insert(0, timing)
        async with TestClient(TestServer(app), cookie_jar=DummyCookieJar()) as client:
            plain = await owner_headers(client, "plain@example.com")
            mine = await owner_headers(client, "own@example.com")
            rule = await ok(client, "POST", "/api/rules/rules/", mine,
                            {"source": APPETITE, "kind": "appetite"})
            await ok(client, "PATCH", f"/api/rules/rules/{rule['id']}/", mine,
                     {"published_version": 1})
            finder = "/api/v1/carrier_finder"
            await ok(client, "POST", f"{finder}/carriers/", mine,
                     {"id": "mesa-county-mutual", "name": "Mesa County Mutual",
                      "states": ["AZ"]})
            await ok(client, "POST", f"{finder}/products/", mine,
                     {"carrier_id": "mesa-county-mutual", "code": "gl", "line": "CGL",
                      "name": "Contractors GL", "max_limit": 1000000,
                      "appetite_rule_id": rule["id"]})
            body = {"business": BUSINESS}
            for round_ in range(rounds + 2):  # the first two rounds compile and warm: dropped
                for name, headers in (("market only", plain), ("with own appetite", mine)):
                    current[:] = [name]
                    answer = await ok(client, "POST", f"{finder}/match-carriers-detailed/",
                                      headers, body)
                    own = [r for r in answer["results"] if r["own"]]
                    assert bool(own) == (name == "with own appetite")
                    if round_ < 2:
                        times[name].pop()
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"load average {os.getloadavg()[0]:.2f}; {rounds} rounds, alternating")
    for name, value in medians.items():
        print(f"{name:18} median {value * 1000:6.2f} ms  (min {min(times[name]) * 1000:.2f})")
    print(f"ratio {medians['with own appetite'] / medians['market only']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
