"""Fixtures of the team tests: the service mailing through a real SMTP server, and a mailbox
reader for the invitation links it sends."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from tests.platform.accounts.conftest import FakeClock, smtp_settings  # noqa: F401
from tests.platform.email.smtp_server import SmtpTestServer
from tests.platform.workspaces import Member, Tenancy, start_tenancy

BASE = "/api/team"
LINK = re.compile(r"https://app\.insureops\.test/invitations/(\w{26})/accept\?token=([\w-]+)")


@dataclass
class Team:
    """The service, its clock, and the mailbox invitations arrive in."""

    tenancy: Tenancy
    smtp: SmtpTestServer

    @property
    def client(self):
        return self.tenancy.client

    def links_for(self, email: str) -> list[tuple[str, str]]:
        """(invitation id, token) of every invitation e-mailed to `email`, oldest first."""
        return [LINK.search(message.text_body()).groups() for message in self.smtp.messages
                if email in message.rcpt_tos]

    def last_link(self, email: str) -> tuple[str, str]:
        links = self.links_for(email)
        assert links, f"no invitation was e-mailed to {email}"
        return links[-1]

    async def invite(self, admin: Member, email: str, role: str = "member"):
        return await self.client.post(f"{BASE}/invite/", json={"email": email, "role": role},
                                      headers=admin.headers)

    async def accept(self, invitation_id: str, **body):
        return await self.client.post(f"{BASE}/invitations/{invitation_id}/accept/", json=body)

    async def members(self, member: Member) -> list[dict]:
        response = await self.client.get(f"{BASE}/members/", headers=member.headers)
        assert response.status == 200
        return (await response.json())["members"]


@pytest.fixture
async def team(aiohttp_client, smtp_settings, secure_smtp_server) -> Team:  # noqa: F811
    settings = smtp_settings.model_copy(update={"public_url": "https://app.insureops.test"})
    return Team(await start_tenancy(aiohttp_client, settings, FakeClock()), secure_smtp_server)
