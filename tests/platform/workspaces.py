"""Test helper: users with workspaces and roles, logged in through the real login route.

Users are written straight into the platform database (verified, with a real argon2 hash), so
team and settings tests need no e-mail round trip to get sessions; the session itself comes from
POST /api/auth/login/. The client keeps no cookies: each call names the member it acts as.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass

from aiohttp import DummyCookieJar
from aiohttp.test_utils import TestClient

from insureops.platform.app import Area, create_app
from insureops.platform.config import Settings
from insureops.platform.identity import Membership, Passwords, User, Workspace, new_tenant_id
from insureops.platform.keys import DATABASE
from insureops.platform.team import routes as team_routes
from tests.platform.accounts.conftest import CHEAP_PASSWORDS, cheap_hashing_areas

PASSWORD = "correct horse battery"


@functools.cache
def password_hash() -> str:
    """PASSWORD hashed with the cheap test parameters (login verifies with the hash's own)."""
    return Passwords(CHEAP_PASSWORDS).hash(PASSWORD)


def cheap_areas() -> tuple[Area, ...]:
    """The real areas; accounts and team hash passwords with cheap argon2id parameters."""
    def team_app():
        return team_routes.create_app(Passwords(CHEAP_PASSWORDS))
    return tuple(Area(a.prefix, team_app) if a.prefix == "/api/team" else a
                 for a in cheap_hashing_areas())


@dataclass(frozen=True)
class Member:
    """A logged-in user acting in `workspace_id` with `role`."""

    user_id: str
    email: str
    name: str
    workspace_id: str
    role: str
    session_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"sessionid={self.session_id}"}


class Tenancy:
    """The service under test and a way to make members of workspaces."""

    def __init__(self, client: TestClient, clock) -> None:
        self.client = client
        self.clock = clock

    @property
    def database(self):
        return self.client.app[DATABASE]

    def _now(self):
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)

    async def add_user(self, email: str, name: str) -> str:
        user_id = new_tenant_id(self.clock())
        async with self.database.unit_of_work() as uow:
            uow.session.add(User(id=user_id, email=email, name=name,
                                 password_hash=password_hash(), email_verified_at=self._now(),
                                 created_at=self._now()))
        return user_id

    async def login(self, email: str) -> str:
        response = await self.client.post("/api/auth/login/",
                                          json={"email": email, "password": PASSWORD})
        assert response.status == 200, await response.text()
        return response.cookies["sessionid"].value

    async def owner(self, email: str, workspace_name: str = "Lee Agency") -> Member:
        """A new user owning a new workspace, logged in."""
        name = email.split("@")[0].title()
        user_id = await self.add_user(email, name)
        workspace_id = new_tenant_id(self.clock())
        async with self.database.unit_of_work() as uow:
            uow.session.add(Workspace(tenant_id=workspace_id, name=workspace_name,
                                      created_at=self._now()))
            await uow.session.flush()
            uow.session.add(Membership(user_id=user_id, workspace_id=workspace_id, role="owner",
                                       created_at=self._now()))
        return Member(user_id, email, name, workspace_id, "owner", await self.login(email))

    async def member(self, workspace: Member, email: str, role: str = "member") -> Member:
        """A new user with `role` in the workspace of `workspace`, logged in."""
        name = email.split("@")[0].title()
        user_id = await self.add_user(email, name)
        async with self.database.unit_of_work() as uow:
            uow.session.add(Membership(user_id=user_id, workspace_id=workspace.workspace_id,
                                       role=role, created_at=self._now()))
        return Member(user_id, email, name, workspace.workspace_id, role,
                      await self.login(email))


async def start_tenancy(aiohttp_client, settings: Settings, clock,
                        extra_areas: tuple[Area, ...] = ()) -> Tenancy:
    """The whole service on `settings` (plus `extra_areas`), with a cookie-less client."""
    app = create_app(settings, clock=clock, areas=(*cheap_areas(), *extra_areas))
    client = await aiohttp_client(app, cookie_jar=DummyCookieJar())
    return Tenancy(client, clock)
