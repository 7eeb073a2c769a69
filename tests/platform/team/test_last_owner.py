"""The last-owner invariant under real concurrency (issue 17): requests sent at once through the
real app, on SQLite (where FOR UPDATE does nothing) and PostgreSQL, many rounds each."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import func, select

from insureops.platform.identity import Membership
from tests.platform.workspaces import Member, Tenancy, start_tenancy

BASE = "/api/team"
ROUNDS = 12


@pytest.fixture
async def tenancy(aiohttp_client, settings) -> Tenancy:
    return await start_tenancy(aiohttp_client, settings, time.time)


async def owner_count(tenancy: Tenancy, workspace_id: str) -> int:
    async with tenancy.database.unit_of_work() as uow:
        return (await uow.session.execute(
            select(func.count()).select_from(Membership).where(
                Membership.workspace_id == workspace_id, Membership.role == "owner"))
                ).scalar_one()


def set_role(tenancy: Tenancy, caller: Member, target: Member, role: str):
    return tenancy.client.patch(f"{BASE}/members/{target.user_id}/", json={"role": role},
                                headers=caller.headers)


async def test_workspace_keeps_an_owner_when_two_owners_demote_each_other_at_the_same_moment(
        tenancy):
    """Issue 17: A promotes D; then at the same moment A demotes D and D demotes A: both were
    200 and the workspace had no owner."""
    for round_ in range(ROUNDS):
        ann = await tenancy.owner(f"ann{round_}@example.com")
        dan = await tenancy.member(ann, f"dan{round_}@example.com")
        assert (await set_role(tenancy, ann, dan, "owner")).status == 200

        answers = await asyncio.gather(set_role(tenancy, ann, dan, "member"),
                                       set_role(tenancy, dan, ann, "member"))

        statuses = sorted(answer.status for answer in answers)
        assert await owner_count(tenancy, ann.workspace_id) == 1, (round_, statuses)
        assert statuses.count(200) == 1 and set(statuses) <= {200, 403, 409}, statuses


async def promote_then_step_down(tenancy: Tenancy, owner: Member, member: Member) -> list:
    promoted = await set_role(tenancy, owner, member, "owner")
    stepped = await set_role(tenancy, owner, owner, "member")
    return [promoted, stepped]


async def test_workspace_keeps_an_owner_when_a_removal_races_a_promotion_and_a_step_down(
        tenancy):
    """The removal of a member who is made owner meanwhile, while the old owner steps down."""
    for round_ in range(ROUNDS):
        ann = await tenancy.owner(f"ann{round_}@example.com")
        ada = await tenancy.member(ann, f"ada{round_}@example.com", "admin")
        dan = await tenancy.member(ann, f"dan{round_}@example.com")

        removal, chain = await asyncio.gather(
            tenancy.client.delete(f"{BASE}/members/{dan.user_id}/", headers=ada.headers),
            promote_then_step_down(tenancy, ann, dan))

        statuses = [removal.status] + [answer.status for answer in chain]
        assert await owner_count(tenancy, ann.workspace_id) >= 1, (round_, statuses)
        assert set(statuses) <= {200, 204, 403, 404, 409}, statuses
