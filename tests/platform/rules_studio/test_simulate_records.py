"""POST /rules/simulate/ on cases naming a client or policy of the workspace's tenant database."""

from __future__ import annotations

import uuid

from insureops.engine import jsonio
from tests.platform.mcp.conftest import own_tenant_database, save_database_url
from tests.platform.rules_studio.conftest import CLIENT_CHECK, new_client
from tests.platform.rules_studio.test_execute import closed_port
from tests.platform.rules_studio.test_simulate import simulate


def client_case(client_uuid: str, case_id: str | None = None) -> dict:
    return {"id": case_id or client_uuid, "record": {"type": "client", "uuid": client_uuid}}


async def test_simulate_reads_each_record_case_from_the_tenant_database_without_logging(
        studio, owner, tenant_database):
    rule = await studio.created(owner, CLIENT_CHECK)
    no_city = await new_client(studio, owner)
    with_city = await new_client(studio, owner, city="Springfield")
    cases = [client_case(no_city, "no city"), client_case(with_city, "city"),
             {"id": "typed", "inputs": {"client": {"name": "Bo"}}}]
    response = await simulate(studio, owner, rule_id=rule["id"], cases=cases, explain=True)
    assert response.status == 200, await response.text()
    body = jsonio.loads(await response.text())
    assert [(r["id"], r["result"]["decision"]) for r in body["results"]] == [
        ("no city", "refer"), ("city", "accept"), ("typed", "refer")]
    assert body["summary"]["cases"] == 3
    executions = await studio.get(owner, f"{rule['id']}/executions/")
    assert (await executions.json())["items"] == []  # simulate has no side effects


async def test_simulate_is_404_when_a_record_is_missing_or_another_workspaces(
        studio, owner, tenant_database, test_databases, settings):
    zoe = await studio.tenancy.owner("zoe@example.com", "Other Agency")
    await save_database_url(studio.client, zoe.workspace_id,
                            own_tenant_database(test_databases, settings, zoe.workspace_id))
    zoes = await new_client(studio, zoe)
    assert (await simulate(studio, zoe, source=CLIENT_CHECK, cases=[client_case(zoes)])) \
        .status == 200
    mine = await new_client(studio, owner)
    for other in (zoes, str(uuid.uuid4())):
        response = await simulate(studio, owner, source=CLIENT_CHECK,
                                  cases=[client_case(mine), client_case(other)])
        assert response.status == 404, await response.text()
        error = (await response.json())["error"]
        assert error["code"] == "not_found" and other in error["message"]


async def test_simulate_is_400_when_a_case_has_both_or_neither_inputs_and_record(studio, owner):
    record = {"type": "client", "uuid": str(uuid.uuid4())}
    for case in ({"inputs": {}, "record": record}, {"id": 1}):
        response = await simulate(studio, owner, source=CLIENT_CHECK, cases=[case])
        assert response.status == 400
        assert (await response.json())["error"]["code"] == "validation_error"


async def test_simulate_is_503_tenant_database_unavailable_when_it_is_down(studio, owner):
    await save_database_url(studio.client, owner.workspace_id,
                            f"postgresql://app:secret@127.0.0.1:{closed_port()}/tenant")
    response = await simulate(studio, owner, source=CLIENT_CHECK,
                              cases=[client_case(str(uuid.uuid4()))])
    assert response.status == 503
    assert (await response.json())["error"]["code"] == "tenant_database_unavailable"
    assert "secret" not in await response.text()
