"""Issue 31: two service instances plus two `insureops worker` processes on one PostgreSQL
platform database (and a PostgreSQL tenant database) give the same effects as one: two
`insureops serve` processes running jobs (INSUREOPS_JOBS_IN_SERVE) and two workers; bindings
fire on concurrent writes while an apply run goes over the book, and every effect, audit row,
ledger row and webhook event is there exactly once, as one instance writes them.

Each record is written once (one version), so what one instance writes is known from the data
alone: a task per client without a city, a uw_scores row per submission and a task per cyber
one, a task per policy above 5000; and one decision.made per decision that wrote effects.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
import uuid

import aiohttp
import psycopg
import pytest
import sqlalchemy as sa

from insureops.platform.keys import DATABASE
from insureops.platform.webhooks.models import WebhookEvent
from tests.databases import plain_conninfo
from tests.platform.rules_studio.conftest import CLIENT_CHECK
from tests.platform.rules_studio.work_helpers import (
    TASKS,
    bind,
    eventually,
    finished_run,
    published,
    tenant_rows,
)
from tests.platform.webhooks.receiver import Receiver

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
# the run goes over the book in fifteen batches (checkpoints, relays) while the bindings fire;
# more records per batch prove nothing more (1500 in batches of 100 took a minute)
POLICIES, BATCH, CLIENTS, SUBMISSIONS, WRITERS = 600, 40, 60, 60, 3
SUBMISSION_CHECK = TASKS.replace("input policy: Policy", "input uw_submission: UwSubmission"
                                 ).replace("policy.premium > 5000", 'uw_submission.lob == "cyber"'
                                           ).replace('refer "Premium {policy.premium} above 5000"',
                                                     'refer "Cyber needs a review"').replace(
    'given policy = {"premium": 100, "status": "active"}', 'given uw_submission = {"lob": "auto"}'
).replace("ruleset policies.review", "ruleset submissions.review")


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={
        "jobs_in_serve": False, "rules_dispatch_seconds": 0.2, "jobs_stalled_seconds": 5.0,
        "rules_run_batch_size": BATCH, "webhook_allowed_networks": ("127.0.0.1/32",)})


def _fill_policies(url: str, tenant_id: str) -> int:
    """The book the run goes over (written before any binding: no outbox rows)."""
    with psycopg.connect(plain_conninfo(url)) as connection, connection.cursor() as cursor:
        with cursor.copy("COPY policies (id, uuid, tenant_id, status, premium) FROM STDIN") as copy:
            for number in range(POLICIES):
                copy.write_row((uuid.uuid4(), uuid.uuid4(), tenant_id, "active",
                                9000 if number % 5 == 0 else 100))
    return POLICIES // 5


def _writer(url: str, tenant_id: str, part: int) -> None:
    """Clients and submissions, one transaction each (as applications write them)."""
    with psycopg.connect(plain_conninfo(url), autocommit=True) as connection:
        for number in range(part, max(CLIENTS, SUBMISSIONS), WRITERS):
            if number < CLIENTS:
                connection.execute(
                    "INSERT INTO clients (id, uuid, tenant_id, name, city) VALUES "
                    "(%s, %s, %s, %s, %s)", (uuid.uuid4(), uuid.uuid4(), tenant_id,
                                             f"client {number}",
                                             None if number % 3 == 0 else "Springfield"))
            if number < SUBMISSIONS:
                connection.execute(
                    "INSERT INTO uw_submissions (id, tenant_id, lob) VALUES (%s, %s, %s)",
                    (uuid.uuid4(), tenant_id, "cyber" if number % 2 == 0 else "auto"))


def _process(settings, log, command: list[str], **env: str) -> subprocess.Popen:
    """`insureops <command>` on the test's platform database, running jobs."""
    env = {**os.environ, "INSUREOPS_DATABASE_URL": settings.database_url,
           "INSUREOPS_SECRET_KEY": settings.secret_key.get_secret_value(),
           "INSUREOPS_FERNET_KEYS": settings.fernet_keys[0].get_secret_value(),
           "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS": "127.0.0.1/32",
           "INSUREOPS_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32",
           "INSUREOPS_RULES_DISPATCH_SECONDS": "0.2", "INSUREOPS_JOBS_STALLED_SECONDS": "5",
           "INSUREOPS_RULES_RUN_BATCH_SIZE": str(BATCH), "INSUREOPS_JOBS_CONCURRENCY": "2", **env}
    return subprocess.Popen([sys.executable, "-c", "from insureops.platform.cli import main; "
                             "main()", *command], env=env, stdout=log, stderr=log)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _listening(port: int, process: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        assert process.poll() is None and time.monotonic() < deadline, "serve did not start"
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.2)


def _settled(url: str) -> bool:
    [row] = tenant_rows(url, "SELECT (SELECT count(*) FROM insureops_outbox) AS writes, "
                        "(SELECT count(*) FROM insureops_event_outbox) AS events")
    return row == {"writes": 0, "events": 0}


def _expected(url: str, tenant_id: str) -> set[tuple[str, str]]:
    """(kind, record id) of every effect one instance writes, from the data alone."""
    rows = tenant_rows(url, f"""
        SELECT 'task' AS kind, id FROM clients WHERE tenant_id = '{tenant_id}' AND city IS NULL
        UNION ALL SELECT 'task', id FROM uw_submissions WHERE lob = 'cyber'
        UNION ALL SELECT 'uw_score', id FROM uw_submissions
        UNION ALL SELECT 'task', id FROM policies WHERE premium > 5000""")
    return {(row["kind"], str(row["id"])) for row in rows}


@pytest.fixture
async def receiver(aiohttp_server) -> Receiver:
    found = Receiver()
    server = await aiohttp_server(found.app())
    found.url = str(server.make_url("/"))
    return found


async def test_two_instances_and_two_workers_write_each_effect_once(
        studio, owner, tenant_database, settings, tmp_path, receiver):
    high = _fill_policies(tenant_database, owner.workspace_id)
    headers = owner.headers
    assert (await studio.client.post("/api/v2/settings/webhooks/", headers=headers, json={
        "url": receiver.at(), "event_types": [
            "decision.made", "task.opened", "run.started", "run.completed"]})).status == 201
    clients = await published(studio, owner, CLIENT_CHECK)
    submissions = await published(studio, owner, SUBMISSION_CHECK)
    policies = await published(studio, owner, TASKS)
    for rule, record_type in ((clients, "client"), (submissions, "uw_submission")):
        response = await bind(studio, owner, rule_id=rule["id"], record_type=record_type,
                              on=["created"])
        assert response.status == 201, await response.text()
    ports = [_free_port(), _free_port()]
    with open(tmp_path / "processes.log", "wb") as log:
        processes = [_process(settings, log, ["serve"], INSUREOPS_JOBS_IN_SERVE="true",
                              INSUREOPS_PORT=str(port)) for port in ports]
        processes += [_process(settings, log, ["worker"]) for _ in range(2)]
        try:
            for port, process in zip(ports, processes, strict=False):
                await _listening(port, process)
            started = time.monotonic()
            writers = [threading.Thread(target=_writer, args=(tenant_database,
                                                              owner.workspace_id, part))
                       for part in range(WRITERS)]
            for thread in writers:
                thread.start()
            async with aiohttp.ClientSession() as http:  # the run asked of the second instance
                async with http.post(f"http://127.0.0.1:{ports[1]}/api/rules/rules/"
                                     f"{policies['id']}/runs/", headers=headers,
                                     json={"record_type": "policy", "mode": "apply"}) as answer:
                    assert answer.status == 202, await answer.text()
                    run_id = (await answer.json())["id"]
            await asyncio.to_thread(lambda: [thread.join() for thread in writers])
            run = await finished_run(studio, owner, run_id, seconds=240)
            ran = time.monotonic() - started
            await eventually(lambda: _settled(tenant_database), seconds=120)
            took = time.monotonic() - started
            assert all(process.poll() is None for process in processes)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=30)
    log_text = (tmp_path / "processes.log").read_text()[-3000:]
    assert (run["status"], run["progress"]["done"], run["progress"]["effects"]) == (
        "completed", POLICIES, high), log_text

    expected = _expected(tenant_database, owner.workspace_id)
    tasks = tenant_rows(tenant_database, "SELECT entity_id FROM tasks")
    scores = tenant_rows(tenant_database, "SELECT submission_id FROM uw_scores")
    written = [("task", str(t["entity_id"])) for t in tasks] + [
        ("uw_score", str(s["submission_id"])) for s in scores]
    assert len(written) == len(set(written)), "an effect written twice"
    assert set(written) == expected, "an effect missing or unexpected"
    [counts] = tenant_rows(tenant_database, "SELECT (SELECT count(*) FROM audit_logs WHERE "
                           "request_method = 'RULES') AS audits, (SELECT count(*) FROM "
                           "insureops_rule_effects) AS ledger")
    assert counts == {"audits": len(expected), "ledger": len(expected)}

    decisions = len({record for _, record in expected})  # one decision per record decided
    async with studio.client.app[DATABASE].unit_of_work() as uow:
        published_events = dict((await uow.session.execute(
            sa.select(WebhookEvent.event_type, sa.func.count()).group_by(
                WebhookEvent.event_type))).all())
    assert published_events == {"decision.made": decisions,
                                "task.opened": sum(1 for k, _ in expected if k == "task"),
                                "run.started": 1, "run.completed": 1}
    print(f"two instances + two workers: {len(expected)} effects in {took:.1f} s "
          f"(the run done after {ran:.1f} s)")
    assert len(receiver.received) >= 1  # deliveries went out (from whichever process)
