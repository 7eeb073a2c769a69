"""The invitation rate limit counts only invitations sent; refusals read correctly (issue 11)."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from tests.platform.team.conftest import BASE


async def remaining(response) -> int:
    return int(response.headers["X-RateLimit-Remaining"])


async def test_duplicate_invitation_does_not_use_up_the_hourly_limit_when_refused_with_409(team):
    ann = await team.tenancy.owner("ann@example.com")
    first = await team.invite(ann, "zoe@example.com")
    assert first.status == 201 and await remaining(first) == 9
    for _ in range(12):  # more duplicates than the whole hourly allowance
        duplicate = await team.invite(ann, "zoe@example.com")
        assert duplicate.status == 409 and await remaining(duplicate) == 9
    await team.tenancy.member(ann, "max@example.com")
    member = await team.invite(ann, "max@example.com")
    assert member.status == 409 and await remaining(member) == 9
    for number in range(9):
        assert (await team.invite(ann, f"guest{number}@example.com")).status == 201
    assert (await team.invite(ann, "one-too-many@example.com")).status == 429


async def test_refused_resend_does_not_count_when_the_invitation_is_not_pending(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, _ = team.last_link("zoe@example.com")
    await team.client.post(f"{BASE}/invitations/{invitation_id}/revoke/", headers=ann.headers)
    resend = f"{BASE}/invitations/{invitation_id}/resend/"
    for _ in range(3):
        response = await team.client.post(resend, headers=ann.headers)
        assert response.status == 409 and await remaining(response) == 9
    missing = await team.client.post(f"{BASE}/invitations/{'0' * 26}/resend/",
                                     headers=ann.headers)
    assert missing.status == 404 and await remaining(missing) == 9


async def test_concurrent_invitations_never_pass_the_limit_when_refunds_race(team):
    ann = await team.tenancy.owner("ann@example.com")
    for number in range(7):
        assert (await team.invite(ann, f"early{number}@example.com")).status == 201
    burst = [team.invite(ann, "early0@example.com") for _ in range(6)]  # duplicates: refunded
    burst += [team.invite(ann, f"burst{number}@example.com") for number in range(6)]
    statuses = [response.status for response in await asyncio.gather(*burst)]
    assert set(statuses[:6]) <= {409, 429}
    created = statuses[6:].count(201)
    assert created <= 3 and set(statuses[6:]) <= {201, 429}
    late = 0
    while (await team.invite(ann, f"late{late}@example.com")).status == 201:
        late += 1
    assert 7 + created + late == 10  # no slot lost to a refund, none gained by a race
    async with team.tenancy.database.unit_of_work() as uow:
        count = (await uow.session.execute(text(
            "SELECT count(*) FROM invitations WHERE workspace_id = :w"),
            {"w": ann.workspace_id})).scalar_one()
    assert count == 10


async def test_refusal_message_reads_a_revoked_when_the_invitation_was_revoked(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, _ = team.last_link("zoe@example.com")
    revoke = f"{BASE}/invitations/{invitation_id}/revoke/"
    await team.client.post(revoke, headers=ann.headers)
    again = await (await team.client.post(revoke, headers=ann.headers)).json()
    assert again["error"]["message"] == "A revoked invitation cannot be revoked."
    resent = await (await team.client.post(f"{BASE}/invitations/{invitation_id}/resend/",
                                           headers=ann.headers)).json()
    assert resent["error"]["message"] == "A revoked invitation cannot be resent."


async def test_refusal_message_reads_an_accepted_when_the_invitation_was_accepted(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    accepted = await team.accept(invitation_id, token=token, name="Zoe",
                                 password="a long new password")
    assert accepted.status == 200
    again = await (await team.client.post(f"{BASE}/invitations/{invitation_id}/revoke/",
                                          headers=ann.headers)).json()
    assert again["error"]["message"] == "An accepted invitation cannot be revoked."
