"""`insureops serve` restarted (issue 32): how soon it answers /api/health/ and how soon, and how
fast, it answers its first carrier match, with the compiled market cached and cold.
    python bench/bench_serve_restart.py [--runs 5] [--matches 10] [--cached-only]

A fresh SQLite platform database (the first start loads examples/market) with a workspace and an
API key; `serve` restarted `--runs` times with the market cache warm (cached), then `--runs`
times with it emptied before each start (cold). Each start: seconds from the process's start to
the first 200 from /api/health/, and to the answer of the first tenant API match sent as soon
as health answered (examples/business.json), then two more, then `--matches` in all (the last
one the steady state); the server's CPU seconds (from /proc) at each point and spent by each
match, as the machine is shared and wall time follows the load. Medians are printed; the figures
are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSUREOPS = str(Path(sys.executable).with_name("insureops"))
BUSINESSES = [
    json.loads((ROOT / "examples" / "business.json").read_text()),
    {"name": "Magnolia Kitchen", "naics": "722511", "state": "GA", "annual_revenue": 1200000,
     "description": "Full-service family restaurant with a small bar.", "employee_count": 22},
    {"name": "Northwind Apps", "naics": "541511", "state": "NY", "annual_revenue": 3000000,
     "description": "Custom software and SaaS for clinics.", "employee_count": 25},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def add_key(database: Path) -> str:
    """A workspace with a read-write API key in the platform database; the key."""
    from insureops.platform.auth.requirements import Scope
    from insureops.platform.data.database import Database
    from insureops.platform.identity import Workspace, new_tenant_id
    from insureops.platform.migrations import env_models  # noqa: F401 - every table
    from insureops.platform.records.api_keys import (
        ApiKey,
        hash_api_key,
        new_api_key,
        normalise_scopes,
    )

    key = new_api_key()

    async def insert() -> None:
        now = datetime.datetime.now(datetime.UTC)
        database_ = Database.connect(f"sqlite+aiosqlite:///{database}")
        workspace = new_tenant_id(now.timestamp())
        async with database_.unit_of_work() as uow:
            uow.session.add(Workspace(tenant_id=workspace, name="Bench", created_at=now))
            await uow.session.flush()
            uow.session.add(ApiKey(id=new_tenant_id(now.timestamp()), workspace_id=workspace,
                                   name="bench", display_prefix=key[:11],
                                   key_hash=hash_api_key(key),
                                   scopes=normalise_scopes((Scope.READ, Scope.WRITE)), created_at=now))
        await database_.engine.dispose()

    asyncio.run(insert())
    return key


def request(url: str, body: dict | None = None, key: str | None = None) -> int:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers),
                                timeout=300) as response:
        response.read()
        return response.status


def start(env: dict, database: Path, key: str | None, matches: int = 3) -> dict:
    """One start of serve: the seconds (wall since the process started, server CPU) at health,
    at each match's answer; each match's own wall seconds."""
    port = free_port()
    env = {**env, "INSUREOPS_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
           "INSUREOPS_PORT": str(port), "INSUREOPS_LOG_LEVEL": "INFO"}
    base = f"http://127.0.0.1:{port}"
    found: dict = {}
    started = time.perf_counter()
    with open(database.with_suffix(".log"), "a") as output:
        process = subprocess.Popen([INSUREOPS, "serve"], env=env, stdout=output,
                                   stderr=subprocess.STDOUT, cwd=database.parent)
    try:
        while "health" not in found:
            try:
                if request(f"{base}/api/health/") == 200:
                    found["health"] = (time.perf_counter() - started, cpu_seconds(process.pid))
            except OSError:
                time.sleep(0.02)
            if time.perf_counter() - started > 300:
                raise RuntimeError("serve did not answer within 300 s")
        if key is None:  # the first start: until its warm-up has kept the compiled market
            log = database.with_suffix(".log")
            while "carrier market warm" not in log.read_text(errors="replace"):
                if time.perf_counter() - started > 600:
                    raise RuntimeError("the market was not warm within 600 s")
                time.sleep(0.1)
        if key is not None:
            for index in range(matches):
                business = BUSINESSES[index % len(BUSINESSES)]
                began, cpu = time.perf_counter(), cpu_seconds(process.pid)
                status = request(f"{base}/api/v2/mcp/market/match-carriers-detailed/",
                                 {"business": business, "limit": 10}, key)
                assert status == 200, status
                now, cpu_now = time.perf_counter(), cpu_seconds(process.pid)
                if index < 3 or index == matches - 1:
                    found[f"match {index + 1}"] = (now - started, cpu_now, now - began,
                                                   cpu_now - cpu)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return found


def report(label: str, runs: list[dict]) -> None:
    for point in runs[0]:
        walls = [run[point][0] for run in runs]
        cpus = [run[point][1] for run in runs]
        text = (f"{label}: {point}: median {statistics.median(walls):.2f}s wall after start, "
                f"server CPU {statistics.median(cpus):.2f}s")
        if point.startswith("match"):
            text += (f"; the match itself {statistics.median(r[point][2] for r in runs):.3f}s "
                     f"wall, {statistics.median(r[point][3] for r in runs):.3f}s server CPU")
        print(text + f"  (walls {', '.join(f'{w:.1f}' for w in walls)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10,
                        help="matches per start (the last one is the steady state)")
    parser.add_argument("--cached-only", action="store_true", help="no cold-cache starts")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache"
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        database = Path(folder) / "platform.db"
        first = start(env, database, None)  # migrates and loads the example market
        print(f"first start (loads the market): health after {first['health'][0]:.2f}s")
        key = add_key(database)
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        report("cached", [start(env, database, key, arguments.matches)
                          for _ in range(arguments.runs)])
        if arguments.cached_only:
            print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
            return
        cold = []
        for _ in range(arguments.runs):
            shutil.rmtree(cache / "insureops" / "market", ignore_errors=True)
            cold.append(start(env, database, key, arguments.matches))
        report("cold cache", cold)
        print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
