"""POST/GET/PATCH/DELETE /rules/ and /rules/check/: versions, checks and tests on save."""

from __future__ import annotations

import asyncio

import pytest

from insureops.platform.http.cursors import encode_cursor
from tests.platform.rules_studio.conftest import (
    BASE,
    BROKEN,
    FAILING,
    LOWERED,
    TRIAGE,
    WARNED,
)


async def test_create_saves_version_1_with_test_results_when_the_source_checks(studio, owner):
    body = await studio.created(owner, kind="triage")
    assert (body["name"], body["title"], body["kind"], body["status"]) == (
        "triage.small", "Small triage", "triage", "draft")
    assert (body["current_version"], body["published_version"]) == (1, None)
    assert body["created_by"] == owner.user_id and len(body["id"]) == 26
    version = body["version"]
    assert version["number"] == 1 and version["source"] == TRIAGE
    assert version["author_id"] == owner.user_id and len(version["content_hash"]) == 64
    assert version["warnings"] == [] and version["tests_passed"] is True
    assert [(t["description"], t["passed"]) for t in version["tests"]] == [
        ("a small claim is accepted", True), ("a big claim is referred", True)]


async def test_create_is_400_rule_invalid_with_every_diagnostic_when_the_source_has_errors(
        studio, owner):
    response = await studio.create(owner, BROKEN)
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "rule_invalid"
    assert [(d["code"], d["severity"], d["line"], d["column"], d["end_line"], d["end_column"])
            for d in error["details"]] == [("E100", "error", 7, 6, 7, 12),
                                           ("E200", "error", 9, 14, 9, 19)]
    assert all({"message", "hint", "name"} <= d.keys() for d in error["details"])
    listed = await (await studio.get(owner, "")).json()
    assert listed["items"] == []


async def test_a_failing_test_is_saved_as_a_draft_when_the_source_checks(studio, owner):
    body = await studio.created(owner, FAILING)
    version = body["version"]
    assert version["tests_passed"] is False and version["tests_failed"] == 1
    failed = [t for t in version["tests"] if not t["passed"]]
    assert failed[0]["description"] == "a big claim is referred" and failed[0]["message"]


async def test_create_is_409_conflict_when_the_workspace_has_a_rule_of_that_name(studio, owner):
    await studio.created(owner)
    response = await studio.create(owner)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "conflict"


async def test_patch_makes_a_new_version_when_the_source_changes(studio, owner):
    rule = await studio.created(owner)
    response = await studio.patch(owner, rule["id"], source=LOWERED, title="Lowered")
    assert response.status == 200, await response.text()
    body = await response.json()
    assert body["current_version"] == 2 and body["title"] == "Lowered"
    assert body["version"]["number"] == 2 and body["version"]["source"] == LOWERED
    old = await (await studio.get(owner, f"{rule['id']}/", version=1)).json()
    assert old["version"]["source"] == TRIAGE and old["current_version"] == 2
    versions = await (await studio.get(owner, f"{rule['id']}/versions/")).json()
    assert [(v["number"], v["author_id"], v["tests_passed"]) for v in versions["versions"]] == [
        (1, owner.user_id, True), (2, owner.user_id, True)]


@pytest.mark.parametrize("if_match", ['"1"', "1", 'W/"1"'])
async def test_patch_succeeds_when_if_match_names_the_current_version(studio, owner, if_match):
    rule = await studio.created(owner)
    response = await studio.patch(owner, rule["id"], {"If-Match": if_match}, source=LOWERED)
    assert response.status == 200


async def test_one_of_two_concurrent_patches_is_409_when_both_are_based_on_one_version(
        studio, owner):
    rule = await studio.created(owner)
    ada = await studio.tenancy.member(owner, "ada@example.com", "admin")
    answers = await asyncio.gather(
        studio.patch(owner, rule["id"], {"If-Match": '"1"'}, source=LOWERED),
        studio.patch(ada, rule["id"], {"If-Match": '"1"'}, source=FAILING))
    assert sorted(r.status for r in answers) == [200, 409]
    refused = next(r for r in answers if r.status == 409)
    assert (await refused.json())["error"]["code"] == "version_conflict"
    versions = await (await studio.get(owner, f"{rule['id']}/versions/")).json()
    assert [v["number"] for v in versions["versions"]] == [1, 2]


@pytest.mark.parametrize("if_match", ['"abc"', "²", 'W/"²"', "9" * 5000, str(2**31)])
async def test_patch_is_400_when_if_match_is_not_a_version_number(studio, owner, if_match):
    """Issue 28: "²" passed str.isdigit() and failed int(), as did 5,000 digits: 500s."""
    rule = await studio.created(owner)
    response = await studio.patch(owner, rule["id"], {"If-Match": if_match}, source=LOWERED)
    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "If-Match"


async def test_get_is_404_version_not_found_when_the_version_does_not_exist(studio, owner):
    rule = await studio.created(owner)
    response = await studio.get(owner, f"{rule['id']}/", version=7)
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "version_not_found"


async def test_a_version_number_beyond_32_bits_is_400_not_a_database_error(studio, owner):
    rule = await studio.created(owner)
    huge = 2**31
    answers = [await studio.get(owner, f"{rule['id']}/", version=huge),
               await studio.get(owner, "01ARZ3NDEKTSV4RRFFQ69G5FAV/", version=huge),
               await studio.patch(owner, rule["id"], published_version=huge),
               await studio.client.post(f"{BASE}/simulate/", headers=owner.headers, json={
                   "rule_id": rule["id"], "version": huge, "cases": []})]
    for response in answers:
        assert response.status == 400, await response.text()
        assert (await response.json())["error"]["code"] == "validation_error"


async def test_delete_archives_and_keeps_the_rule_readable_when_called_by_an_admin(studio, owner):
    rule = await studio.created(owner)
    response = await studio.client.delete(f"{BASE}/{rule['id']}/", headers=owner.headers)
    assert response.status == 204
    body = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert body["status"] == "archived" and body["version"]["source"] == TRIAGE
    refused = await studio.patch(owner, rule["id"], title="x")
    assert refused.status == 409
    assert (await refused.json())["error"]["code"] == "rule_archived"


async def test_list_filters_and_pages_when_the_workspace_has_several_rules(studio, owner):
    sources = [TRIAGE.replace("triage.small", f"triage.r{n}") for n in range(3)]
    made = [await studio.created(owner, s, kind=k)
            for s, k in zip(sources, ["triage", "pricing", "triage"], strict=True)]
    made.append(await studio.created(owner, TRIAGE.replace("triage.small", "uw.other"),
                                     title="Quotes desk"))
    first = await (await studio.get(owner, "", limit=2)).json()
    assert [r["id"] for r in first["items"]] == [m["id"] for m in made[:2]]
    rest = await (await studio.get(owner, "", limit=2, cursor=first["next_cursor"])).json()
    assert [r["id"] for r in rest["items"]] == [m["id"] for m in made[2:]]
    assert rest["next_cursor"] is None

    async def names(**params) -> list[str]:
        return [r["name"] for r in (await (await studio.get(owner, "", **params)).json())["items"]]
    assert await names(kind="triage") == ["triage.r0", "triage.r2"]
    assert await names(name="uw.") == ["uw.other"]
    assert await names(text="QUOTES") == ["uw.other"]
    assert await names(text="triage.r1") == ["triage.r1"]
    await studio.client.delete(f"{BASE}/{made[0]['id']}/", headers=owner.headers)
    assert await names(status="archived") == ["triage.r0"]


@pytest.mark.parametrize("after", [None, "\x00", "\ud800", "²"])
async def test_list_is_400_validation_error_when_the_cursor_is_not_ours(studio, owner, after):
    """Issue 28: a cursor after NUL (PostgreSQL) or a lone surrogate (both engines) was a 500."""
    cursor = "bm9wZQ" if after is None else encode_cursor(after)
    response = await studio.get(owner, "", cursor=cursor)
    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "cursor"


async def test_check_returns_diagnostics_and_outline_without_saving_when_called(studio, owner):
    response = await studio.client.post(f"{BASE}/check/", json={"source": WARNED},
                                        headers=owner.headers)
    assert response.status == 200
    body = await response.json()
    assert body["ok"] is True and [d["code"] for d in body["diagnostics"]] == ["W200"]
    outline = body["outline"]
    assert outline["name"] == "triage.small"
    assert outline["inputs"] == [{"name": "claim", "type": "Any"}]
    assert [r["name"] for r in outline["rules"]] == ["big", "never"]
    assert outline["tables"] == []
    broken = await (await studio.client.post(f"{BASE}/check/", json={"source": BROKEN},
                                              headers=owner.headers)).json()
    assert broken["ok"] is False and len(broken["diagnostics"]) == 2
    assert (await (await studio.get(owner, "")).json())["items"] == []
