"""SQLAlchemy queries of the team area; every function receives the session it works in."""

from __future__ import annotations

import datetime

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from insureops.platform.identity import Membership, User, Workspace
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.team.models import Invitation
from insureops.platform.tenancy.databases import TenantDatabase


async def workspace(session: AsyncSession, workspace_id: str) -> Workspace | None:
    return await session.get(Workspace, workspace_id)


async def members(session: AsyncSession, workspace_id: str) -> list[tuple[User, Membership]]:
    """The workspace's members with their memberships, earliest joined first."""
    statement = (select(User, Membership).join(Membership, Membership.user_id == User.id)
                 .where(Membership.workspace_id == workspace_id)
                 .order_by(Membership.created_at, User.id))
    return [(user, membership) for user, membership in (await session.execute(statement)).all()]


async def member(session: AsyncSession, workspace_id: str,
                 user_id: str) -> tuple[User, Membership] | None:
    statement = (select(User, Membership).join(Membership, Membership.user_id == User.id)
                 .where(Membership.workspace_id == workspace_id, Membership.user_id == user_id))
    row = (await session.execute(statement)).first()
    return None if row is None else (row[0], row[1])


def _owner_count(workspace_id: str):
    owners = aliased(Membership)
    return (select(func.count()).select_from(owners)
            .where(owners.workspace_id == workspace_id, owners.role == "owner")
            .scalar_subquery())


async def set_role(session: AsyncSession, workspace_id: str, user_id: str, role: str) -> bool:
    """Give the member `role` in one conditional UPDATE; False when no row changed (the member
    is gone, or is an owner and no other owner remains).

    The owner count is read by the UPDATE itself, so the check and the write are one statement:
    on SQLite, which serialises writers, two owners demoting each other cannot both pass. On
    PostgreSQL two such UPDATEs touch different rows and would not wait for each other (each
    counting two owners): the caller holds the workspace first (`hold_workspace`), so the
    second waits and its UPDATE counts the first one's committed change (READ COMMITTED reads
    per statement).
    """
    statement = update(Membership).where(Membership.workspace_id == workspace_id,
                                         Membership.user_id == user_id)
    if role != "owner":
        statement = statement.where(or_(Membership.role != "owner",
                                        _owner_count(workspace_id) > 1))
    result = await session.execute(statement.values(role=role)
                                   .execution_options(synchronize_session=False))
    return result.rowcount == 1


async def delete_non_owner(session: AsyncSession, workspace_id: str, user_id: str) -> bool:
    """Remove the membership unless it is an owner's, in one statement (the role is checked
    as the row is deleted, not as it was read); False when nothing was deleted."""
    result = await session.execute(
        delete(Membership).where(Membership.workspace_id == workspace_id,
                                 Membership.user_id == user_id, Membership.role != "owner")
        .execution_options(synchronize_session=False))
    return result.rowcount == 1


async def member_by_email(session: AsyncSession, workspace_id: str, email: str) -> User | None:
    statement = (select(User).join(Membership, Membership.user_id == User.id)
                 .where(Membership.workspace_id == workspace_id, User.email == email))
    return (await session.execute(statement)).scalar_one_or_none()


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    return (await session.execute(select(User).where(User.email == email))).scalar_one_or_none()


async def count_members(session: AsyncSession, workspace_id: str) -> int:
    statement = select(func.count()).select_from(Membership).where(
        Membership.workspace_id == workspace_id)
    return (await session.execute(statement)).scalar_one()


async def count_live_keys(session: AsyncSession, workspace_id: str,
                          now: datetime.datetime) -> int:
    statement = select(func.count()).select_from(ApiKey).where(
        ApiKey.workspace_id == workspace_id, ApiKey.revoked_at.is_(None),
        (ApiKey.expires_at.is_(None)) | (ApiKey.expires_at > now))
    return (await session.execute(statement)).scalar_one()


async def has_tenant_database(session: AsyncSession, workspace_id: str) -> bool:
    return await session.get(TenantDatabase, workspace_id) is not None


async def pending_invitations(session: AsyncSession, workspace_id: str,
                              now: datetime.datetime) -> list[Invitation]:
    """Pending invitations that have not expired, newest first."""
    statement = (select(Invitation)
                 .where(Invitation.workspace_id == workspace_id, Invitation.status == "pending",
                        Invitation.expires_at > now)
                 .order_by(Invitation.created_at.desc(), Invitation.id.desc()))
    return list((await session.execute(statement)).scalars())


async def pending_invitation_for(session: AsyncSession, workspace_id: str, email: str,
                                 now: datetime.datetime) -> Invitation | None:
    statement = select(Invitation).where(
        Invitation.workspace_id == workspace_id, Invitation.email == email,
        Invitation.status == "pending", Invitation.expires_at > now)
    return (await session.execute(statement)).scalars().first()


async def invitation(session: AsyncSession, invitation_id: str,
                     workspace_id: str | None = None) -> Invitation | None:
    """The invitation; with `workspace_id`, only when it belongs to that workspace."""
    statement = select(Invitation).where(Invitation.id == invitation_id)
    if workspace_id is not None:
        statement = statement.where(Invitation.workspace_id == workspace_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def claim_invitation(session: AsyncSession, invitation_id: str, token_hash: str,
                           now: datetime.datetime) -> bool:
    """Mark a pending invitation accepted, once: True for the one caller whose update won."""
    result = await session.execute(
        update(Invitation)
        .where(Invitation.id == invitation_id, Invitation.token_hash == token_hash,
               Invitation.status == "pending", Invitation.expires_at > now)
        .values(status="accepted", accepted_at=now)
        .execution_options(synchronize_session=False))
    return result.rowcount == 1


async def revoke_invitation(session: AsyncSession, invitation: Invitation,
                            now: datetime.datetime) -> bool:
    """pending -> revoked in one conditional UPDATE: True for the one caller that found it
    pending (the object then holds the change). Of a revoke and an accept (or another revoke)
    at the same moment, the second UPDATE matches nothing, on SQLite (which serialises writers
    and ignores FOR UPDATE) and on PostgreSQL (it waits for the row lock, then re-reads)."""
    result = await session.execute(
        update(Invitation)
        .where(Invitation.id == invitation.id, Invitation.status == "pending")
        .values(status="revoked", revoked_at=now)
        .execution_options(synchronize_session="evaluate"))
    return result.rowcount == 1


async def reissue_invitation(session: AsyncSession, invitation: Invitation, token_hash: str,
                             now: datetime.datetime, expires_at: datetime.datetime) -> bool:
    """A new token and expiry for a pending invitation whose token is still the one read (a
    compare-and-set, as `revoke_invitation`): of two resends, or a resend and an accept or
    revoke at the same moment, one wins; True for it."""
    result = await session.execute(
        update(Invitation)
        .where(Invitation.id == invitation.id, Invitation.status == "pending",
               Invitation.token_hash == invitation.token_hash)
        .values(token_hash=token_hash, sent_at=now, expires_at=expires_at,
                send_count=Invitation.send_count + 1)
        .execution_options(synchronize_session="evaluate"))
    return result.rowcount == 1


async def set_accepted_by(session: AsyncSession, invitation_id: str, user_id: str) -> None:
    await session.execute(update(Invitation).where(Invitation.id == invitation_id)
                          .values(accepted_by=user_id)
                          .execution_options(synchronize_session=False))


async def add(session: AsyncSession, *rows: object) -> None:
    session.add_all(rows)
    await session.flush()
