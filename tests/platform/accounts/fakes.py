"""In-memory fakes of the accounts store's port (`accounts/repository.py` `AccountsRepository`),
of a unit of work and of the platform database, for the fast tier of the use cases.

The fake keeps what the port promises: users by address, workspaces and memberships (oldest
first), one live code per user whose tries are counted only while it is live, sessions by the
hash of their id. Whether the SQL does the same on SQLite and PostgreSQL is the database tier's
question (the accounts routes' tests, the concurrent-attempts tests).
"""

from __future__ import annotations

import datetime
from contextlib import asynccontextmanager

from insureops.platform.accounts.models import Session, VerificationCode
from insureops.platform.identity import User, Workspace
from tests.platform.fakes import FakeUnitOfWork


class FakeAccounts:
    """`AccountsRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.users: dict[str, User] = {}  # by e-mail
        self.workspaces: dict[str, Workspace] = {}
        self.memberships: list[tuple[str, str, str, datetime.datetime]] = []  # user, ws, role, at
        self.codes: dict[str, VerificationCode] = {}  # by user id
        self.sessions: dict[str, Session] = {}  # by id hash

    def add_membership(self, user: User, workspace: Workspace, role: str,
                       at: datetime.datetime) -> None:
        self.workspaces[workspace.tenant_id] = workspace
        self.memberships.append((user.id, workspace.tenant_id, role, at))

    async def user_by_email(self, session, email: str) -> User | None:
        return self.users.get(email)

    async def add_user_with_workspace(self, session, user: User, workspace: Workspace) -> bool:
        if user.email in self.users:
            return False
        self.users[user.email] = user
        self.add_membership(user, workspace, "owner", user.created_at)
        return True

    async def memberships_of(self, session, user_id: str) -> list[tuple[Workspace, str]]:
        mine = sorted((at, workspace_id, role) for member, workspace_id, role, at
                      in self.memberships if member == user_id)
        return [(self.workspaces[workspace_id], role) for _, workspace_id, role in mine]

    async def take_code_try(self, session, user_id: str, now: datetime.datetime,
                            max_tries: int) -> str | None:
        code = self.codes.get(user_id)
        if code is None or code.failed_tries >= max_tries or code.expires_at <= now:
            return None
        code.failed_tries += 1
        return code.code_hash

    async def mark_verified(self, session, user_id: str, now: datetime.datetime) -> None:
        for user in self.users.values():
            if user.id == user_id:
                user.email_verified_at = now

    async def replace_code(self, session, code: VerificationCode) -> None:
        self.codes[code.user_id] = code

    async def delete_code(self, session, user_id: str) -> None:
        self.codes.pop(user_id, None)

    async def add_session(self, session, login: Session) -> None:
        self.sessions[login.id_hash] = login

    async def session_with_user(self, session, id_hash: str
                                ) -> tuple[Session, User, list[tuple[Workspace, str]]] | None:
        row = self.sessions.get(id_hash)
        if row is None:
            return None
        user = next(user for user in self.users.values() if user.id == row.user_id)
        return row, user, await self.memberships_of(session, user.id)

    async def slide_session(self, session, id_hash: str, now: datetime.datetime,
                            expires_at: datetime.datetime) -> None:
        row = self.sessions.get(id_hash)
        if row is not None:
            row.last_seen_at, row.expires_at = now, expires_at

    async def delete_session(self, session, id_hash: str) -> None:
        self.sessions.pop(id_hash, None)

    async def delete_expired_sessions(self, session, user_id: str, now: datetime.datetime,
                                      also: str | None = None) -> None:
        for id_hash, row in list(self.sessions.items()):
            if (row.user_id == user_id and row.expires_at <= now) or id_hash == also:
                del self.sessions[id_hash]


class FakeDatabase:
    """`Database.read` and `unit_of_work` over fake units of work (for resume_session)."""

    def __init__(self) -> None:
        self.writes = 0  # units of work opened: each is a write on a real database

    async def read(self, work):
        return await work(FakeUnitOfWork())

    @asynccontextmanager
    async def _unit(self):
        self.writes += 1
        yield FakeUnitOfWork()

    def unit_of_work(self):
        return self._unit()
