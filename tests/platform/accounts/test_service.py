"""The use cases without HTTP: a migrated database, an in-memory mailer, a fixed clock."""

from __future__ import annotations

import datetime

import pytest

from insureops.platform.accounts import service
from insureops.platform.accounts.credentials import hash_session_id
from insureops.platform.accounts.errors import EmailNotVerifiedError, WeakPasswordError
from insureops.platform.accounts.models import Session
from insureops.platform.data.database import Database
from insureops.platform.email import (
    DeliveryResult,
    DeliveryStatus,
    EmailMessage,
    TemplateRenderer,
)
from insureops.platform.identity import Membership, Passwords, User, Workspace
from insureops.platform.migrations import upgrade
from tests.platform.accounts.conftest import CHEAP_PASSWORDS, PASSWORD, START, FakeClock

DAY = datetime.timedelta(days=1)


class MailBox:
    """An EmailBackend keeping what it is given (the real backends are tested elsewhere)."""

    name = "memory"

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    async def send(self, message: EmailMessage) -> DeliveryResult:
        self.sent.append(message)
        return DeliveryResult(DeliveryStatus.SENT, self.name, f"<{len(self.sent)}@test>")


@pytest.fixture
async def database(database_urls):
    database = Database.connect(database_urls.async_)
    await upgrade(database.engine)
    yield database
    await database.dispose()


@pytest.fixture
def deps() -> service.AccountsDeps:
    return service.AccountsDeps(MailBox(), TemplateRenderer(), Passwords(CHEAP_PASSWORDS),
                                b"test-secret", FakeClock())


async def signed_up(database, deps, email="ann@example.com") -> str:
    async with database.unit_of_work() as uow:
        await service.signup(uow, deps, service.SignupCommand(email, PASSWORD, "Ann"))
    return deps.mailer.sent[-1].secrets[0]


async def test_signup_marks_the_code_as_a_secret_when_mailing_it(database, deps):
    code = await signed_up(database, deps)

    [message] = deps.mailer.sent
    assert message.template == "verification_code" and code in message.text
    assert code not in message.redacted().text


async def test_signup_changes_nothing_when_password_is_refused(database, deps):
    with pytest.raises(WeakPasswordError) as refused:
        async with database.unit_of_work() as uow:
            await service.signup(uow, deps, service.SignupCommand("a@x.test", "short", "A"))

    assert refused.value.problem_code == "password_too_short"
    assert deps.mailer.sent == []


async def test_login_refuses_unverified_user_when_password_is_right(database, deps):
    await signed_up(database, deps)

    with pytest.raises(EmailNotVerifiedError):
        async with database.unit_of_work() as uow:
            await service.login(uow, deps, service.LoginCommand("ann@example.com", PASSWORD))


async def test_login_makes_the_owned_workspace_active_when_user_has_several(database, deps):
    code = await signed_up(database, deps)
    async with database.unit_of_work() as uow:
        await service.verify(uow, deps, service.VerifyCommand("ann@example.com", code))
    now = deps.now()
    async with database.unit_of_work() as uow:  # Ann is also a member of an older workspace
        user = (await uow.session.execute(User.__table__.select())).one()
        uow.session.add(Workspace(tenant_id="0" * 26, name="Partner", created_at=now - DAY))
        await uow.session.flush()
        uow.session.add(Membership(user_id=user.id, workspace_id="0" * 26, role="member",
                                   created_at=now - DAY))

    async with database.unit_of_work() as uow:
        result = await service.login(uow, deps, service.LoginCommand("ann@example.com",
                                                                     PASSWORD))

    principal = result.principal
    assert [m.role.value for m in principal.memberships] == ["member", "owner"]
    assert principal.active_membership.role.value == "owner"
    assert principal.subject == hash_session_id(result.session_id)


async def test_resume_session_deletes_the_row_when_it_has_expired(database, deps):
    code = await signed_up(database, deps)
    async with database.unit_of_work() as uow:
        await service.verify(uow, deps, service.VerifyCommand("ann@example.com", code))
    async with database.unit_of_work() as uow:
        result = await service.login(uow, deps, service.LoginCommand("ann@example.com",
                                                                     PASSWORD))
    start = datetime.datetime.fromtimestamp(START, tz=datetime.UTC)

    found = await service.resume_session(database, start + 14 * DAY, result.session_id)
    async with database.unit_of_work() as uow:
        row = await uow.session.get(Session, hash_session_id(result.session_id))

    assert found is None and row is None


async def test_resume_session_does_not_write_when_seen_within_the_minute(database, deps):
    code = await signed_up(database, deps)
    async with database.unit_of_work() as uow:
        await service.verify(uow, deps, service.VerifyCommand("ann@example.com", code))
    async with database.unit_of_work() as uow:
        result = await service.login(uow, deps, service.LoginCommand("ann@example.com",
                                                                     PASSWORD))
    start = datetime.datetime.fromtimestamp(START, tz=datetime.UTC)

    soon = await service.resume_session(database, start + datetime.timedelta(seconds=59),
                                        result.session_id)
    later = await service.resume_session(database, start + datetime.timedelta(seconds=60),
                                         result.session_id)
    async with database.unit_of_work() as uow:
        row = await uow.session.get(Session, hash_session_id(result.session_id))

    assert not soon.refreshed and later.refreshed
    assert row.expires_at == start + datetime.timedelta(seconds=60) + 14 * DAY


@pytest.mark.parametrize(("password", "problem"), [
    (" " * 12, "password_blank"),
    ("\t \u200b\u00a0" * 4, "password_blank"),
    ("  " + "a" * 9 + "     ", "password_too_short"),
])
async def test_signup_refuses_password_when_it_is_only_spaces_or_effectively_empty(
        database, deps, password, problem):
    """Issue 17: a password of only spaces was accepted."""
    with pytest.raises(WeakPasswordError) as refused:
        async with database.unit_of_work() as uow:
            await service.signup(uow, deps, service.SignupCommand("a@x.test", password, "A"))

    assert refused.value.problem_code == problem
    assert deps.mailer.sent == []
