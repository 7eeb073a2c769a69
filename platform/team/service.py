"""Use cases of the team area: the workspace, members and roles, and invitations.

No aiohttp here: each use case takes a unit of work, the area's dependencies and its inputs, and
acts on one workspace only (the caller's active one; accepting is the exception: the token
names the workspace). Mail goes out after the commit, so a rolled-back change sends nothing.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from ulid import ULID

from insureops.platform.data.database import UnitOfWork
from insureops.platform.email import EmailBackend, TemplateRenderer
from insureops.platform.identity import (
    Membership,
    Passwords,
    User,
    Workspace,
    check_password_policy,
    new_tenant_id,
    normalise_email,
)
from insureops.platform.identity.locks import hold_workspace
from insureops.platform.team import repository as repo
from insureops.platform.team.errors import (
    AlreadyMemberError,
    InvalidInvitationTokenError,
    InvitationChangedError,
    InvitationClosedError,
    InvitationExpiredError,
    InvitationNotFoundError,
    InvitationPendingError,
    InvitationRevokedError,
    InvitationStateError,
    InvitationUsedError,
    LastOwnerError,
    MemberNotFoundError,
    NewUserDetailsError,
    OwnerRemovalError,
    TeamError,
)
from insureops.platform.team.invitations import (
    INVITATION_LIFETIME,
    InvitationMail,
    accept_link,
    hash_token,
    new_token,
    send_invitation,
    token_matches,
)
from insureops.platform.team.models import Invitation

# One plan until billing exists; the limits named here are the ones the routes enforce.
PLAN_NAME = "standard"
INVITES_PER_HOUR = 10


@dataclass(frozen=True)
class TeamDeps:
    """What the use cases need besides the unit of work; built per request from the app."""

    mailer: EmailBackend
    templates: TemplateRenderer
    passwords: Passwords
    clock: Callable[[], float]
    public_url: str

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)


@dataclass(frozen=True)
class WorkspaceSummary:
    workspace: Workspace
    owners: list[User]
    member_count: int
    pending_invitations: int
    api_keys: int
    tenant_database_configured: bool


async def workspace_summary(uow: UnitOfWork, deps: TeamDeps,
                            workspace_id: str) -> WorkspaceSummary:
    now = deps.now()
    members = await repo.members(uow.session, workspace_id)
    return WorkspaceSummary(
        workspace=await repo.workspace(uow.session, workspace_id),
        owners=[user for user, membership in members if membership.role == "owner"],
        member_count=len(members),
        pending_invitations=len(await repo.pending_invitations(uow.session, workspace_id, now)),
        api_keys=await repo.count_live_keys(uow.session, workspace_id, now),
        tenant_database_configured=await repo.has_tenant_database(uow.session, workspace_id))


async def list_members(uow: UnitOfWork, workspace_id: str) -> list[tuple[User, Membership]]:
    return await repo.members(uow.session, workspace_id)


async def _member(uow: UnitOfWork, workspace_id: str, user_id: str) -> tuple[User, Membership]:
    found = await repo.member(uow.session, workspace_id, user_id)
    if found is None:
        raise MemberNotFoundError("No such member in this workspace.")
    return found


async def change_role(uow: UnitOfWork, workspace_id: str, user_id: str,
                      role: str) -> tuple[User, Membership]:
    """Set a member's role. Making someone owner adds an owner (ownership moves when the old
    owner then steps down); the last owner cannot be demoted, even by concurrent requests
    (issue 17: two owners demoting each other at once left a workspace without one)."""
    await hold_workspace(uow.session, workspace_id)
    user, membership = await _member(uow, workspace_id, user_id)
    if not await repo.set_role(uow.session, workspace_id, user_id, role):
        if await repo.member(uow.session, workspace_id, user_id) is None:
            raise MemberNotFoundError("No such member in this workspace.")
        raise LastOwnerError("The workspace needs an owner: make another member owner first.")
    await uow.session.refresh(membership)
    return user, membership


async def remove_member(uow: UnitOfWork, workspace_id: str, user_id: str) -> None:
    """Remove a member (admins may); owners are not removed, an owner steps down first. The
    role is checked by the DELETE itself, so a member made owner meanwhile stays."""
    await hold_workspace(uow.session, workspace_id)
    await _member(uow, workspace_id, user_id)
    if not await repo.delete_non_owner(uow.session, workspace_id, user_id):
        if await repo.member(uow.session, workspace_id, user_id) is None:
            raise MemberNotFoundError("No such member in this workspace.")
        raise OwnerRemovalError("An owner cannot be removed: change their role first.")


@dataclass(frozen=True)
class Inviter:
    workspace_id: str
    user_id: str
    name: str


@dataclass(frozen=True)
class Sent:
    invitation: Invitation
    delivered: bool


async def invite(uow: UnitOfWork, deps: TeamDeps, inviter: Inviter, email: str,
                 role: str) -> Sent:
    """Create a pending invitation and e-mail its link (after the commit). The workspace is
    held first, so of two invitations of one address at once one is 409 (issue 28 audit)."""
    email, now = normalise_email(email), deps.now()
    await hold_workspace(uow.session, inviter.workspace_id)
    if await repo.member_by_email(uow.session, inviter.workspace_id, email) is not None:
        raise AlreadyMemberError("This address already belongs to a member of the workspace.")
    if await repo.pending_invitation_for(uow.session, inviter.workspace_id, email, now):
        raise InvitationPendingError("This address has a pending invitation: resend it instead.")
    token = new_token()
    invitation = Invitation(
        id=str(ULID.from_timestamp(now.timestamp())), workspace_id=inviter.workspace_id,
        email=email, role=role, status="pending", token_hash=hash_token(token),
        invited_by=inviter.user_id, created_at=now, sent_at=now, send_count=1,
        expires_at=now + INVITATION_LIFETIME)
    await repo.add(uow.session, invitation)
    return await _mail(uow, deps, inviter, invitation, token)


async def _mail(uow: UnitOfWork, deps: TeamDeps, inviter: Inviter, invitation: Invitation,
                token: str) -> Sent:
    workspace = await repo.workspace(uow.session, invitation.workspace_id)
    await uow.commit()
    delivered = await send_invitation(deps.mailer, deps.templates, InvitationMail(
        to=invitation.email, workspace_id=invitation.workspace_id, workspace_name=workspace.name,
        inviter_name=inviter.name, role=invitation.role,
        link=accept_link(deps.public_url, invitation.id, token), token=token))
    return Sent(invitation, delivered)


async def list_invitations(uow: UnitOfWork, deps: TeamDeps, workspace_id: str) -> list[Invitation]:
    return await repo.pending_invitations(uow.session, workspace_id, deps.now())


async def _invitation(uow: UnitOfWork, workspace_id: str, invitation_id: str) -> Invitation:
    found = await repo.invitation(uow.session, invitation_id, workspace_id)
    if found is None:
        raise InvitationNotFoundError("No such invitation in this workspace.")
    return found


def _a(word: str) -> str:
    """`word` after its indefinite article, capitalised: "An accepted", "A revoked"."""
    return f"{'An' if word[:1] in 'aeiou' else 'A'} {word}"


async def revoke(uow: UnitOfWork, deps: TeamDeps, workspace_id: str,
                 invitation_id: str) -> Invitation:
    """pending (or expired) -> revoked: the token stops working at once. A compare-and-set, so
    an accept at the same moment either wins (409 here) or is refused (issue 28)."""
    invitation = await _invitation(uow, workspace_id, invitation_id)
    if invitation.status != "pending":
        raise InvitationStateError(f"{_a(invitation.status)} invitation cannot be revoked.")
    if not await repo.revoke_invitation(uow.session, invitation, deps.now()):
        raise await _changed(uow, invitation)
    return invitation


async def resend(uow: UnitOfWork, deps: TeamDeps, inviter: Inviter, invitation_id: str) -> Sent:
    """A new token and expiry (the old token stops working), e-mailed again. A compare-and-set
    on the token read: of two resends at once one e-mails, the other is 409."""
    invitation = await _invitation(uow, inviter.workspace_id, invitation_id)
    if invitation.status != "pending":
        raise InvitationStateError(f"{_a(invitation.status)} invitation cannot be resent.")
    now, token = deps.now(), new_token()
    if not await repo.reissue_invitation(uow.session, invitation, hash_token(token), now,
                                         now + INVITATION_LIFETIME):
        raise await _changed(uow, invitation)
    return await _mail(uow, deps, inviter, invitation, token)


async def _changed(uow: UnitOfWork, invitation: Invitation) -> InvitationChangedError:
    """The error of a request whose compare-and-set found the invitation changed meanwhile."""
    await uow.session.refresh(invitation)
    happened = "resent" if invitation.status == "pending" else invitation.status
    return InvitationChangedError(f"The invitation was {happened} by another request at the "
                                  "same time; read it again.")


@dataclass(frozen=True)
class Acceptance:
    token: str
    name: str | None = None  # a new user's details (possession of the token verifies the e-mail)
    password: str | None = None


@dataclass(frozen=True)
class Accepted:
    workspace: Workspace
    user: User
    role: str
    new_user: bool


def _closed(invitation: Invitation, now: datetime.datetime) -> InvitationClosedError:
    state = invitation.state(now)
    if state == "accepted":
        return InvitationUsedError("This invitation was already accepted.")
    if state == "revoked":
        return InvitationRevokedError("This invitation was revoked.")
    return InvitationExpiredError("This invitation has expired: ask for a new one.")


async def accept(uow: UnitOfWork, deps: TeamDeps, invitation_id: str,
                 acceptance: Acceptance) -> Accepted:
    """Join the invitation's workspace with its role, as the invited address's user (made now
    for a new address). Refused for a wrong, revoked, expired or used token.

    The claim is one conditional update made before any other write: of two simultaneous
    accepts, the second waits for the first's row lock and then finds nothing pending, so a
    token never makes two memberships or two users."""
    now = deps.now()
    invitation = await repo.invitation(uow.session, invitation_id)
    if invitation is None or not token_matches(invitation.token_hash, acceptance.token):
        raise InvalidInvitationTokenError("The invitation link is invalid.")
    if invitation.state(now) != "pending":
        raise _closed(invitation, now)
    user = await repo.user_by_email(uow.session, invitation.email)
    new_user = user is None or user.email_verified_at is None
    password_hash = await _new_password_hash(deps, invitation.email, acceptance) if new_user \
        else None
    if not await repo.claim_invitation(uow.session, invitation.id, invitation.token_hash, now):
        raise await _lost_claim(uow, invitation, acceptance.token, now)
    if new_user:
        user = await _new_user(uow, invitation.email, acceptance.name.strip(), password_hash,
                               user, now)
    await repo.set_accepted_by(uow.session, invitation.id, user.id)
    found = await repo.member(uow.session, invitation.workspace_id, user.id)
    role = found[1].role if found else invitation.role
    if found is None:
        await repo.add(uow.session, Membership(user_id=user.id, workspace_id=invitation.workspace_id,
                                               role=invitation.role, created_at=now))
    return Accepted(await repo.workspace(uow.session, invitation.workspace_id), user, role,
                    new_user)


async def _lost_claim(uow: UnitOfWork, invitation: Invitation, token: str,
                      now: datetime.datetime) -> TeamError:
    """Why an accept's claim found nothing pending: the invitation was accepted, revoked or
    resent (the token is dead) by another request meanwhile, as stored now."""
    await uow.session.refresh(invitation)
    if not token_matches(invitation.token_hash, token):
        return InvalidInvitationTokenError("The invitation link is invalid.")
    return _closed(invitation, now)


async def _new_password_hash(deps: TeamDeps, email: str, acceptance: Acceptance) -> str:
    """A new user's details checked (name, password policy) and the password hashed."""
    if not acceptance.name or not acceptance.name.strip():
        raise NewUserDetailsError("name", "A new user gives a name.")
    if not acceptance.password:
        raise NewUserDetailsError("password", "A new user chooses a password.")
    problem = check_password_policy(acceptance.password, email)
    if problem is not None:
        raise NewUserDetailsError("password", problem.message)
    return await deps.passwords.hash_off_loop(acceptance.password)


async def _new_user(uow: UnitOfWork, email: str, name: str, password_hash: str,
                    unverified: User | None, now: datetime.datetime) -> User:
    """A verified user for `email`; an unverified sign-up of the address is taken over, since
    whoever made it never proved the address (as a repeated sign-up does)."""
    if unverified is not None:
        unverified.name, unverified.password_hash = name, password_hash
        unverified.email_verified_at = now
        return unverified
    user = User(id=new_tenant_id(now.timestamp()), email=email, name=name,
                password_hash=password_hash, email_verified_at=now, created_at=now)
    await repo.add(uow.session, user)
    return user
