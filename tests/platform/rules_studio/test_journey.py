"""Issue 14's "Done when": the author's journey over HTTP, as one test (SQLite and PostgreSQL).

Create with an error -> see every diagnostic with line and column -> fix -> tests run ->
simulate with expectations -> change -> impact against the previous version -> publish ->
execute on inputs and on a tenant record -> read the log -> roll back -> archive.
"""

from __future__ import annotations

from insureops.engine.inputs import jsonio
from tests.platform.mcp.conftest import add_key, own_tenant_database, save_database_url

BASE = "/api/rules/rules"

V1 = '''ruleset clients.review "Client review"
input client: Client
default decision accept
const HOME = "IL"

rule out_of_state "Client outside the home state"
when client.region != HOME
then
    score += 10
    refer "Client in {client.region ?? "no region"}"
end

test "a home-state client is accepted"
given client = {"name": "Ann", "region": "IL"}
expect decision == "accept" and score == 0
end
'''
WITH_ERROR = V1.replace("client.region != HOME", "client.regoin != HOME")
V2 = V1.replace('const HOME = "IL"', 'const HOME = "WI"').replace(
    '{"name": "Ann", "region": "IL"}', '{"name": "Ann", "region": "WI"}')
CASES = [
    {"id": "il", "inputs": {"client": {"name": "A", "region": "IL"}},
     "expect": {"decision": "accept"}},
    {"id": "wi", "inputs": {"client": {"name": "B", "region": "WI"}},
     "expect": {"decision": "refer", "score": 10}},
]


async def test_an_author_goes_from_a_broken_draft_to_an_archived_rule_when_using_the_api(
        studio, owner, test_databases, settings):
    client, headers = studio.client, owner.headers

    # create with an error: refused with every diagnostic, line and column
    refused = await client.post(f"{BASE}/", json={"source": WITH_ERROR, "kind": "triage"},
                                headers=headers)
    assert refused.status == 400
    error = (await refused.json())["error"]
    assert error["code"] == "rule_invalid"
    assert [(d["code"], d["line"], d["column"]) for d in error["details"]] == [("E104", 7, 6)]

    # fix: saved as version 1, its embedded test run
    created = await client.post(f"{BASE}/", json={"source": V1, "kind": "triage"},
                                headers=headers)
    assert created.status == 201
    rule = await created.json()
    assert rule["version"]["tests_passed"] and len(rule["version"]["tests"]) == 1
    rule_id = rule["id"]

    # simulate with expectations: the "wi" expectation holds under version 1
    simulated = jsonio.loads(await (await client.post(
        f"{BASE}/simulate/", json={"rule_id": rule_id, "cases": CASES},
        headers=headers)).text())
    assert simulated["expectations"] == {"checked": 2, "met": 2, "not_met": 0}

    # change: version 2, then its impact against version 1
    changed = await client.patch(f"{BASE}/{rule_id}/", json={"source": V2},
                                 headers={**headers, "If-Match": '"1"'})
    assert (await changed.json())["current_version"] == 2
    impact = jsonio.loads(await (await client.post(
        f"{BASE}/simulate/", json={"rule_id": rule_id, "cases": CASES,
                                   "baseline": {"version": 1}}, headers=headers)).text())
    assert impact["expectations"]["not_met"] == 2
    assert {(t["from"], t["to"]): t["count"] for t in impact["impact"]["transitions"]} == {
        ("accept", "refer"): 1, ("refer", "accept"): 1}

    # publish version 2
    published = await client.patch(f"{BASE}/{rule_id}/", json={"published_version": 2},
                                   headers=headers)
    assert (await published.json())["published_version"] == 2

    # execute on inputs, and on a client of the workspace's tenant database
    on_inputs = jsonio.loads(await (await client.post(
        f"{BASE}/{rule_id}/execute/", json={"inputs": {"client": {"name": "C",
                                                                  "region": "IL"}}},
        headers=headers)).text())
    assert on_inputs["result"]["decision"] == "refer"
    await save_database_url(client, owner.workspace_id,
                            own_tenant_database(test_databases, settings, owner.workspace_id))
    key, _ = await add_key(client, owner.workspace_id)
    record = await (await client.post("/api/v2/mcp/clients/", json={"name": "D", "region": "WI"},
                                      headers={"Authorization": f"Bearer {key}"})).json()
    on_record = jsonio.loads(await (await client.post(
        f"{BASE}/{rule_id}/execute/", json={"record": {"type": "client",
                                                       "uuid": record["uuid"]}},
        headers=headers)).text())
    assert on_record["result"]["decision"] == "accept"

    # read the log
    log = await (await client.get(f"{BASE}/{rule_id}/executions/", headers=headers)).json()
    assert [(e["version"], e["decision"], e["record"] and e["record"]["type"])
            for e in log["items"]] == [(2, "accept", "client"), (2, "refer", None)]

    # roll back to version 1: executions use it again
    await client.patch(f"{BASE}/{rule_id}/", json={"published_version": 1}, headers=headers)
    rolled = await (await client.post(
        f"{BASE}/{rule_id}/execute/", json={"inputs": {"client": {"name": "C",
                                                                  "region": "IL"}}},
        headers=headers)).json()
    assert (rolled["result"]["decision"], rolled["execution"]["version"]) == ("accept", 1)
    history = await (await client.get(f"{BASE}/{rule_id}/history/", headers=headers)).json()
    assert [(e["action"], e["version"]) for e in history["events"]] == [
        ("published", 2), ("published", 1)]

    # archive: still readable, no longer executable
    assert (await client.delete(f"{BASE}/{rule_id}/", headers=headers)).status == 204
    archived = await client.post(f"{BASE}/{rule_id}/execute/",
                                 json={"inputs": {"client": {"name": "C"}}}, headers=headers)
    assert (await archived.json())["error"]["code"] == "rule_archived"
    final = await (await client.get(f"{BASE}/{rule_id}/", params={"version": 1},
                                    headers=headers)).json()
    assert final["status"] == "archived" and final["version"]["source"] == V1
