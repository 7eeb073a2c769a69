"""Publishing through PATCH /rules/<id>/ and its history route; rollback, withdrawal and the
refusals are the fast tier's (test_service.py)."""

from __future__ import annotations


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
