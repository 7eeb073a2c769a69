"""docs/webhooks.md says what the code does: its catalogue and retry tables are the code's, and
its receiver example verifies real deliveries (and refuses a forged one)."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp
import pytest

from insureops.platform.webhooks.delivery import deliver_due
from insureops.platform.webhooks.events import docs_table
from insureops.platform.webhooks.schedule import SCHEDULE
from tests.platform.webhooks.conftest import BASE, Hooks

DOC = (Path(__file__).resolve().parents[3] / "docs" / "webhooks.md").read_text()


def test_catalogue_table_is_the_codes_when_the_docs_print_it():
    assert docs_table() in DOC


def test_retry_table_is_the_schedules_when_the_docs_print_it():
    assert SCHEDULE.table() in DOC


def receiver_example() -> str:
    section = DOC.split("### Verifying a delivery", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the receiver's side
async def test_receiver_example_verifies_deliveries_when_run(
        hooks: Hooks, aiohttp_server, monkeypatch):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, "http://127.0.0.1:9/insureops")
    monkeypatch.setenv("INSUREOPS_WEBHOOK_SECRET", endpoint["secret"])
    namespace: dict = {}
    exec(compile(receiver_example(), "docs/webhooks.md", "exec"), namespace)  # noqa: S102
    holder = await aiohttp_server(namespace["app"])  # the example's own app
    moved = await hooks.client.patch(f"{BASE}/{endpoint['id']}/", headers=ann.headers,
                                     json={"url": str(holder.make_url("/insureops"))})
    assert moved.status == 200

    await hooks.publish(ann.workspace_id)
    assert await deliver_due(hooks.deps) == {"delivered": 1}
    [event] = namespace["received"]
    assert event["type"] == "run.completed" and event["data"]["run"]["status"] == "completed"

    [delivery] = await hooks.log(ann, endpoint["id"])
    await hooks.client.post(f"{BASE}/{endpoint['id']}/deliveries/{delivery['id']}/redeliver/",
                            headers=ann.headers)
    assert await deliver_due(hooks.deps) == {"delivered": 1}
    assert len(namespace["received"]) == 1  # the redelivery was recognised by its webhook-id

    async with aiohttp.ClientSession() as session:
        forged = await session.post(holder.make_url("/insureops"), data=b'{"type":"x"}',
                                    headers={"webhook-id": "msg_forged",
                                             "webhook-timestamp": "1700000000",
                                             "webhook-signature": "v1,AAAA"})
    assert forged.status == 401 and len(namespace["received"]) == 1
