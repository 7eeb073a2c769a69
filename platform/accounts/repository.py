"""The accounts area's store: its port (`AccountsRepository`, what the use cases may ask) and its
one implementation, this module's SQLAlchemy queries; every function receives the session it
works in. The fast tests give the use cases an in-memory fake of the port instead.
"""

from __future__ import annotations

import datetime
from typing import Protocol

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.accounts.models import Session, VerificationCode
from insureops.platform.identity import Membership, User, Workspace


class AccountsRepository(Protocol):
    """What the accounts use cases ask of their store (this module answers it)."""

    async def user_by_email(self, session: AsyncSession, email: str) -> User | None: ...

    async def add_user_with_workspace(self, session: AsyncSession, user: User,
                                      workspace: Workspace) -> bool: ...

    async def memberships_of(self, session: AsyncSession,
                             user_id: str) -> list[tuple[Workspace, str]]: ...

    async def take_code_try(self, session: AsyncSession, user_id: str, now: datetime.datetime,
                            max_tries: int) -> str | None: ...

    async def mark_verified(self, session: AsyncSession, user_id: str,
                            now: datetime.datetime) -> None: ...

    async def replace_code(self, session: AsyncSession, code: VerificationCode) -> None: ...

    async def delete_code(self, session: AsyncSession, user_id: str) -> None: ...

    async def add_session(self, session: AsyncSession, login: Session) -> None: ...

    async def session_with_user(self, session: AsyncSession, id_hash: str
                                ) -> tuple[Session, User, list[tuple[Workspace, str]]] | None: ...

    async def slide_session(self, session: AsyncSession, id_hash: str, now: datetime.datetime,
                            expires_at: datetime.datetime) -> None: ...

    async def delete_session(self, session: AsyncSession, id_hash: str) -> None: ...

    async def delete_expired_sessions(self, session: AsyncSession, user_id: str,
                                      now: datetime.datetime, also: str | None = None
                                      ) -> None: ...


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    return (await session.execute(select(User).where(User.email == email))).scalar_one_or_none()


async def add_user_with_workspace(session: AsyncSession, user: User,
                                  workspace: Workspace) -> bool:
    """The user, their workspace and the owner membership joining them; False (the transaction
    rolled back) when the address was taken meanwhile (a concurrent sign-up)."""
    try:
        session.add_all([user, workspace])
        await session.flush()
        session.add(Membership(user_id=user.id, workspace_id=workspace.tenant_id, role="owner",
                               created_at=user.created_at))
        await session.flush()
    except IntegrityError:
        await session.rollback()
        return False
    return True


async def memberships_of(session: AsyncSession, user_id: str) -> list[tuple[Workspace, str]]:
    """The user's workspaces with their role, oldest membership first."""
    statement = (select(Workspace, Membership.role)
                 .join(Membership, Membership.workspace_id == Workspace.tenant_id)
                 .where(Membership.user_id == user_id)
                 .order_by(Membership.created_at, Workspace.tenant_id))
    return [(workspace, role) for workspace, role in (await session.execute(statement)).all()]


async def take_code_try(session: AsyncSession, user_id: str, now: datetime.datetime,
                        max_tries: int) -> str | None:
    """Count one try at the user's live code and return the code's hash, in one conditional
    UPDATE; None, counting nothing, when there is no code, it has expired or its `max_tries`
    are used up. Concurrent callers queue on the row, so at most `max_tries` get a hash."""
    code = VerificationCode
    statement = (update(code)
                 .where(code.user_id == user_id, code.failed_tries < max_tries,
                        code.expires_at > now)
                 .values(failed_tries=code.failed_tries + 1)
                 .returning(code.code_hash)
                 .execution_options(synchronize_session=False))
    return (await session.execute(statement)).scalar_one_or_none()


async def mark_verified(session: AsyncSession, user_id: str, now: datetime.datetime) -> None:
    """The address is proven (an UPDATE by key, so a concurrent verification is harmless)."""
    await session.execute(update(User).where(User.id == user_id)
                          .values(email_verified_at=now)
                          .execution_options(synchronize_session=False))


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
