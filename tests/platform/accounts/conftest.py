"""Fixtures of the accounts tests: a movable clock, a real SMTP server, and the service on both
database engines sending its mail to that server over STARTTLS with AUTH."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from aiohttp.test_utils import TestClient
from argon2 import PasswordHasher

from insureops.platform.accounts import routes as accounts_routes
from insureops.platform.app import AREAS, Area
from insureops.platform.config import Settings
from insureops.platform.identity import Passwords
from tests.platform.email.smtp_server import SmtpTestServer

START = 1_800_000_000.0  # 2027-01-15, a fixed Unix time: windows and expiries are predictable
PASSWORD = "correct horse battery"
ALLOWED_ORIGIN = "https://app.insureops.test"


class FakeClock:
    """The app's clock (Unix seconds); tests move it instead of sleeping."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Accounts:
    """The service under test, its clock and the mailbox its e-mails arrive in."""

    client: TestClient
    clock: FakeClock
    smtp: SmtpTestServer

    def codes_for(self, email: str) -> list[str]:
        """Every verification code e-mailed to `email` so far, oldest first."""
        return [_code_in(m.text_body()) for m in self.smtp.messages
                if email in m.rcpt_tos and m.message["Subject"].startswith(
                    "Your insureops verification code")]

    def last_code(self, email: str) -> str:
        """The newest code e-mailed to `email` (delivery finishes before the HTTP answer)."""
        codes = self.codes_for(email)
        assert codes, f"no code was e-mailed to {email}: {self.smtp.messages}"
        return codes[-1]

    async def sign_up(self, email: str, password: str = PASSWORD, name: str = "Ann Lee"):
        return await self.client.post("/api/auth/signup/", json={
            "email": email, "password": password, "name": name})

    async def verify(self, email: str, code: str):
        return await self.client.post("/api/auth/verify/", json={"email": email, "code": code})

    async def login(self, email: str, password: str = PASSWORD):
        return await self.client.post("/api/auth/login/", json={
            "email": email, "password": password})

    async def verified_user(self, email: str) -> None:
        """Sign up and verify `email` (password PASSWORD)."""
        assert (await self.sign_up(email)).status == 202
        assert (await self.verify(email, self.last_code(email))).status == 200


def _code_in(text: str) -> str:
    match = re.search(r"\b(\d{6})\b", text)
    assert match, text
    return match.group(1)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def smtp_settings(settings: Settings, secure_smtp_server: SmtpTestServer) -> Settings:
    """The test settings plus SMTP delivery to the test server and one allowed origin."""
    server = secure_smtp_server
    return Settings(**{
        **settings.model_dump(),
        "email_backend": "smtp", "email_from": "insureops <no-reply@insureops.test>",
        "smtp_host": server.host, "smtp_port": server.port,
        "smtp_username": server.username, "smtp_password": server.password,
        "smtp_starttls": True, "smtp_ca_file": server.ca_file, "smtp_timeout_seconds": 5.0,
        "allowed_origins": (ALLOWED_ORIGIN,)})


# argon2id still, with parameters that cost milliseconds instead of a second on a busy machine;
# the journey test keeps the production parameters.
CHEAP_PASSWORDS = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def cheap_hashing_areas(passwords: Passwords | None = None) -> tuple[Area, ...]:
    """The real areas, the accounts area hashing with `passwords` (default: CHEAP_PASSWORDS)."""
    def accounts_app():
        return accounts_routes.create_app(passwords or Passwords(CHEAP_PASSWORDS))
    return tuple(Area(a.prefix, accounts_app) if a.prefix == "/api/auth" else a for a in AREAS)


@pytest.fixture
async def accounts(make_client, smtp_settings, clock, secure_smtp_server) -> Accounts:
    """The whole service on the backend under test, mailing through real SMTP."""
    client = await make_client(smtp_settings, clock=clock, areas=cheap_hashing_areas())
    return Accounts(client, clock, secure_smtp_server)


@pytest.fixture
async def accounts_as_deployed(make_client, smtp_settings, clock, secure_smtp_server) -> Accounts:
    """Like `accounts`, with the production password-hashing parameters."""
    client = await make_client(smtp_settings, clock=clock)
    return Accounts(client, clock, secure_smtp_server)
