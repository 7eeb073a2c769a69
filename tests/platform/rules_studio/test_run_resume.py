"""Issue 31: a worker killed with SIGKILL half way through an apply run leaves exact final
counts after another worker resumes it (real `insureops worker` processes, PostgreSQL)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid

import psycopg
import pytest
from sqlalchemy import select

from insureops.platform.keys import DATABASE
from insureops.platform.rules_studio.work.models import RuleRun
from tests.databases import plain_conninfo
from tests.platform.rules_studio.work_helpers import TASKS, published, start_run, tenant_rows

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
# a hundred batches, so the kill lands half way through; more records per batch prove nothing
# more (2000 in batches of 20 cost twice the time)
POLICIES = 1_000
BATCH = 10


def fill(url: str, tenant_id: str) -> int:
    """POLICIES policies, one in four above 5000 (referred: a task each); how many tasks."""
    with psycopg.connect(plain_conninfo(url)) as connection, connection.cursor() as cursor:
        with cursor.copy("COPY policies (id, uuid, tenant_id, status, premium) FROM STDIN") as copy:
            for number in range(POLICIES):
                copy.write_row((uuid.uuid4(), uuid.uuid4(), tenant_id, "active",
                                9000 if number % 4 == 0 else 100))
    return POLICIES // 4


def worker(settings, log) -> subprocess.Popen:
    env = {**os.environ, "INSUREOPS_DATABASE_URL": settings.database_url,
           "INSUREOPS_SECRET_KEY": settings.secret_key.get_secret_value(),
           "INSUREOPS_FERNET_KEYS": settings.fernet_keys[0].get_secret_value(),
           "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS": "127.0.0.1/32",
           "INSUREOPS_JOBS_STALLED_SECONDS": "2", "INSUREOPS_RULES_RUN_BATCH_SIZE": str(BATCH)}
    return subprocess.Popen([sys.executable, "-c", "from insureops.platform.cli import main; "
                             "main()", "worker"], env=env, stdout=log, stderr=log)


async def run_row(client, run_id: str) -> RuleRun:
    async with client.app[DATABASE].unit_of_work() as uow:
        return (await uow.session.execute(select(RuleRun).where(RuleRun.id == run_id))
                ).scalar_one()


async def test_killed_worker_leaves_exact_counts_when_another_resumes(
        studio, owner, tenant_database, settings, tmp_path):
    expected = fill(tenant_database, owner.workspace_id)
    rule = await published(studio, owner, TASKS)
    response = await start_run(studio, owner, rule["id"], record_type="policy", mode="apply")
    run_id = (await response.json())["id"]
    with open(tmp_path / "workers.log", "wb") as log:
        first = worker(settings, log)
        try:
            deadline = time.monotonic() + 90
            while (run := await run_row(studio.client, run_id)).done < POLICIES * 0.4:
                assert time.monotonic() < deadline and first.poll() is None, run.status
                await asyncio.sleep(0.02)
            first.send_signal(signal.SIGKILL)
            first.wait()
        finally:
            first.kill()
        killed = await run_row(studio.client, run_id)
        assert killed.status == "running" and killed.done < POLICIES, killed.done
        second = worker(settings, log)
        try:
            deadline = time.monotonic() + 120
            while (run := await run_row(studio.client, run_id)).status == "running":
                assert time.monotonic() < deadline and second.poll() is None
                await asyncio.sleep(0.2)
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(timeout=30)
    assert (run.status, run.done, run.effects, run.errors) == (
        "completed", POLICIES, expected, 0), (tmp_path / "workers.log").read_text()[-3000:]
    assert run.summary["decisions"] == {"accept": POLICIES - expected, "refer": expected}
    counted = tenant_rows(tenant_database, "SELECT (SELECT count(*) FROM tasks) AS tasks, "
                          "(SELECT count(DISTINCT entity_id) FROM tasks) AS records, "
                          "(SELECT count(*) FROM audit_logs WHERE entity_type = 'task') AS "
                          "audits, (SELECT count(*) FROM insureops_rule_effects) AS ledger")
    assert counted == [{"tasks": expected, "records": expected, "audits": expected,
                        "ledger": expected}]
