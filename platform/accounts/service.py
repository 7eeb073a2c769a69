"""Use cases of the accounts area: sign-up, verification, resend, login, sessions and logout.

No aiohttp here: each use case takes a unit of work, the area's dependencies and a command, and
reaches the store through its port (`AccountsDeps.accounts`: the SQL repository, or a fake in
the fast tests). Mail goes out after the commit, so a rolled-back change never sends a message.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass

from insureops.platform.accounts import repository
from insureops.platform.accounts.credentials import (
    codes_match,
    hash_code,
    hash_session_id,
    new_code,
    new_session_id,
)
from insureops.platform.accounts.errors import (
    EmailNotVerifiedError,
    InvalidCodeError,
    InvalidCredentialsError,
    WeakPasswordError,
)
from insureops.platform.accounts.models import Session, VerificationCode
from insureops.platform.accounts.repository import AccountsRepository
from insureops.platform.auth.requirements import AuthKind, Membership, Principal, Role, UserIdentity
from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.email import EmailBackend, EmailMessage, TemplateRenderer
from insureops.platform.identity import (
    Passwords,
    User,
    Workspace,
    check_password_policy,
    new_tenant_id,
    normalise_email,
)

logger = logging.getLogger("insureops.platform.accounts")

CODE_LIFETIME = datetime.timedelta(minutes=15)
MAX_CODE_TRIES = 5
SESSION_LIFETIME = datetime.timedelta(days=14)
# The one answer to every refused code (docs/accounts.md): it must not tell a pending sign-up
# (tries left, expired, exhausted) from an unknown or verified address.
CODE_REFUSED = ("The code is not valid for this address. A code works for 15 minutes and for "
                "5 tries; if yours may have run out, request a new one (resend-code).")
# A session's expiry moves forward at most once a minute: one write per minute, not per request.
SESSION_SLIDE_STEP = datetime.timedelta(minutes=1)


@dataclass(frozen=True)
class AccountsDeps:
    """What the use cases need besides the unit of work; built once per app."""

    mailer: EmailBackend
    templates: TemplateRenderer
    passwords: Passwords
    secret_key: bytes
    clock: Callable[[], float]
    accounts: AccountsRepository = repository  # the store (the module is its implementation)

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)


@dataclass(frozen=True)
class SignupCommand:
    email: str
    password: str
    name: str


@dataclass(frozen=True)
class VerifyCommand:
    email: str
    code: str


@dataclass(frozen=True)
class LoginCommand:
    email: str
    password: str
    previous_session_id: str | None = None  # the cookie sent with the login, if any


@dataclass(frozen=True)
class LoginResult:
    session_id: str  # the new cookie value; only its hash is stored
    principal: Principal


@dataclass(frozen=True)
class SessionLookup:
    principal: Principal
    refreshed: bool  # the expiry moved forward: the cookie should be sent again


WORKSPACE_NAME_LENGTH = 200  # workspaces.name is VARCHAR(200)
_WORKSPACE_SUFFIX = "'s workspace"


def workspace_name(user_name: str) -> str:
    """The new user's workspace name, "<name>'s workspace", within the column's length: a
    200-character user name is valid, and PostgreSQL refuses a longer value (SQLite stores it)."""
    room = WORKSPACE_NAME_LENGTH - len(_WORKSPACE_SUFFIX)
    return f"{user_name[:room].rstrip()}{_WORKSPACE_SUFFIX}"


async def signup(uow: UnitOfWork, deps: AccountsDeps, command: SignupCommand) -> None:
    """Create an unverified user and their workspace and e-mail a code.

    A verified address gets a notice instead and nothing changes; an unverified one gets the
    new name and password and a fresh code (whoever signed up before never proved the address).
    The caller answers the same in every case.
    """
    email = normalise_email(command.email)
    problem = check_password_policy(command.password, email)
    if problem is not None:
        raise WeakPasswordError(problem.code, problem.message)
    # Hash before looking the address up, so both paths cost the same time.
    password_hash = await deps.passwords.hash_off_loop(command.password)
    now = deps.now()
    user = await deps.accounts.user_by_email(uow.session, email)
    if user is not None and user.email_verified_at is not None:
        await uow.commit()
        await _send(deps, user, "signup_attempt", {"name": user.name, "email": user.email})
        return
    if user is None:
        user = User(id=new_tenant_id(now.timestamp()), email=email, name=command.name,
                    password_hash=password_hash, created_at=now)
        workspace = Workspace(tenant_id=new_tenant_id(now.timestamp()),
                              name=workspace_name(command.name), created_at=now)
        if not await deps.accounts.add_user_with_workspace(uow.session, user, workspace):
            return  # a concurrent sign-up of the same address won: the same answer
    else:
        user.name, user.password_hash = command.name, password_hash
    code = await _issue_code(uow, deps, user, now)
    await _send_code(deps, user, code)


async def resend_code(uow: UnitOfWork, deps: AccountsDeps, email: str) -> None:
    """A new code for an unverified address (the old one stops working); otherwise nothing."""
    user = await deps.accounts.user_by_email(uow.session, normalise_email(email))
    if user is None or user.email_verified_at is not None:
        return
    code = await _issue_code(uow, deps, user, deps.now())
    await _send_code(deps, user, code)


async def verify(uow: UnitOfWork, deps: AccountsDeps, command: VerifyCommand) -> None:
    """Mark the address verified when the code is right, in time, and within five tries.

    The try is counted (and committed) by one conditional UPDATE before the code is compared;
    only a request that got one of the five tries compares, so no burst gets more (issue 28).
    Every refusal is the same InvalidCodeError: a wrong, expired or exhausted code answers like
    an address with no pending sign-up, so the route tells nobody which addresses signed up.
    """
    user = await deps.accounts.user_by_email(uow.session, normalise_email(command.email))
    if user is None or user.email_verified_at is not None:
        raise InvalidCodeError(CODE_REFUSED)
    now = deps.now()
    code_hash = await deps.accounts.take_code_try(uow.session, user.id, now, MAX_CODE_TRIES)
    await uow.commit()  # the try counts even though the use case may fail
    if code_hash is None or not codes_match(code_hash, deps.secret_key, user.id,
                                            command.code.strip()):
        raise InvalidCodeError(CODE_REFUSED)
    await deps.accounts.mark_verified(uow.session, user.id, now)
    await deps.accounts.delete_code(uow.session, user.id)


async def login(uow: UnitOfWork, deps: AccountsDeps, command: LoginCommand) -> LoginResult:
    """Check the password and open a new session (any session presented with it is ended)."""
    user = await deps.accounts.user_by_email(uow.session, normalise_email(command.email))
    stored = user.password_hash if user is not None else None
    if not await deps.passwords.verify_off_loop(stored, command.password):
        raise InvalidCredentialsError("The e-mail or the password is wrong.")
    if user.email_verified_at is None:
        raise EmailNotVerifiedError("Verify your e-mail address with the code we sent first.")
    if deps.passwords.needs_rehash(user.password_hash):
        user.password_hash = await deps.passwords.hash_off_loop(command.password)
    now = deps.now()
    # rotation: a planted or old id never survives a login
    previous = command.previous_session_id
    await deps.accounts.delete_expired_sessions(uow.session, user.id, now,
                                       also=hash_session_id(previous) if previous else None)
    memberships = await _memberships(uow, deps, user.id)
    active = next((m for m in memberships if m.role is Role.OWNER), None) or next(
        iter(memberships), None)
    session_id = new_session_id()
    row = Session(id_hash=hash_session_id(session_id), user_id=user.id,
                  active_workspace_id=active and active.workspace_id, created_at=now,
                  last_seen_at=now, expires_at=now + SESSION_LIFETIME)
    await deps.accounts.add_session(uow.session, row)
    return LoginResult(session_id, _principal(user, memberships, row))


async def resume_session(database: Database, now: datetime.datetime, session_id: str,
                         accounts: AccountsRepository = repository) -> SessionLookup | None:
    """The principal of a live session, sliding its expiry; None when unknown or expired.

    The session, its user and their memberships are one read outside a transaction; a write
    follows only when the session has run out (its row goes) or its expiry slides forward
    (at most once per SESSION_SLIDE_STEP)."""
    id_hash = hash_session_id(session_id)
    found = await database.read(lambda uow: accounts.session_with_user(uow.session, id_hash))
    if found is None:
        return None
    row, user, workspaces = found
    if now >= row.expires_at:
        async with database.unit_of_work() as uow:
            await accounts.delete_session(uow.session, id_hash)
        return None
    refreshed = now - row.last_seen_at >= SESSION_SLIDE_STEP
    if refreshed:
        row.last_seen_at, row.expires_at = now, now + SESSION_LIFETIME
        async with database.unit_of_work() as uow:
            await accounts.slide_session(uow.session, id_hash, now, row.expires_at)
    memberships = [Membership(workspace.tenant_id, workspace.name, Role(role))
                   for workspace, role in workspaces]
    return SessionLookup(_principal(user, memberships, row), refreshed)


async def logout(uow: UnitOfWork, session_hash: str,
                 accounts: AccountsRepository = repository) -> None:
    """End the session: its row goes, so the cookie is worthless even if it was copied."""
    await accounts.delete_session(uow.session, session_hash)


async def _memberships(uow: UnitOfWork, deps: AccountsDeps, user_id: str) -> list[Membership]:
    return [Membership(workspace.tenant_id, workspace.name, Role(role))
            for workspace, role in await deps.accounts.memberships_of(uow.session, user_id)]


def _principal(user: User, memberships: list[Membership], row: Session) -> Principal:
    identity = UserIdentity(user.id, user.email, user.name, user.email_verified_at is not None)
    return Principal(AuthKind.SESSION, user=identity, memberships=tuple(memberships),
                     active_workspace_id=row.active_workspace_id, subject=row.id_hash)


async def _issue_code(uow: UnitOfWork, deps: AccountsDeps, user: User,
                      now: datetime.datetime) -> str:
    """Store a fresh code's hash (replacing any older code) and commit; return the code."""
    code = new_code()
    await deps.accounts.replace_code(uow.session, VerificationCode(
        user_id=user.id, code_hash=hash_code(deps.secret_key, user.id, code),
        expires_at=now + CODE_LIFETIME, failed_tries=0, created_at=now))
    await uow.commit()
    return code


async def _send_code(deps: AccountsDeps, user: User, code: str) -> None:
    minutes = int(CODE_LIFETIME.total_seconds() // 60)
    await _send(deps, user, "verification_code",
                {"name": user.name, "code": code, "minutes": minutes}, secrets=(code,))


async def _send(deps: AccountsDeps, user: User, template: str, context: dict,
                secrets: tuple[str, ...] = ()) -> None:
    rendered = deps.templates.render(template, context)
    result = await deps.mailer.send(EmailMessage(
        to=(user.email,), subject=rendered.subject, text=rendered.text, html=rendered.html,
        template=template, secrets=secrets))
    if not result.ok:  # the user can ask again (resend-code); the e-mail log keeps the failure
        logger.warning("e-mail %s to user %s failed: %s", template, user.id, result.error_code)
