"""Book runs against plain scripts, in one run on one tenant PostgreSQL (issue 31).

    python bench/bench_rules_at_work.py --postgres postgresql://postgres@127.0.0.1:5432/postgres
        [--policies 100000] [--batch 2000] [--keep]

Makes a platform and a tenant database, fills the tenant with N policies (COPY) and publishes
examples/renewal_review.rules. Then times, on the same rows:
  script dry   psycopg named cursor -> to_json -> evaluate_many, decisions counted
  run dry      the service's book run (runs.perform: the job's code, checkpoints included)
  script+COPY  the script, plus a COPY of the task rows its decisions call for
  run apply    the service's apply run (ledger, tasks, audit rows, checkpoints)
and prints seconds, records/s and each run's ratio to its script.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
import time
import uuid
from collections import Counter, deque
from pathlib import Path

import psycopg
from psycopg.rows import dict_row
from ulid import ULID

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rules_at_work_setup as setup  # noqa: E402


def script(bench: setup.Bench, batch: int, copy_tasks: bool) -> tuple[Counter, int]:
    """The plain script: decisions counted; with `copy_tasks`, the tasks COPYed in."""
    from insureops.dsl import compile_ruleset
    from insureops.platform.rules_studio.work.effects import _priority, _task_spec, plain
    from insureops.platform.rules_studio.work.tenant_side import row_json

    compiled = compile_ruleset(setup.SOURCE)
    decisions: Counter = Counter()
    tasks = []
    now = datetime.datetime.now(datetime.UTC)
    with psycopg.connect(bench.tenant) as connection:
        with connection.cursor(name="book", row_factory=dict_row) as cursor:
            cursor.itersize = batch
            cursor.execute("SELECT * FROM policies WHERE tenant_id = %s ORDER BY id",
                           (setup.TENANT,))
            rows = iter(cursor)
            pairs: deque = deque()

            def inputs():
                for row in rows:
                    values = row_json(row)
                    pairs.append(row["id"])
                    yield {"policy": values}
            for result in compiled.evaluate_many(inputs(), as_of=setup.AS_OF):
                record_id = pairs.popleft()
                decisions[result.decision] += 1
                if not copy_tasks:
                    continue
                outputs = plain(dict(result.outputs))
                spec = _task_spec(outputs)
                if spec is None and result.decision not in ("refer", "decline"):
                    continue
                subject = (spec or {}).get("subject") or (result.reasons or ["review"])[0]
                tasks.append((uuid.uuid4(), setup.TENANT, subject, "open",
                              _priority(spec or {}, outputs, list(result.tags),
                                        result.decision),
                              "policy", record_id, json.dumps({"ruleset": "renewal.review",
                                                                "version": 1}), now))
        if copy_tasks:
            with connection.cursor() as cursor, cursor.copy(
                    "COPY tasks (id, tenant_id, subject, status, priority, entity_type, "
                    "entity_id, meta, created_at) FROM STDIN") as copy:
                for row in tasks:
                    copy.write_row(row)
            connection.commit()
    return decisions, len(tasks)


async def service_run(bench: setup.Bench, rule_id: str, mode: str) -> dict:
    """The service's run of `mode`, performed as its job performs it; the finished row."""
    from insureops.platform.auth.secret_keys import load_secret_keys
    from insureops.platform.compute.executors import BoundedExecutor
    from insureops.platform.data.database import Database
    from insureops.platform.rules_studio.work import runs
    from insureops.platform.rules_studio.work.models import RuleRun
    from insureops.platform.tenancy.pools import TenantPools
    from insureops.platform.tenancy.workspaces import tenant_store

    settings = bench.settings
    database, pools = Database.connect(settings.database_url), TenantPools()
    fernet = load_secret_keys(settings).fernet

    async def store(workspace_id: str):  # as the job finds it: the one TenantPools
        async with database.unit_of_work() as uow:
            return await tenant_store(uow, fernet, pools, workspace_id, settings)
    threads = BoundedExecutor("rules-runs", 1)
    now = datetime.datetime.now(datetime.UTC)
    run_id = str(ULID())
    try:
        async with database.unit_of_work() as uow:
            uow.session.add(RuleRun(
                id=run_id, workspace_id=setup.TENANT, rule_id=rule_id, version=1,
                record_type="policy", mode=mode, status="queued", as_of=setup.AS_OF,
                created_at=now, updated_at=now))

        async def transition(uow, run) -> None:
            return None

        async def relay() -> None:
            return None
        await runs.perform(runs.RunServices(database, store, threads, None, settings,
                                            time.time), run_id, lambda: False,
                           runs.RunHooks(transition, relay))
        async with database.unit_of_work() as uow:
            run = await uow.session.get(RuleRun, run_id)
            return {"status": run.status, "done": run.done, "effects": run.effects,
                    "decisions": run.summary["decisions"], "elapsed": run.elapsed_seconds}
    finally:
        threads.close()
        await pools.dispose()
        await database.dispose()


def clear_effects(bench: setup.Bench) -> None:
    with psycopg.connect(bench.tenant) as connection:
        connection.execute("SET session_replication_role = replica")  # audit rows: append-only
        for table in ("tasks", "audit_logs", "insureops_rule_effects"):
            connection.execute(f"DELETE FROM {table}")
        connection.commit()


def timed(label: str, function, *args):
    started = time.perf_counter()
    result = function(*args)
    seconds = time.perf_counter() - started
    return label, seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", required=True, help="libpq URL of a maintenance database")
    parser.add_argument("--policies", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    args = parser.parse_args()
    bench = setup.make(args.postgres, f"book{args.policies}", rules_run_batch_size=args.batch)
    try:
        started = time.perf_counter()
        setup.prepare_tenant(bench)
        setup.fill_policies(bench, args.policies)
        rule_id = asyncio.run(setup.prepare_platform(bench))
        print(f"{args.policies} policies ready in {time.perf_counter() - started:.1f}s")
        results = []
        results.append(timed("script dry", script, bench, args.batch, False))
        results.append(timed("run dry", lambda: asyncio.run(service_run(bench, rule_id,
                                                                        "dry_run"))))
        results.append(timed("script+COPY", script, bench, args.batch, True))
        clear_effects(bench)
        results.append(timed("run apply", lambda: asyncio.run(service_run(bench, rule_id,
                                                                          "apply"))))
        results.append(timed("run apply again", lambda: asyncio.run(
            service_run(bench, rule_id, "apply"))))
        base = {"run dry": results[0][1], "run apply": results[2][1],
                "run apply again": results[2][1]}
        for label, seconds, result in results:
            ratio = f"  x{seconds / base[label]:.2f} of its script" if label in base else ""
            print(f"{label:16} {seconds:8.2f}s  {args.policies / seconds:10,.0f} records/s"
                  f"{ratio}  {result}")
    finally:
        if not args.keep:
            bench.drop()


if __name__ == "__main__":
    main()
