"""The tenant API's hot path under a closed loop, beside a bare aiohttp app in the same run.

    python bench/bench_hot_path.py [--seconds 10] [--clients 16] [--setups bare,pg,sqlite]

Each set-up is served by its own process: bare (an aiohttp app answering the same two routes with
a small JSON body), pg (PostgreSQL platform and saved PostgreSQL tenant database, made and dropped
here) and sqlite (the embedded default). `--clients` closed loops alternate a create and a GET of
the client just created for `--seconds`; then one client's sequential GETs give the server time
(a middleware in front of the service reports it in a header). Prints req/s, p50, p99, errors,
the ratio to bare, the server process's CPU time per request (user + system from /proc: steal
excluded) and the median single-GET server time. `--before DIR` adds pg-before and
sqlite-before, served from DIR/insureops (`git archive COMMIT | tar -x -C DIR/insureops`).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp
from aiohttp import web

SERVER_TIME = "X-Bench-Server-Us"
PATH = "/api/v2/mcp/clients/"


def _timing_middleware():
    @web.middleware
    async def timing(request: web.Request, handler):
        start = time.perf_counter()
        response = await handler(request)
        response.headers[SERVER_TIME] = str(round((time.perf_counter() - start) * 1e6))
        return response
    return timing


# Server side ----------------------------------------------------------------------------------

def bare_app() -> web.Application:
    async def create(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"uuid": str(uuid.uuid4()), "name": "Someone"}, status=201)

    async def get(request: web.Request) -> web.Response:
        return web.json_response({"uuid": request.match_info["uuid"], "name": "Someone"})

    app = web.Application(middlewares=[_timing_middleware()])
    app.router.add_post(PATH, create)
    app.router.add_get(PATH + "{uuid}/", get)
    return app


async def _seed(app: web.Application, tenant_url: str | None) -> str:
    """A workspace with a read-write API key (and the saved tenant URL): the key."""
    from insureops.platform.auth.requirements import Scope
    from insureops.platform.identity import Workspace, new_tenant_id
    from insureops.platform.keys import DATABASE, SECRET_KEYS
    from insureops.platform.records.api_keys import (
        ApiKey,
        hash_api_key,
        new_api_key,
        normalise_scopes,
    )
    from insureops.platform.tenancy.databases import TenantDatabase, encrypt_url

    now = datetime.datetime.now(datetime.UTC)
    tenant_id, key = new_tenant_id(time.time()), new_api_key()
    async with app[DATABASE].unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id=tenant_id, name="Bench", created_at=now))
        await uow.session.flush()
        uow.session.add(ApiKey(id=new_tenant_id(time.time() + 1), workspace_id=tenant_id,
                               name="bench", display_prefix=key[:11], key_hash=hash_api_key(key),
                               scopes=normalise_scopes([Scope.READ, Scope.WRITE]),
                               created_at=now))
        if tenant_url is not None:
            uow.session.add(TenantDatabase(
                workspace_id=tenant_id, url_encrypted=encrypt_url(app[SECRET_KEYS].fernet,
                                                                  tenant_url),
                backend="postgresql", saved_at=now))
    return key


async def serve(setup: str, port: int, platform_url: str, tenant_url: str | None,
                directory: str) -> None:
    from cryptography.fernet import Fernet

    from insureops.platform.app import create_app
    from insureops.platform.config import Settings
    from insureops.platform.http.log import configure_logging
    from insureops.platform.http.server import ServiceRunner

    if setup == "bare":
        app, key = bare_app(), "none"
        runner: web.AppRunner = web.AppRunner(app, access_log=None)
    else:
        settings = Settings(
            database_url=platform_url, secret_key="bench-secret-" + "x" * 40,
            fernet_keys=(Fernet.generate_key().decode(),), log_level="WARNING",
            tenant_database_allowed_networks=("127.0.0.1/32",),
            tenant_sqlite_directory=Path(directory) / "tenants", max_connections=1000)
        configure_logging(settings.log_format, settings.log_level)
        app = create_app(settings)
        app.middlewares.insert(0, _timing_middleware())
        runner = ServiceRunner(app, settings, access_log=None)
    await runner.setup()
    if setup != "bare":
        key = await _seed(app, tenant_url)
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    print(json.dumps({"key": key}), flush=True)
    profile_path = os.environ.get("BENCH_PROFILE_SERVER")  # cProfile of the server, on SIGTERM
    if profile_path:
        import cProfile
        import signal
        profile = cProfile.Profile()
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        profile.enable()
        await stop.wait()
        profile.disable()
        profile.dump_stats(f"{profile_path}.{setup}")
        return
    await asyncio.Event().wait()


# Client side ----------------------------------------------------------------------------------

async def closed_loop(base: str, key: str, seconds: float, clients: int, pid: int) -> dict:
    headers = {"Authorization": f"Bearer {key}"}
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds
    body = json.dumps({"name": "Someone", "email": "someone@example.com"}).encode()
    post_headers = {**headers, "Content-Type": "application/json"}

    async def one(session: aiohttp.ClientSession, n: int) -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                async with session.post(base + PATH, data=body, headers=post_headers) as answer:
                    payload = await answer.read()
                    if answer.status != 201:
                        errors.append(f"POST {answer.status} {payload[:200]!r}")
                        continue
                created = json.loads(payload)["uuid"]
                latencies.append(time.perf_counter() - start)
                start = time.perf_counter()
                async with session.get(f"{base}{PATH}{created}/", headers=headers) as answer:
                    payload = await answer.read()
                    if answer.status != 200:
                        errors.append(f"GET {answer.status} {payload[:200]!r}")
                        continue
                latencies.append(time.perf_counter() - start)
            except (aiohttp.ClientError, OSError) as exc:
                errors.append(f"{type(exc).__name__}: {exc}")

    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as session:
        # warm-up: engines, pools, prepared databases
        for _ in range(20):
            async with session.post(base + PATH, data=body, headers=post_headers) as answer:
                await answer.read()
        cpu_before = server_cpu_seconds(pid)
        started = time.perf_counter()
        await asyncio.gather(*(one(session, n) for n in range(clients)))
        elapsed = time.perf_counter() - started
        cpu = server_cpu_seconds(pid) - cpu_before
    latencies.sort()
    count = len(latencies)
    return {"rps": count / elapsed, "p50": latencies[count // 2] * 1e3 if count else 0,
            "p99": latencies[min(count - 1, int(count * 0.99))] * 1e3 if count else 0,
            "errors": len(errors), "requests": count + len(errors),
            "cpu_ms": cpu * 1e3 / max(1, count + len(errors)),
            "error_samples": sorted(set(errors))[:3]}


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server process so far (steal time is not in it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def single_get(base: str, key: str, rounds: int) -> float:
    """Median server time (ms) of one client's sequential GETs of one record."""
    headers = {"Authorization": f"Bearer {key}"}
    async with aiohttp.ClientSession() as session:
        async with session.post(base + PATH, json={"name": "Single"}, headers=headers) as answer:
            created = (await answer.json())["uuid"]
        times = []
        for _ in range(rounds):
            async with session.get(f"{base}{PATH}{created}/", headers=headers) as answer:
                await answer.read()
                times.append(int(answer.headers[SERVER_TIME]) / 1e3)
    return statistics.median(times[rounds // 10:])


def _pg(admin: str, sql: str) -> None:
    subprocess.run(["psql", admin + "/postgres", "-q", "-c", sql], check=True,
                   capture_output=True)


def prepare_postgres(admin: str) -> tuple[str, str]:
    """Fresh platform and tenant databases (the tenant one holding the data model)."""
    import sqlalchemy as sa

    from insureops.platform.tenancy.data_model import apply_data_model
    for name in ("platform", "tenant"):
        _pg(admin, f"DROP DATABASE IF EXISTS insureops_hotpath_bench_{name} WITH (FORCE)")
        _pg(admin, f"CREATE DATABASE insureops_hotpath_bench_{name}")
    tenant = f"{admin}/insureops_hotpath_bench_tenant"
    engine = sa.create_engine(tenant.replace("postgresql://", "postgresql+psycopg://"))
    apply_data_model(engine)
    engine.dispose()
    platform = admin.replace("postgresql://", "postgresql+psycopg://")
    return f"{platform}/insureops_hotpath_bench_platform", tenant


def drop_postgres(admin: str) -> None:
    for name in ("platform", "tenant"):
        _pg(admin, f"DROP DATABASE IF EXISTS insureops_hotpath_bench_{name} WITH (FORCE)")


def start_server(setup: str, port: int, platform_url: str, tenant_url: str | None,
                 directory: str, source: str | None) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    script = os.path.abspath(__file__)
    if source:  # an earlier tree of the package, found before the installed one, served by
        env["PYTHONPATH"] = source  # its own copy of this script (its modules may live elsewhere)
        earlier = Path(source) / "insureops" / "bench" / "bench_hot_path.py"
        script = str(earlier) if earlier.is_file() else script
    process = subprocess.Popen(
        [sys.executable, script, "--serve", setup.removesuffix("-before"), "--port", str(port),
         "--platform-url", platform_url, "--tenant-url", tenant_url or "", "--directory",
         directory], stdout=subprocess.PIPE, text=True, env=env, cwd=directory)
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"the {setup} server did not start")
    return process, json.loads(line)["key"]


async def run_setup(setup: str, args: argparse.Namespace, port: int, directory: str) -> dict:
    tenant_url = None
    platform_url = f"sqlite+aiosqlite:///{directory}/platform-{setup}.sqlite3"
    if setup.startswith("pg"):
        platform_url, tenant_url = prepare_postgres(args.postgres)
    source = args.before if setup.endswith("-before") else None
    process, key = start_server(setup, port, platform_url, tenant_url, directory, source)
    try:
        base = f"http://127.0.0.1:{port}"
        result = await closed_loop(base, key, args.seconds, args.clients, process.pid)
        result["single_get_ms"] = await single_get(base, key, args.single)
        return result
    finally:
        process.terminate()
        process.wait()
        if setup.startswith("pg"):
            drop_postgres(args.postgres)


LABELS = {"bare": "bare aiohttp", "pg": "insureops, PostgreSQL platform + tenant",
          "sqlite": "insureops, embedded SQLite platform + tenant",
          "pg-before": "before: PostgreSQL platform + tenant",
          "sqlite-before": "before: embedded SQLite platform + tenant"}


def _median_run(runs: list[dict]) -> dict:
    """Each figure's median over the repeats (errors: the sum)."""
    merged = {name: statistics.median(run[name] for run in runs)
              for name in ("rps", "p50", "p99", "single_get_ms", "cpu_ms")}
    merged["errors"] = sum(run["errors"] for run in runs)
    merged["requests"] = sum(run["requests"] for run in runs)
    merged["error_samples"] = [sample for run in runs for sample in run["error_samples"]][:3]
    return merged


async def main(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="insureops-hotpath-") as directory:
        for repeat in range(args.repeat):  # interleaved: every set-up sees the same noise
            for offset, setup in enumerate(args.setups.split(",")):
                port = args.port + offset + 10 * repeat
                runs.setdefault(setup, []).append(await run_setup(setup, args, port, directory))
    results = {setup: _median_run(found) for setup, found in runs.items()}
    bare = results.get("bare", {}).get("rps")
    print(f"\n{args.clients} closed-loop clients, {args.seconds:g} s, POST create / GET "
          f"alternating; medians of {args.repeat} interleaved runs (errors: total)")
    print("| set-up | req/s | p50 ms | p99 ms | errors | vs bare | server CPU ms/request | "
          "single GET server ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for setup, result in results.items():
        ratio = f"{result['rps'] / bare:.3f}" if bare else "-"
        print(f"| {LABELS[setup]} | {result['rps']:,.0f} | {result['p50']:.1f} | "
              f"{result['p99']:.1f} | {result['errors']} of {result['requests']:,} | {ratio} | "
              f"{result['cpu_ms']:.3f} | {result['single_get_ms']:.2f} |")
    for setup, result in results.items():
        for sample in result["error_samples"]:
            print(f"  {setup} error: {sample}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=1, help="interleaved runs (medians)")
    parser.add_argument("--single", type=int, default=300, help="sequential GETs timed")
    parser.add_argument("--setups", help="default: bare,pg,sqlite (with --before: "
                        "bare,pg-before,pg,sqlite-before,sqlite)")
    parser.add_argument("--before", help="a directory holding an earlier insureops/ tree")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    parser.add_argument("--port", type=int, default=18431)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--platform-url", help=argparse.SUPPRESS)
    parser.add_argument("--tenant-url", help=argparse.SUPPRESS)
    parser.add_argument("--directory", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if not arguments.setups:
        arguments.setups = ("bare,pg-before,pg,sqlite-before,sqlite" if arguments.before
                            else "bare,pg,sqlite")
    if arguments.serve:
        asyncio.run(serve(arguments.serve, arguments.port, arguments.platform_url,
                          arguments.tenant_url or None, arguments.directory))
    else:
        asyncio.run(main(arguments))
