"""The fast tier of the accounts use cases: an in-memory fake of their store (fakes.py), an
in-memory mailer and a fixed clock; no database, no HTTP. The store's SQL and the routes are the
database tier's (test_journey.py, test_verify.py, test_concurrent_attempts.py, ...)."""

from __future__ import annotations

import dataclasses
import datetime

import pytest

from insureops.platform.accounts import service
from insureops.platform.accounts.credentials import hash_session_id
from insureops.platform.accounts.errors import (
    EmailNotVerifiedError,
    InvalidCodeError,
    InvalidCredentialsError,
    WeakPasswordError,
)
from insureops.platform.email import (
    TemplateRenderer,
)
from insureops.platform.identity import Passwords, Workspace
from tests.platform.accounts.conftest import CHEAP_PASSWORDS, PASSWORD, START, FakeClock
from tests.platform.accounts.fakes import FakeAccounts, FakeDatabase
from tests.platform.fakes import FakeUnitOfWork, MailBox

DAY = datetime.timedelta(days=1)
EMAIL = "ann@example.com"


@pytest.fixture
def deps() -> service.AccountsDeps:
    return service.AccountsDeps(MailBox(), TemplateRenderer(), Passwords(CHEAP_PASSWORDS),
                                b"test-secret", FakeClock(), accounts=FakeAccounts())


async def signed_up(deps, email=EMAIL, name="Ann") -> str:
    await service.signup(FakeUnitOfWork(), deps, service.SignupCommand(email, PASSWORD, name))
    return deps.mailer.sent[-1].secrets[0]


async def verified(deps, email=EMAIL) -> None:
    code = await signed_up(deps, email)
    await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(email, code))


async def logged_in(deps, email=EMAIL) -> service.LoginResult:
    return await service.login(FakeUnitOfWork(), deps, service.LoginCommand(email, PASSWORD))


async def test_signup_marks_the_code_as_a_secret_when_mailing_it(deps):
    code = await signed_up(deps)

    [message] = deps.mailer.sent
    assert message.template == "verification_code" and code in message.text
    assert code not in message.redacted().text


async def test_signup_makes_the_user_owner_of_a_workspace_named_after_them(deps):
    await signed_up(deps, name="Ann " + "n" * 250)
    user = deps.accounts.users[EMAIL]
    [(workspace, role)] = await deps.accounts.memberships_of(None, user.id)
    assert role == "owner" and len(workspace.name) == service.WORKSPACE_NAME_LENGTH
    assert workspace.name.endswith("'s workspace") and user.email_verified_at is None


async def test_signup_changes_nothing_when_password_is_refused(deps):
    with pytest.raises(WeakPasswordError) as refused:
        await service.signup(FakeUnitOfWork(), deps,
                             service.SignupCommand("a@x.test", "short", "A"))

    assert refused.value.problem_code == "password_too_short"
    assert deps.mailer.sent == [] and deps.accounts.users == {}


@pytest.mark.parametrize(("password", "problem"), [
    (" " * 12, "password_blank"),
    ("\t \u200b\u00a0" * 4, "password_blank"),
    ("  " + "a" * 9 + "     ", "password_too_short"),
])
async def test_signup_refuses_password_when_it_is_only_spaces_or_effectively_empty(
        deps, password, problem):
    """Issue 17: a password of only spaces was accepted."""
    with pytest.raises(WeakPasswordError) as refused:
        await service.signup(FakeUnitOfWork(), deps,
                             service.SignupCommand("a@x.test", password, "A"))

    assert refused.value.problem_code == problem
    assert deps.mailer.sent == []


async def test_signup_of_a_verified_address_mails_a_notice_and_changes_nothing(deps):
    await verified(deps)
    before = deps.accounts.users[EMAIL].password_hash
    await service.signup(FakeUnitOfWork(), deps,
                         service.SignupCommand(EMAIL, "another good password", "Mallory"))
    assert deps.mailer.sent[-1].template == "signup_attempt"
    assert deps.accounts.users[EMAIL].password_hash == before
    assert deps.accounts.users[EMAIL].name == "Ann"


async def test_signup_again_before_verifying_takes_the_new_name_and_a_new_code(deps):
    first = await signed_up(deps, name="Ann")
    second = await signed_up(deps, name="Anne")
    assert deps.accounts.users[EMAIL].name == "Anne"
    with pytest.raises(InvalidCodeError):
        await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(EMAIL, first))
    await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(EMAIL, second))
    assert deps.accounts.users[EMAIL].email_verified_at is not None


async def test_signup_answers_alike_when_a_concurrent_sign_up_took_the_address(deps):
    class Racing(FakeAccounts):
        async def add_user_with_workspace(self, session, user, workspace) -> bool:
            return False  # the other sign-up committed first

    racing = dataclasses.replace(deps, accounts=Racing())
    await service.signup(FakeUnitOfWork(), racing, service.SignupCommand(EMAIL, PASSWORD, "A"))
    assert racing.mailer.sent == []  # no code for a user this request did not make


async def test_verify_counts_every_try_and_refuses_all_alike_after_five(deps):
    code = await signed_up(deps)
    uow = FakeUnitOfWork()
    for _ in range(service.MAX_CODE_TRIES):
        with pytest.raises(InvalidCodeError) as wrong:
            await service.verify(uow, deps, service.VerifyCommand(EMAIL, "000000"))
        assert str(wrong.value) == service.CODE_REFUSED
    assert uow.commits == service.MAX_CODE_TRIES  # each try committed before comparing
    with pytest.raises(InvalidCodeError) as exhausted:
        await service.verify(uow, deps, service.VerifyCommand(EMAIL, code))
    assert str(exhausted.value) == service.CODE_REFUSED


async def test_verify_refuses_an_expired_code_and_an_unknown_address_alike(deps):
    code = await signed_up(deps)
    deps.clock.now += service.CODE_LIFETIME.total_seconds()
    for email, attempt in ((EMAIL, code), ("nobody@example.com", code)):
        with pytest.raises(InvalidCodeError) as refused:
            await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(email, attempt))
        assert str(refused.value) == service.CODE_REFUSED


async def test_resend_replaces_the_code_and_ignores_verified_or_unknown_addresses(deps):
    first = await signed_up(deps)
    await service.resend_code(FakeUnitOfWork(), deps, f"  {EMAIL.upper()} ")
    second = deps.mailer.sent[-1].secrets[0]
    with pytest.raises(InvalidCodeError):
        await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(EMAIL, first))
    await service.verify(FakeUnitOfWork(), deps, service.VerifyCommand(EMAIL, second))
    sent = len(deps.mailer.sent)
    await service.resend_code(FakeUnitOfWork(), deps, EMAIL)
    await service.resend_code(FakeUnitOfWork(), deps, "nobody@example.com")
    assert len(deps.mailer.sent) == sent


async def test_login_refuses_unverified_user_when_password_is_right(deps):
    await signed_up(deps)

    with pytest.raises(EmailNotVerifiedError):
        await logged_in(deps)


async def test_login_refuses_a_wrong_password_and_an_unknown_address_alike(deps):
    await verified(deps)
    for email, password in ((EMAIL, "wrong password here"), ("nobody@example.com", PASSWORD)):
        with pytest.raises(InvalidCredentialsError):
            await service.login(FakeUnitOfWork(), deps, service.LoginCommand(email, password))


async def test_login_makes_the_owned_workspace_active_when_user_has_several(deps):
    await verified(deps)
    now = deps.now()  # Ann is also a member of an older workspace
    user = deps.accounts.users[EMAIL]
    deps.accounts.add_membership(user, Workspace(tenant_id="0" * 26, name="Partner",
                                                 created_at=now - DAY), "member", now - DAY)

    result = await logged_in(deps)

    principal = result.principal
    assert [m.role.value for m in principal.memberships] == ["member", "owner"]
    assert principal.active_membership.role.value == "owner"
    assert principal.subject == hash_session_id(result.session_id)


async def test_login_ends_the_session_it_replaces_and_the_expired_ones(deps):
    await verified(deps)
    old = await logged_in(deps)
    deps.clock.now += (service.SESSION_LIFETIME + DAY).total_seconds()
    stale = await logged_in(deps)  # the first one has run out by now
    deps.clock.now += 60
    fresh = await service.login(FakeUnitOfWork(), deps, service.LoginCommand(
        EMAIL, PASSWORD, previous_session_id=stale.session_id))
    assert set(deps.accounts.sessions) == {hash_session_id(fresh.session_id)}
    assert hash_session_id(old.session_id) not in deps.accounts.sessions


async def test_resume_session_deletes_the_row_when_it_has_expired(deps):
    await verified(deps)
    result = await logged_in(deps)
    start = datetime.datetime.fromtimestamp(START, tz=datetime.UTC)

    found = await service.resume_session(FakeDatabase(), start + 14 * DAY, result.session_id,
                                         deps.accounts)

    assert found is None and deps.accounts.sessions == {}


async def test_resume_session_does_not_write_when_seen_within_the_minute(deps):
    await verified(deps)
    result = await logged_in(deps)
    start = datetime.datetime.fromtimestamp(START, tz=datetime.UTC)
    database = FakeDatabase()

    soon = await service.resume_session(database, start + datetime.timedelta(seconds=59),
                                        result.session_id, deps.accounts)
    writes = database.writes
    later = await service.resume_session(database, start + datetime.timedelta(seconds=60),
                                         result.session_id, deps.accounts)

    assert not soon.refreshed and writes == 0 and later.refreshed and database.writes == 1
    row = deps.accounts.sessions[hash_session_id(result.session_id)]
    assert row.expires_at == start + datetime.timedelta(seconds=60) + 14 * DAY


async def test_logout_ends_the_session(deps):
    await verified(deps)
    result = await logged_in(deps)
    await service.logout(FakeUnitOfWork(), hash_session_id(result.session_id), deps.accounts)
    assert await service.resume_session(FakeDatabase(), deps.now(), result.session_id,
                                        deps.accounts) is None
