"""Load: two `insureops serve` instances on PostgreSQL under a mixed workload, and a bare baseline.

    /work/.venv/bin/python bench/bench_load.py [--duration 60] [--concurrency 16] [--mix login=0]
        [--postgres postgresql://postgres@127.0.0.1:5432/postgres] [--prefix insureops_load]

Throughput, p50/p99 per operation, errors and server CPU per request; every acknowledged create
looked up in the tenant database; the same client against bare aiohttp processes, and the ratio.
Exit status 1 on any error or lost write. The set-up and the mix are described below.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import psycopg
from cryptography.fernet import Fernet, MultiFernet

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import APPETITE, AS_OF, generate_businesses

# Creates a platform and a tenant database on the PostgreSQL server (`<prefix>_platform`,
# `<prefix>_tenant`, dropped at the end unless --keep): the platform one migrated with the
# example market loaded (`insureops market load examples/market`), the tenant one prepared
# (`insureops schema apply`). Makes a verified user owning a workspace whose saved tenant database
# is the tenant one, and an API key. Starts `--instances` service processes on free ports, then
# `--concurrency` aiohttp client workers (one client process, worker i on instance i mod N) run
# the mix for `--duration` seconds (after one untimed match and simulation per instance: the first
# match loads and indexes the market), each operation drawn with these weights:
#
#     create  POST /api/v2/mcp/clients/                            (API key)       36
#     read    GET  /api/v2/mcp/clients/<uuid>/ of a created one    (API key)       36
#     match   POST /api/v1/carrier_finder/match-carriers-detailed/ (session)       15
#     simulate POST /api/rules/rules/simulate/, 20 cases           (session)       10
#     login   POST /api/auth/login/ (argon2id, production cost)                     3
#
# Prints throughput, p50/p99 per operation and every non-2xx answer, then checks that every
# acknowledged create (201) is in the tenant database, and the server processes' CPU time per
# request (less noisy than throughput on a shared machine). Then the same client run against
# `--instances` bare aiohttp processes answering every path with a small JSON body (no database,
# no validation), and the ratio of the two throughputs. Exit status 1 on any error or lost write.

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "correct horse battery staple"
EMAIL = "load@example.com"
WEIGHTS = {"create": 36, "read": 36, "match": 15, "simulate": 10, "login": 3}
MATCH_BUSINESS = {
    "name": "Bright Spark Electric",
    "description": "Residential and light commercial electrical service and panel upgrades.",
    "naics": "238210", "state": "AZ", "annual_revenue": 1750000, "employee_count": 8,
    "years_in_business": 15, "requested_limit": 1000000, "prior_claims": [],
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def insureops() -> str:
    return str(Path(sys.executable).with_name("insureops"))


# --- set-up ---------------------------------------------------------------------------------

@dataclass
class Deployment:
    platform_url: str
    tenant_url: str
    environment: dict[str, str]
    api_key: str = ""


def create_databases(admin_url: str, prefix: str) -> tuple[str, str]:
    base = admin_url.rsplit("/", 1)[0]
    with psycopg.connect(admin_url, autocommit=True) as connection:
        for name in (f"{prefix}_platform", f"{prefix}_tenant"):
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{name}"')
    return f"{base}/{prefix}_platform", f"{base}/{prefix}_tenant"


def drop_databases(admin_url: str, prefix: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as connection:
        for name in (f"{prefix}_platform", f"{prefix}_tenant"):
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_cli(deployment: Deployment, *arguments: str) -> None:
    environment = {**os.environ, **deployment.environment}
    subprocess.run([insureops(), *arguments], env=environment, check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)


async def seed(deployment: Deployment, fernet_key: str) -> None:
    """A verified owner of a workspace whose tenant database is the tenant one; an API key."""
    from insureops.platform.auth.requirements import Scope
    from insureops.platform.data.database import Database
    from insureops.platform.identity import Membership, Passwords, User, Workspace, new_tenant_id
    from insureops.platform.records.api_keys import (
        ApiKey,
        hash_api_key,
        new_api_key,
        normalise_scopes,
    )
    from insureops.platform.tenancy.databases import TenantDatabase, encrypt_url

    now = datetime.datetime.now(datetime.UTC)
    user_id, workspace_id = new_tenant_id(time.time()), new_tenant_id(time.time() + 1)
    key = new_api_key()
    database = Database.connect(deployment.platform_url.replace(
        "postgresql://", "postgresql+psycopg://", 1))
    try:
        async with database.unit_of_work() as uow:
            uow.session.add(User(id=user_id, email=EMAIL, name="Load", created_at=now,
                                 password_hash=Passwords().hash(PASSWORD), email_verified_at=now))
            uow.session.add(Workspace(tenant_id=workspace_id, name="Load", created_at=now))
            await uow.session.flush()
            uow.session.add(Membership(user_id=user_id, workspace_id=workspace_id, role="owner",
                                       created_at=now))
            uow.session.add(ApiKey(id=new_tenant_id(time.time() + 2), workspace_id=workspace_id,
                                   name="load", display_prefix=key[:11], key_hash=hash_api_key(key),
                                   scopes=normalise_scopes((Scope.READ, Scope.WRITE)),
                                   created_at=now))
            uow.session.add(TenantDatabase(
                workspace_id=workspace_id, backend="postgresql", saved_at=now,
                url_encrypted=encrypt_url(MultiFernet([Fernet(fernet_key)]),
                                          deployment.tenant_url)))
    finally:
        await database.engine.dispose()
    deployment.api_key = key


# --- servers ----------------------------------------------------------------------------------

class Server:
    """One server process on a free port, its output in a log file."""

    def __init__(self, command: list[str], environment: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        with log.open("ab") as handle:
            self.process = subprocess.Popen(
                [part.replace("{port}", str(self.port)) for part in command],
                env={**os.environ, **environment}, stdout=handle, stderr=subprocess.STDOUT)
        self.log = log

    async def ready(self, path: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise SystemExit(f"server exited: {self.log.read_text()[-2000:]}")
                try:
                    async with session.get(f"{self.base}{path}") as response:
                        if response.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
        raise SystemExit(f"server not ready: {self.log.read_text()[-2000:]}")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far (Linux /proc)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def bare_server(port: int) -> None:
    """A bare aiohttp app: every path answers a small JSON body (the create's shape on POST
    to the clients path), without database, authentication or validation."""
    from aiohttp import web

    async def handle(request: web.Request) -> web.Response:
        await request.read()
        if request.method == "POST" and request.path == "/api/v2/mcp/clients/":
            return web.json_response({"uuid": str(uuid.uuid4()), "name": "x"}, status=201)
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


# --- the load ----------------------------------------------------------------------------------

@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(
        lambda: defaultdict(int)))
    created: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.latencies.values())

    def error_count(self) -> int:
        return sum(sum(by.values()) for by in self.errors.values())


def simulation_body(cases: int) -> bytes:
    return json.dumps({
        "source": APPETITE.read_text(), "as_of": AS_OF.isoformat(),
        "cases": [{"id": n, "inputs": {"business": business}}
                  for n, business in enumerate(generate_businesses(cases), start=1)],
    }).encode()


async def login(session: aiohttp.ClientSession, base: str) -> int:
    async with session.post(f"{base}/api/auth/login/",
                            json={"email": EMAIL, "password": PASSWORD}) as response:
        await response.read()
        return response.status


async def run_load(bases: list[str], api_key: str, duration: float, concurrency: int,
                   seed_value: int = 7) -> Results:
    results = Results()
    simulate = simulation_body(20)
    match = json.dumps({"business": MATCH_BUSINESS, "limit": 10}).encode()
    key_headers = {"Authorization": f"Bearer {api_key}"}
    json_type = {"Content-Type": "application/json"}
    names = iter(range(10**9))
    operations, weights = zip(*[(o, w) for o, w in WEIGHTS.items() if w > 0], strict=True)

    async def worker(index: int) -> None:
        rng = random.Random(seed_value + index)
        base = bases[index % len(bases)]
        # each worker is a user agent of its own: its own cookie jar and connection pool
        # (unsafe: the jar keeps cookies of an IP address such as 127.0.0.1)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30),
                                         cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            if await login(session, base) != 200:
                raise SystemExit("login failed before the run")
            logged_in.append(index)
            if len(logged_in) == concurrency:
                everyone.set()
            await ready.wait()
            while time.monotonic() < deadline:
                operation = rng.choices(operations, weights)[0]
                if operation == "read" and not results.created:
                    operation = "create"
                started = time.perf_counter()
                try:
                    if operation == "create":
                        async with session.post(f"{base}/api/v2/mcp/clients/", headers=key_headers,
                                                json={"name": f"load {next(names)}"}) as response:
                            body = await response.read()
                            status = response.status
                            if status == 201:
                                results.created.append(json.loads(body)["uuid"])
                    elif operation == "read":
                        target = rng.choice(results.created)
                        async with session.get(f"{base}/api/v2/mcp/clients/{target}/",
                                               headers=key_headers) as response:
                            await response.read()
                            status = response.status
                    elif operation == "match":
                        async with session.post(
                                f"{base}/api/v1/carrier_finder/match-carriers-detailed/",
                                data=match, headers=json_type) as response:
                            await response.read()
                            status = response.status
                    elif operation == "simulate":
                        async with session.post(f"{base}/api/rules/rules/simulate/",
                                                data=simulate, headers=json_type) as response:
                            await response.read()
                            status = response.status
                    else:
                        status = await login(session, base)
                except (aiohttp.ClientError, TimeoutError) as exc:
                    status, body = 0, type(exc).__name__.encode()
                elapsed = time.perf_counter() - started
                if 200 <= status < 300:
                    results.latencies[operation].append(elapsed)
                else:
                    results.errors[operation][str(status)] += 1

    ready, everyone, logged_in = asyncio.Event(), asyncio.Event(), []
    deadline = float("inf")
    tasks = [asyncio.create_task(worker(index)) for index in range(concurrency)]
    await everyone.wait()  # every worker logged in (argon2 is slow on purpose): then the clock
    began = time.monotonic()
    deadline = began + duration
    ready.set()
    await asyncio.gather(*tasks)
    results.seconds = time.monotonic() - began
    return results


async def warm_up(bases: list[str]) -> float:
    """One match and one simulation per instance before the clock starts: the first match
    loads and indexes the market, the first simulation compiles the ruleset. Their time."""
    started = time.perf_counter()
    for base in bases:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            await login(session, base)
            for path, body in (("/api/v1/carrier_finder/match-carriers-detailed/",
                                {"business": MATCH_BUSINESS, "limit": 10}),
                               ("/api/rules/rules/simulate/", json.loads(simulation_body(20)))):
                async with session.post(f"{base}{path}", json=body) as response:
                    await response.read()
                    if response.status != 200:
                        raise SystemExit(f"warm-up {path}: {response.status}")
    return time.perf_counter() - started


def report(title: str, results: Results, cpu: float) -> None:
    print(f"\n{title}: {results.total:,} requests in {results.seconds:.1f} s = "
          f"{results.total / results.seconds:,.0f} req/s, errors: {results.error_count()}; "
          f"server CPU {cpu:.1f} s = {cpu / max(results.total, 1) * 1000:.2f} ms per request")
    print(f"  {'operation':<10}{'count':>8}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for operation in WEIGHTS:
        values = sorted(results.latencies.get(operation, []))
        if not values:
            continue
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        print(f"  {operation:<10}{len(values):>8,}{len(values) / results.seconds:>9.1f}"
              f"{statistics.median(values) * 1000:>9.1f}{p99 * 1000:>9.1f}")
    for operation, by_status in results.errors.items():
        print(f"  errors {operation}: {dict(by_status)}")


def missing_creates(tenant_url: str, uuids: list[str]) -> int:
    with psycopg.connect(tenant_url) as connection:
        found = connection.execute("SELECT count(*) FROM clients WHERE uuid = ANY(%s::uuid[])",
                                   (uuids,)).fetchone()[0]
    return len(uuids) - found


async def main_async(arguments: argparse.Namespace) -> int:
    fernet_key = Fernet.generate_key().decode()
    platform_url, tenant_url = create_databases(arguments.postgres, arguments.prefix)
    environment = {
        "INSUREOPS_DATABASE_URL": platform_url, "INSUREOPS_SECRET_KEY": "load-bench",
        "INSUREOPS_FERNET_KEYS": fernet_key, "INSUREOPS_LOG_LEVEL": "WARNING",
        "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS": "127.0.0.1/32",
        "INSUREOPS_EMBEDDED_TENANT_DATABASES": "false",
    }
    deployment = Deployment(platform_url, tenant_url, environment)
    logs = Path(tempfile.mkdtemp(prefix="bench-load-"))
    servers: list[Server] = []
    try:
        run_cli(deployment, "migrate")
        run_cli(deployment, "market", "load", "examples/market")
        run_cli(deployment, "schema", "apply", tenant_url)
        await seed(deployment, fernet_key)
        servers = [Server([insureops(), "serve", "--port", "{port}"], environment,
                          logs / f"service-{n}.log") for n in range(arguments.instances)]
        await asyncio.gather(*(server.ready("/api/health/") for server in servers))
        print(f"warm-up (first match and simulation per instance): "
              f"{await warm_up([s.base for s in servers]):.1f} s")
        print(f"{arguments.instances} instances, {arguments.concurrency} workers, "
              f"{arguments.duration:.0f} s, weights {WEIGHTS}; logs in {logs}")
        cpu_before = sum(server.cpu_seconds() for server in servers)
        service = await run_load([s.base for s in servers], deployment.api_key,
                                 arguments.duration, arguments.concurrency)
        service_cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        report("insureops", service, service_cpu)
        for server in servers:
            server.stop()
        servers = []
        lost = missing_creates(tenant_url, service.created)
        print(f"  acknowledged creates: {len(service.created):,}, missing from the tenant "
              f"database: {lost}")

        servers = [Server([sys.executable, __file__, "--bare-server", "{port}"], {},
                          logs / f"bare-{n}.log") for n in range(arguments.instances)]
        await asyncio.gather(*(server.ready("/ready") for server in servers))
        await warm_up([s.base for s in servers])
        cpu_before = sum(server.cpu_seconds() for server in servers)
        bare = await run_load([s.base for s in servers], "iops_bare", arguments.duration,
                              arguments.concurrency)
        bare_cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        report("bare aiohttp", bare, bare_cpu)
        print(f"\nratio insureops / bare: {service.total / service.seconds:,.0f} / "
              f"{bare.total / bare.seconds:,.0f} req/s = "
              f"{(service.total / service.seconds) / (bare.total / bare.seconds):.3f}; server CPU "
              f"per request {service_cpu / service.total * 1000:.2f} / "
              f"{bare_cpu / bare.total * 1000:.2f} ms = "
              f"{(service_cpu / service.total) / (bare_cpu / bare.total):.0f}x")
        return 1 if service.error_count() or lost else 0
    finally:
        for server in servers:
            server.stop()
        if not arguments.keep:
            drop_databases(arguments.postgres, arguments.prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="Seconds of load per run.")
    parser.add_argument("--concurrency", type=int, default=16, help="Concurrent client workers.")
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--mix", default=None, metavar="OP=W,...",
                        help="Other weights, e.g. create=36,read=36,match=15,simulate=10,login=0.")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="A database URL on the server (to create the bench databases).")
    parser.add_argument("--prefix", default="insureops_load", help="Bench database names.")
    parser.add_argument("--keep", action="store_true", help="Keep the bench databases.")
    parser.add_argument("--bare-server", type=int, default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.bare_server is not None:
        bare_server(arguments.bare_server)
        return
    if arguments.mix:
        for part in arguments.mix.split(","):
            operation, _, weight = part.partition("=")
            if operation not in WEIGHTS:
                parser.error(f"--mix: unknown operation {operation!r}")
            WEIGHTS[operation] = int(weight)
    sys.exit(asyncio.run(main_async(arguments)))


if __name__ == "__main__":
    main()
