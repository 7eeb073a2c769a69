"""The compiled market cache (issue 32): `market match` cold and warm, `serve` start, and the
first match in a fresh process against later ones.

    python bench/bench_market_cache.py [--runs 3]

`market match examples/market examples/business.json` in a fresh process with an empty cache
(cold), then `--runs` times warm (wall and the child's CPU time); `insureops serve` on a fresh
SQLite database started twice (until /api/health/ answers, and until the market is warm); a
fresh process's first, second and third match through the service's MarketStore.
The targets and figures: docs/performance.md, "The compiled market cache".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSUREOPS = str(Path(sys.executable).with_name("insureops"))

FIRST_MATCH = r"""
import asyncio, datetime, json, sys, time
started = time.perf_counter()
from insureops.carrier_matching.matching import match
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.carrier_finder.market.appetite_cache import AppetiteCache
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.data.database import Database
from insureops.platform.migrations import env_models  # noqa: F401
imported = time.perf_counter() - started
BUSINESSES = json.loads(sys.argv[2])

async def main():
    database = Database.connect(sys.argv[1])
    store = MarketStore(index_market_appetites, AppetiteCache())
    times = []
    for business in BUSINESSES:
        began = time.perf_counter()
        async with database.unit_of_work() as uow:
            market = await store.market(uow.session, None)
        match(business, market, as_of=datetime.date(2026, 3, 1), limit=10,
              index=store.index(market))
        times.append(time.perf_counter() - began)
    await database.engine.dispose()
    print(json.dumps({"imports": imported, "matches": times}))

asyncio.run(main())
"""

BUSINESSES = [
    json.loads((ROOT / "examples" / "business.json").read_text()),
    {"name": "Magnolia Kitchen", "naics": "722511", "state": "GA", "annual_revenue": 1200000,
     "description": "Full-service family restaurant with a small bar.", "employee_count": 22},
    {"name": "Northwind Apps", "naics": "541511", "state": "NY", "annual_revenue": 3000000,
     "description": "Custom software and SaaS for clinics.", "employee_count": 25},
]


def timed(command: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU (user + sys) seconds of running `command` to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_start(env: dict, database: Path) -> tuple[float, float | None]:
    """Seconds until /api/health/ answers, and until the market is warm (None: not seen)."""
    port = free_port()
    env = {**env, "INSUREOPS_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
           "INSUREOPS_PORT": str(port), "INSUREOPS_LOG_LEVEL": "INFO"}
    log = database.with_suffix(".log")
    started = time.perf_counter()
    with open(log, "w") as output:
        process = subprocess.Popen([INSUREOPS, "serve"], env=env, stdout=output,
                                   stderr=subprocess.STDOUT, cwd=database.parent)
    answered = warm = None
    try:
        while answered is None and time.perf_counter() - started < 120:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health/",
                                            timeout=1) as response:
                    if response.status == 200:
                        answered = time.perf_counter() - started
            except OSError:
                time.sleep(0.05)
        deadline = time.perf_counter() + 120
        while warm is None and time.perf_counter() < deadline:
            if "carrier market warm" in log.read_text(errors="replace"):
                warm = time.perf_counter() - started
            else:
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return answered or float("nan"), warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(folder) / "cache")}
        command = [INSUREOPS, "market", "match", str(ROOT / "examples" / "market"),
                   str(ROOT / "examples" / "business.json"), "--as-of", "2026-03-01"]
        wall, cpu, cold = timed(command, env)
        print(f"market match cold: {wall:.2f}s wall, {cpu:.2f}s CPU")
        for run in range(arguments.runs):
            wall, cpu, warm = timed(command, env)
            assert warm.stdout == cold.stdout, "a warm match answered otherwise than a cold one"
            print(f"market match warm {run + 1}: {wall:.2f}s wall, {cpu:.2f}s CPU")
        wall, cpu, _ = timed(command + ["--no-cache"], env)
        print(f"market match --no-cache: {wall:.2f}s wall, {cpu:.2f}s CPU")

        database = Path(folder) / "platform.db"
        for label in ("serve, first start (loads the example market)", "serve, restart"):
            answered, warm = serve_start(env, database)
            warm_text = f"{warm:.2f}s" if warm is not None else "not seen"
            print(f"{label}: answers after {answered:.2f}s, market warm after {warm_text}")

        done = subprocess.run([sys.executable, "-c", FIRST_MATCH,
                               f"sqlite+aiosqlite:///{database}", json.dumps(BUSINESSES)],
                              env=env, capture_output=True, text=True, check=True)
        found = json.loads(done.stdout)
        print(f"fresh process, warm cache: imports {found['imports']:.2f}s; matches "
              + ", ".join(f"{t:.2f}s" for t in found["matches"])
              + " (the first reads the stored market)")


if __name__ == "__main__":
    main()
