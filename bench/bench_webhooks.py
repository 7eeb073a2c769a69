"""What webhooks cost: `publish` inside a change's transaction, and the delivery job's throughput
to a local receiver.

    python bench/bench_webhooks.py [--database-url URL] [--events 500]

Migrates the platform database at URL (default: a SQLite file in a temporary folder), makes a
workspace with two endpoints on a local aiohttp receiver (loopback allowed for the run), then
times (1) transactions that each write one row and publish one event, against the same
transactions without the publish, and (2) `deliver_due` until every delivery is delivered,
signatures included. Prints milliseconds per transaction and deliveries per second.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import tempfile
import time
from pathlib import Path

from aiohttp import web
from cryptography.fernet import Fernet, MultiFernet
from sqlalchemy import update
from ulid import ULID

from insureops.platform.config import Settings
from insureops.platform.data.database import Database
from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.migrations import upgrade
from insureops.platform.webhooks.delivery import WebhookDeps, deliver_due
from insureops.platform.webhooks.models import WebhookEndpoint
from insureops.platform.webhooks.outbox import publish
from insureops.platform.webhooks.signing import encrypt_secret, new_secret

PAYLOAD = {"run": {"id": "01JB0RUN000000000000000001", "rule_id": "01JB0RULE00000000000000001",
                   "version": 1, "mode": "apply", "record_type": "policy",
                   "status": "completed", "total": 10, "done": 10, "errors": 0},
           "summary": {"decisions": {"accept": 10}}, "at": "2026-11-27T17:00:00Z"}


async def receiver() -> tuple[web.AppRunner, str]:
    async def ok(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=204)
    app = web.Application()
    app.router.add_post("/hook", ok)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}/hook"


async def transactions(database: Database, workspace_id: str, count: int,
                       with_publish: bool) -> float:
    started = time.perf_counter()
    for _ in range(count):
        async with database.unit_of_work() as uow:  # the change: a row touched
            await uow.session.execute(update(Workspace).where(
                Workspace.tenant_id == workspace_id).values(name=Workspace.name))
            if with_publish:
                await publish(uow.session, workspace_id, "run.completed", PAYLOAD)
    return (time.perf_counter() - started) * 1000 / count


async def main(url: str, events: int) -> None:
    database = Database.connect(url)
    await upgrade(database.engine)
    fernet = MultiFernet([Fernet(Fernet.generate_key())])
    settings = Settings(database_url=url, webhook_allowed_networks=("127.0.0.1/32",))
    runner, hook = await receiver()
    now = datetime.datetime.now(datetime.UTC)
    workspace_id = new_tenant_id(time.time())
    async with database.unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id=workspace_id, name="Bench", created_at=now))
        await uow.session.flush()
        for _ in range(2):
            uow.session.add(WebhookEndpoint(
                id=str(ULID()), workspace_id=workspace_id,
                url=hook, event_types=["run.completed"],
                secret_encrypted=encrypt_secret(fernet, new_secret()), enabled=True,
                consecutive_failures=0, created_at=now, updated_at=now))
    plain = await transactions(database, workspace_id, events, with_publish=False)
    published = await transactions(database, workspace_id, events, with_publish=True)
    print(f"transaction alone {plain:.2f} ms; with publish (1 event, 2 deliveries) "
          f"{published:.2f} ms ({published - plain:+.2f} ms)")
    deps = WebhookDeps(database, fernet, settings, time.time)
    started, delivered = time.perf_counter(), 0
    while delivered < 2 * events:
        delivered += (await deliver_due(deps)).get("delivered", 0)
    elapsed = time.perf_counter() - started
    print(f"delivered {delivered} in {elapsed:.1f} s: {delivered / elapsed:.0f} deliveries/s "
          "(one process, one deliver_due at a time)")
    await runner.cleanup()
    await database.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--events", type=int, default=500)
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    asyncio.run(main(arguments.database_url or f"sqlite+aiosqlite:///{folder}/bench.db",
                     arguments.events))
