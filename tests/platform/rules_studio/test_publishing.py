"""Publishing through PATCH /rules/<id>/: the pointer, rollback, failing tests, history."""

from __future__ import annotations

from tests.platform.rules_studio.conftest import FAILING, LOWERED


async def test_publishing_moves_the_pointer_and_records_who_when_an_admin_publishes(
        studio, owner):
    rule = await studio.created(owner)
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 200, await response.text()
    body = await response.json()
    assert (body["status"], body["published_version"]) == ("published", 1)
    history = await (await studio.get(owner, f"{rule['id']}/history/")).json()
    assert [(e["action"], e["version"], e["actor_id"]) for e in history["events"]] == [
        ("published", 1, owner.user_id)]


async def test_status_published_publishes_the_current_version_when_given(studio, owner):
    rule = await studio.created(owner)
    await studio.patch(owner, rule["id"], source=LOWERED)
    body = await (await studio.patch(owner, rule["id"], status="published")).json()
    assert body["published_version"] == 2


async def test_publishing_an_older_version_rolls_back_when_a_newer_one_is_live(studio, owner):
    rule = await studio.created(owner)
    ada = await studio.tenancy.member(owner, "ada@example.com", "admin")
    await studio.patch(owner, rule["id"], source=LOWERED)
    await studio.patch(owner, rule["id"], published_version=2)
    body = await (await studio.patch(ada, rule["id"], published_version=1)).json()
    assert (body["published_version"], body["current_version"]) == (1, 2)
    history = await (await studio.get(owner, f"{rule['id']}/history/")).json()
    assert [(e["version"], e["actor_id"]) for e in history["events"]] == [
        (2, owner.user_id), (1, ada.user_id)]


async def test_publishing_is_409_tests_failing_when_the_versions_tests_failed(studio, owner):
    rule = await studio.created(owner, FAILING)
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 409
    error = (await response.json())["error"]
    assert error["code"] == "tests_failing" and "a big claim is referred" in error["message"]
    body = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert (body["status"], body["published_version"]) == ("draft", None)


async def test_publishing_is_404_version_not_found_when_the_version_does_not_exist(
        studio, owner):
    rule = await studio.created(owner)
    response = await studio.patch(owner, rule["id"], published_version=5)
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "version_not_found"


async def test_status_draft_withdraws_the_publication_when_one_is_live(studio, owner):
    rule = await studio.created(owner)
    await studio.patch(owner, rule["id"], published_version=1)
    body = await (await studio.patch(owner, rule["id"], status="draft")).json()
    assert (body["status"], body["published_version"]) == ("draft", None)
    history = await (await studio.get(owner, f"{rule['id']}/history/")).json()
    assert [e["action"] for e in history["events"]] == ["published", "unpublished"]


async def test_publishing_is_403_when_the_caller_is_a_member(studio, owner):
    rule = await studio.created(owner)
    max_ = await studio.tenancy.member(owner, "max@example.com")
    response = await studio.patch(max_, rule["id"], published_version=1)
    assert response.status == 403


async def test_publishing_is_409_rule_archived_when_the_rule_is_archived(studio, owner):
    rule = await studio.created(owner)
    await studio.patch(owner, rule["id"], status="archived")
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "rule_archived"
