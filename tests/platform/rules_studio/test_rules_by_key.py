"""Issue 34: the rules by API key (/api/rules/sync/): ETags, If-Match required, scopes, and
what a key saves attributed to its creator."""

from __future__ import annotations

from tests.platform.rules_studio.conftest import BASE, LOWERED, TRIAGE

SYNC = "/api/rules/sync/rules"


async def _key(studio, owner, scopes=("read", "write")) -> dict:
    response = await studio.client.post("/api/v2/settings/api-keys/",
                                        json={"name": "ci", "scopes": list(scopes)},
                                        headers=owner.headers)
    assert response.status == 201, await response.text()
    return {"Authorization": f"Bearer {(await response.json())['key']}"}


async def test_a_key_creates_reads_and_saves_a_rule_when_it_names_the_current_version(
        studio, owner):
    key = await _key(studio, owner)
    created = await studio.client.post(f"{SYNC}/", json={"source": TRIAGE}, headers=key)
    assert created.status == 201 and created.headers["ETag"] == '"1"'
    rule = await created.json()
    assert rule["version"]["author_id"] == owner.user_id  # the key's creator
    listed = await (await studio.client.get(f"{SYNC}/", headers=key)).json()
    assert [r["id"] for r in listed["items"]] == [rule["id"]]
    saved = await studio.client.patch(f"{SYNC}/{rule['id']}/", json={"source": LOWERED},
                                      headers={**key, "If-Match": '"1"'})
    assert saved.status == 200 and saved.headers["ETag"] == '"2"'
    assert (await saved.json())["status"] == "draft"
    read = await studio.client.get(f"{SYNC}/{rule['id']}/?version=1", headers=key)
    assert read.headers["ETag"] == '"2"' and (await read.json())["version"]["number"] == 1
    by_session = await studio.client.get(f"{BASE}/{rule['id']}/", headers=owner.headers)
    assert by_session.headers["ETag"] == '"2"'


async def test_a_keys_save_is_refused_when_stale_or_without_if_match(studio, owner):
    key = await _key(studio, owner)
    rule = await (await studio.client.post(f"{SYNC}/", json={"source": TRIAGE},
                                           headers=key)).json()
    await studio.patch(owner, rule["id"], {"If-Match": '"1"'}, source=LOWERED)
    stale = await studio.client.patch(f"{SYNC}/{rule['id']}/",
                                      json={"source": TRIAGE.replace("10000", "7")},
                                      headers={**key, "If-Match": '"1"'})
    assert stale.status == 409
    error = (await stale.json())["error"]
    assert error["code"] == "version_conflict" and "version 2 was saved" in error["message"]
    missing = await studio.client.patch(f"{SYNC}/{rule['id']}/", json={"source": TRIAGE},
                                        headers=key)
    assert missing.status == 428
    assert (await missing.json())["error"]["code"] == "precondition_required"
    after = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert after["current_version"] == 2


async def test_a_read_key_reads_but_cannot_save(studio, owner):
    write, read = await _key(studio, owner), await _key(studio, owner, ("read",))
    rule = await (await studio.client.post(f"{SYNC}/", json={"source": TRIAGE},
                                           headers=write)).json()
    assert (await studio.client.get(f"{SYNC}/{rule['id']}/", headers=read)).status == 200
    refused = await studio.client.patch(f"{SYNC}/{rule['id']}/", json={"source": LOWERED},
                                        headers={**read, "If-Match": '"1"'})
    assert refused.status == 403
    assert (await refused.json())["error"]["code"] == "insufficient_scope"


async def test_a_key_keeps_a_case_set_in_step_with_if_match(studio, owner):
    key = await _key(studio, owner)
    rule = await (await studio.client.post(f"{SYNC}/", json={"source": TRIAGE},
                                           headers=key)).json()
    cases = [{"id": "a", "inputs": {"claim": {"amount": 1}}}]
    created = await studio.client.post(f"{SYNC}/{rule['id']}/case-sets/",
                                       json={"name": "default", "cases": cases}, headers=key)
    assert created.status == 201
    saved = await created.json()
    path = f"{SYNC}/{rule['id']}/case-sets/{saved['id']}/"
    assert (await studio.client.patch(path, json={"cases": cases}, headers=key)).status == 428
    changed = await studio.client.patch(path, json={"cases": cases * 2},
                                        headers={**key, "If-Match": '"1"'})
    assert changed.status == 200 and (await changed.json())["case_count"] == 2
    stale = await studio.client.patch(path, json={"cases": cases},
                                      headers={**key, "If-Match": '"1"'})
    assert stale.status == 409
    listed = await (await studio.client.get(f"{SYNC}/{rule['id']}/case-sets/",
                                            headers=key)).json()
    assert [(s["name"], s["version"]) for s in listed["case_sets"]] == [("default", 2)]
