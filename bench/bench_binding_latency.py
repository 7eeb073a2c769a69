"""A binding's latency under a steady write rate (issue 31): write to effect visible.

    python bench/bench_binding_latency.py --postgres postgresql://postgres@127.0.0.1:5432/postgres
        [--rate 50] [--seconds 20] [--workers 1]

PostgreSQL platform and tenant databases made for the run; a rule that refers every client,
bound to client creation; `--workers` real `insureops worker` processes. A writer inserts
clients by plain SQL at `--rate` per second (as another application would); an observer polls
the tasks table every 20 ms. Prints how many effects appeared, and the latency percentiles
from each write's commit to its task being visible (the polling adds up to 20 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rules_at_work_setup as setup  # noqa: E402

SOURCE = '''ruleset clients.welcome "Welcome call"
input client: Client
default decision accept

rule every_client "Every new client gets a call"
when client.name is not null
then
    refer "Call {client.name}"
end
'''


async def bind(bench: setup.Bench) -> None:
    from insureops.platform.data.database import Database
    from insureops.platform.rules_studio.checking import content_hash
    from insureops.platform.rules_studio.models import Rule, RuleVersion
    from insureops.platform.rules_studio.work.models import RuleBinding

    database = Database.connect(bench.settings.database_url)
    now = datetime.datetime.now(datetime.UTC)
    try:
        async with database.unit_of_work() as uow:
            uow.session.add(Rule(id="01JBENCHR0000000000000WECA", workspace_id=setup.TENANT,
                                 name="clients.welcome", title="Welcome call", kind="other",
                                 status="published", current_version=1, published_version=1,
                                 created_at=now, updated_at=now))
            await uow.session.flush()
            uow.session.add(RuleVersion(rule_id="01JBENCHR0000000000000WECA", number=1,
                                        source=SOURCE, content_hash=content_hash(SOURCE),
                                        created_at=now, warnings=[], tests=[],
                                        tests_passed=True))
            uow.session.add(RuleBinding(
                id="01JBENCHB0000000000000WECA", workspace_id=setup.TENANT,
                rule_id="01JBENCHR0000000000000WECA", record_type="client", on_created=True,
                on_updated=False, status="active", created_at=now, updated_at=now))
    finally:
        await database.dispose()


def start_worker(bench: setup.Bench, log) -> subprocess.Popen:
    settings = bench.settings
    env = {**os.environ, "INSUREOPS_DATABASE_URL": settings.database_url,
           "INSUREOPS_SECRET_KEY": settings.secret_key.get_secret_value(),
           "INSUREOPS_FERNET_KEYS": settings.fernet_keys[0].get_secret_value(),
           "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS": "127.0.0.1/32,::1/128"}
    return subprocess.Popen([sys.executable, "-c", "from insureops.platform.cli import main; "
                             "main()", "worker"], env=env, stdout=log, stderr=log)


def observe(url: str, seen: dict, stop: threading.Event) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        while not stop.is_set():
            for (entity_id,) in connection.execute("SELECT entity_id FROM tasks"):
                seen.setdefault(entity_id, time.monotonic())
            time.sleep(0.02)


def write(url: str, rate: float, seconds: float, written: dict) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        started = time.monotonic()
        number = 0
        while time.monotonic() - started < seconds:
            record_id = uuid.uuid4()
            connection.execute("INSERT INTO clients (id, uuid, tenant_id, name) VALUES "
                               "(%s, %s, %s, %s)", (record_id, uuid.uuid4(), setup.TENANT,
                                                    f"Client {number}"))
            written[record_id] = time.monotonic()
            number += 1
            time.sleep(max(0.0, started + number / rate - time.monotonic()))


def wait_for_switch(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    with psycopg.connect(url, autocommit=True) as connection:
        while not connection.execute("SELECT 1 FROM insureops_outbox_switches").fetchone():
            if time.monotonic() > deadline:
                raise SystemExit("the dispatcher never switched the outbox on")
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", required=True)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    bench = setup.make(args.postgres, "latency")
    workers = []
    try:
        setup.prepare_tenant(bench)
        asyncio.run(setup.prepare_platform(bench))
        asyncio.run(bind(bench))
        log = open(Path(os.environ.get("TMPDIR", "/tmp")) / "bench_binding_workers.log", "wb")
        workers = [start_worker(bench, log) for _ in range(args.workers)]
        wait_for_switch(bench.tenant)
        seen, written, stop = {}, {}, threading.Event()
        observer = threading.Thread(target=observe, args=(bench.tenant, seen, stop))
        observer.start()
        write(bench.tenant, args.rate, args.seconds, written)
        time.sleep(5)
        stop.set()
        observer.join()
        latencies = sorted(seen[k] - t for k, t in written.items() if k in seen)
        within = sum(1 for value in latencies if value <= 2.0)
        cut = statistics.quantiles(latencies, n=100)
        print(f"{len(written)} writes at {args.rate}/s over {args.seconds:.0f}s, "
              f"{args.workers} worker(s): {len(latencies)} effects seen, {within} within 2 s")
        print(f"latency p50 {cut[49]:.3f}s  p95 {cut[94]:.3f}s  p99 {cut[98]:.3f}s  "
              f"max {latencies[-1]:.3f}s")
    finally:
        for process in workers:
            process.terminate()
            process.wait(timeout=30)
        bench.drop()


if __name__ == "__main__":
    main()
