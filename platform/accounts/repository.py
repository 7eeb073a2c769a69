"""SQLAlchemy queries of the accounts area; every function receives the session it works in."""

from __future__ import annotations

import datetime

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.accounts.models import Session, VerificationCode
from insureops.platform.identity import Membership, User, Workspace


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    return (await session.execute(select(User).where(User.email == email))).scalar_one_or_none()


async def user_by_id(session: AsyncSession, user_id: str) -> User | None:
    return await session.get(User, user_id)


async def add_user_with_workspace(session: AsyncSession, user: User,
                                  workspace: Workspace) -> None:
    """The user, their workspace and the owner membership joining them."""
    session.add_all([user, workspace])
    await session.flush()
    session.add(Membership(user_id=user.id, workspace_id=workspace.tenant_id, role="owner",
                           created_at=user.created_at))
    await session.flush()


async def owned_workspaces(session: AsyncSession, user_id: str) -> list[Workspace]:
    statement = (select(Workspace).join(Membership, Membership.workspace_id == Workspace.tenant_id)
                 .where(Membership.user_id == user_id, Membership.role == "owner")
                 .order_by(Membership.created_at, Workspace.tenant_id))
    return list((await session.execute(statement)).scalars())


async def memberships_of(session: AsyncSession, user_id: str) -> list[tuple[Workspace, str]]:
    """The user's workspaces with their role, oldest membership first."""
    statement = (select(Workspace, Membership.role)
                 .join(Membership, Membership.workspace_id == Workspace.tenant_id)
                 .where(Membership.user_id == user_id)
                 .order_by(Membership.created_at, Workspace.tenant_id))
    return [(workspace, role) for workspace, role in (await session.execute(statement)).all()]


async def code_of(session: AsyncSession, user_id: str) -> VerificationCode | None:
    return await session.get(VerificationCode, user_id)


async def take_try(session: AsyncSession, code: VerificationCode, limit: int) -> bool:
    """Count one try of the code, if fewer than `limit` were counted, in one conditional
    UPDATE (issue 28: the count was written back as read, so tries sent at once counted as
    one). True when the try was taken; False when the tries are used up or the code was
    replaced meanwhile. Of tries sent at once at most `limit` are taken, on both engines: the
    UPDATE waits for the previous one's write (SQLite) or row lock (PostgreSQL) and counts
    on."""
    result = await session.execute(
        update(VerificationCode)
        .where(VerificationCode.user_id == code.user_id,
               VerificationCode.code_hash == code.code_hash,
               VerificationCode.failed_tries < limit)
        .values(failed_tries=VerificationCode.failed_tries + 1)
        .execution_options(synchronize_session=False))
    return result.rowcount == 1


async def replace_code(session: AsyncSession, code: VerificationCode) -> None:
    """Store `code` as the user's only live code (a resend invalidates the previous one)."""
    await session.execute(delete(VerificationCode).where(VerificationCode.user_id == code.user_id))
    session.add(code)
    await session.flush()


async def delete_code(session: AsyncSession, user_id: str) -> None:
    await session.execute(delete(VerificationCode).where(VerificationCode.user_id == user_id))


async def add_session(session: AsyncSession, login: Session) -> None:
    session.add(login)
    await session.flush()


async def session_with_user(session: AsyncSession, id_hash: str
                            ) -> tuple[Session, User, list[tuple[Workspace, str]]] | None:
    """The session row, its user and the user's workspaces with their role (as
    `memberships_of`), in one statement: what every session-authenticated request reads."""
    statement = (select(Session, User, Workspace, Membership.role)
                 .join(User, User.id == Session.user_id)
                 .outerjoin(Membership, Membership.user_id == Session.user_id)
                 .outerjoin(Workspace, Workspace.tenant_id == Membership.workspace_id)
                 .where(Session.id_hash == id_hash)
                 .order_by(Membership.created_at, Workspace.tenant_id))
    rows = (await session.execute(statement)).all()
    if not rows:
        return None
    memberships = [(workspace, role) for _, _, workspace, role in rows if workspace is not None]
    return rows[0][0], rows[0][1], memberships


async def slide_session(session: AsyncSession, id_hash: str, now: datetime.datetime,
                        expires_at: datetime.datetime) -> None:
    """Seen now: the session's expiry moves forward (no row when it was deleted meanwhile)."""
    await session.execute(update(Session).where(Session.id_hash == id_hash)
                          .values(last_seen_at=now, expires_at=expires_at))


async def delete_session(session: AsyncSession, id_hash: str) -> None:
    await session.execute(delete(Session).where(Session.id_hash == id_hash))


async def delete_expired_sessions(session: AsyncSession, user_id: str,
                                  now: datetime.datetime, also: str | None = None) -> None:
    """Housekeeping at login: the user's sessions that have run out, and the session whose
    hash is `also` (the one the login replaces), in one statement."""
    stale = and_(Session.user_id == user_id, Session.expires_at <= now)
    await session.execute(delete(Session).where(
        stale if also is None else or_(stale, Session.id_hash == also)))
