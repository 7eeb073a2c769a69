"""POST /rules/<id>/execute/ on the published version, and the append-only execution log;
unpublished and archived rules are the fast tier's (test_service.py)."""

from __future__ import annotations

import socket
import uuid

import pytest

from insureops.engine.inputs import jsonio
from insureops.platform.http.cursors import encode_cursor
from tests.platform.mcp.conftest import save_database_url
from tests.platform.rules_studio.conftest import BASE, CLIENT_CHECK, LOWERED, new_client


async def execute(studio, member, rule_id: str, **body):
    return await studio.client.post(f"{BASE}/{rule_id}/execute/", json=body,
                                    headers=member.headers)


async def published_rule(studio, owner, source: str | None = None) -> dict:
    rule = await studio.created(owner, **({"source": source} if source else {}))
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 200
    return rule


async def test_execute_runs_the_published_version_and_logs_it_when_given_inputs(studio, owner):
    rule = await published_rule(studio, owner)
    await studio.patch(owner, rule["id"], source=LOWERED)  # v2 saved, v1 still published
    response = await execute(studio, owner, rule["id"], inputs={"claim": {"amount": 5000}})
    assert response.status == 200, await response.text()
    body = jsonio.loads(await response.text())
    assert body["result"]["decision"] == "accept"  # v1: 5000 is under its limit of 10000
    entry = body["execution"]
    assert (entry["version"], entry["executed_by"], entry["decision"], entry["score"]) == (
        1, owner.user_id, "accept", "0")
    assert len(entry["input_digest"]) == 64 and entry["record"] is None
    listed = await (await studio.get(owner, f"{rule['id']}/executions/")).json()
    assert [e["id"] for e in listed["items"]] == [entry["id"]]
    one = await (await studio.get(owner, f"{rule['id']}/executions/{entry['id']}/")).json()
    assert one == listed["items"][0]


async def test_execute_adds_the_trace_when_explain_is_set(studio, owner):
    rule = await published_rule(studio, owner)
    body = jsonio.loads(await (await execute(studio, owner, rule["id"], explain=True,
                                             inputs={"claim": {"amount": 20000}})).text())
    assert body["result"]["decision"] == "refer" and body["result"]["trace"]
    assert body["execution"]["fired"] == ["big"]


async def test_the_log_lists_newest_first_and_pages_when_executed_several_times(studio, owner):
    rule = await published_rule(studio, owner)
    ids = []
    for amount in (1, 20000, 3):
        response = await execute(studio, owner, rule["id"], inputs={"claim": {"amount": amount}})
        ids.append((await response.json())["execution"]["id"])
    first = await (await studio.get(owner, f"{rule['id']}/executions/", limit=2)).json()
    assert [e["id"] for e in first["items"]] == ids[:0:-1]
    rest = await (await studio.get(owner, f"{rule['id']}/executions/",
                                   cursor=first["next_cursor"])).json()
    assert [e["id"] for e in rest["items"]] == ids[:1] and rest["next_cursor"] is None


async def test_log_is_400_validation_error_when_the_cursor_is_after_no_execution_id(
        studio, owner):
    """Issue 28: "²" passed str.isdigit() and failed int(); ids past 31 bits failed the
    database (PostgreSQL's INTEGER; SQLite's past 63): 500s. Every such cursor is refused in
    the fast tier (test_service.py); here one through the route."""
    after = str(2**31)
    rule = await published_rule(studio, owner)
    response = await studio.get(owner, f"{rule['id']}/executions/",
                                cursor=encode_cursor(after))
    assert response.status == 400, await response.text()
    assert (await response.json())["error"]["details"][0]["field"] == "cursor"


@pytest.mark.parametrize("execution_id", [2**31, 2**62, 2**63])
async def test_execution_is_404_when_its_id_is_past_what_the_column_holds(
        studio, owner, execution_id):
    """Issue 28: /executions/4611686018427387904/ was a 500 on PostgreSQL (INTEGER column)."""
    rule = await published_rule(studio, owner)
    response = await studio.get(owner, f"{rule['id']}/executions/{execution_id}/")
    assert response.status == 404, await response.text()
    assert (await response.json())["error"]["code"] == "not_found"


async def test_execute_is_422_and_logged_when_the_inputs_cannot_be_evaluated(studio, owner):
    rule = await published_rule(studio, owner)
    response = await execute(studio, owner, rule["id"], inputs={})
    assert response.status == 422
    error = (await response.json())["error"]
    assert error["code"] == "evaluation_failed" and "missing_input" in error["details"][0][
        "message"]
    listed = await (await studio.get(owner, f"{rule['id']}/executions/")).json()
    assert [(e["error"], e["decision"]) for e in listed["items"]] == [("missing_input", None)]


async def test_executions_are_404_when_read_from_another_workspace(studio, owner):
    rule = await published_rule(studio, owner)
    done = await (await execute(studio, owner, rule["id"], inputs={"claim": {"amount": 1}})).json()
    zoe = await studio.tenancy.owner("zoe@example.com", "Other Agency")
    for path in (f"{rule['id']}/executions/",
                 f"{rule['id']}/executions/{done['execution']['id']}/"):
        assert (await studio.get(zoe, path)).status == 404
    assert (await execute(studio, zoe, rule["id"], inputs={"claim": {"amount": 1}})).status \
        == 404


async def test_execute_reads_the_client_from_the_tenant_database_when_given_a_record(
        studio, owner, tenant_database):
    rule = await published_rule(studio, owner, CLIENT_CHECK)
    client_uuid = await new_client(studio, owner)  # no city
    response = await execute(studio, owner, rule["id"],
                             record={"type": "client", "uuid": client_uuid})
    assert response.status == 200, await response.text()
    body = jsonio.loads(await response.text())
    assert body["result"]["decision"] == "refer"
    assert body["execution"]["record"] == {"type": "client", "uuid": client_uuid}


async def test_execute_is_404_when_the_record_does_not_exist(studio, owner, tenant_database):
    rule = await published_rule(studio, owner, CLIENT_CHECK)
    response = await execute(studio, owner, rule["id"],
                             record={"type": "client", "uuid": str(uuid.uuid4())})
    assert response.status == 404


async def test_execute_is_422_record_not_applicable_when_the_input_is_not_a_client(
        studio, owner, tenant_database):
    rule = await published_rule(studio, owner)  # `input claim: Any` takes any record,
    response = await execute(studio, owner, rule["id"],  # so the lookup answers: no such policy
                             record={"type": "policy", "uuid": str(uuid.uuid4())})
    assert response.status == 404
    typed = await published_rule(studio, owner, CLIENT_CHECK.replace("clients.check", "c.two"))
    refused = await execute(studio, owner, typed["id"],
                            record={"type": "policy", "uuid": str(uuid.uuid4())})
    assert refused.status == 422
    assert (await refused.json())["error"]["code"] == "record_not_applicable"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_execute_is_503_tenant_database_unavailable_when_it_is_down(studio, owner):
    rule = await published_rule(studio, owner, CLIENT_CHECK)
    await save_database_url(studio.client, owner.workspace_id,
                            f"postgresql://app:secret@127.0.0.1:{closed_port()}/tenant")
    response = await execute(studio, owner, rule["id"],
                             record={"type": "client", "uuid": str(uuid.uuid4())})
    assert response.status == 503
    body = await response.json()
    assert body["error"]["code"] == "tenant_database_unavailable"
    assert "secret" not in await response.text()


async def test_the_log_filters_by_decision_failure_day_and_record_when_asked(
        studio, owner, tenant_database):
    """Issue 34: the studio page's execution log filters, with pagination going on."""
    rule = await published_rule(studio, owner, CLIENT_CHECK)
    client = await new_client(studio, owner, city="Springfield")
    studio.tenancy.clock.now = 1_795_000_000  # 2026-11-18 (UTC)
    referred = await execute(studio, owner, rule["id"], inputs={"client": {"name": "A"}})
    studio.tenancy.clock.advance(86_400)
    accepted = await execute(studio, owner, rule["id"], record={"type": "client",
                                                                "uuid": client})
    await execute(studio, owner, rule["id"], inputs={"client": {"name": "B", "city": "X"}})
    ids = [(await r.json())["execution"]["id"] for r in (referred, accepted)]

    async def listed(**query) -> list[int]:
        response = await studio.get(owner, f"{rule['id']}/executions/", **query)
        assert response.status == 200, await response.text()
        return [e["id"] for e in (await response.json())["items"]]

    assert await listed(decision="refer") == ids[:1]
    assert await listed(record_uuid=client) == ids[1:]
    assert await listed(executed_to="2026-11-18") == ids[:1]
    assert len(await listed(executed_from="2026-11-19")) == 2
    assert await listed(executed_from="2026-11-19", decision="accept", limit=1) != []
    first = await (await studio.get(owner, f"{rule['id']}/executions/", decision="accept",
                                    limit=1)).json()
    rest = await (await studio.get(owner, f"{rule['id']}/executions/", decision="accept",
                                   limit=1, cursor=first["next_cursor"])).json()
    assert rest["items"][0]["id"] == ids[1] and rest["next_cursor"] is None
    assert await listed(failed="true") == []
