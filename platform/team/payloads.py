"""Request and response shapes of the team area."""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Role
from insureops.platform.http.bodies import EMAIL_PATTERN, UNKNOWN_FIELDS_REFUSED


class Person(BaseModel):
    id: str = Field(description="The user's id.")
    email: str
    name: str


class PlanUsage(BaseModel):
    """What the workspace uses, against the plan's limits."""

    plan: str = Field(description="The workspace's plan (one plan until billing exists).")
    members: int
    pending_invitations: int
    api_keys: int = Field(description="Live (unrevoked, unexpired) API keys.")
    tenant_database_configured: bool
    invitations_per_hour: int = Field(description="The plan's invitation limit.")


class WorkspaceInfo(BaseModel):
    tenant_id: str = Field(description="The workspace id, a ULID (26 characters).")
    name: str
    owner: Person | None = Field(description="The earliest owner (see `owners` when there are "
                                 "several); null only if every owner's account was deleted.")
    owners: list[Person]
    member_count: int
    usage: PlanUsage
    created_at: datetime.datetime


class MemberInfo(BaseModel):
    id: str = Field(description="The member's user id (used in /members/<id>/).")
    email: str
    name: str
    role: Role
    joined_at: datetime.datetime


class MemberList(BaseModel):
    members: list[MemberInfo]


class MemberPath(BaseModel):
    user_id: str = Field(min_length=1, max_length=26)


class RoleChange(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    role: Role = Field(description="owner, admin or member. Making someone owner adds an owner.")


class InviteRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    email: str = Field(max_length=254, pattern=EMAIL_PATTERN, examples=["max@example.com"])
    role: Literal["admin", "member"] = Field(
        "member", description="Invitees join as admin or member; ownership is given by an "
        "owner through PATCH /members/<id>/.")


class InvitationInfo(BaseModel):
    """An invitation, never its token."""

    id: str
    email: str
    role: Literal["admin", "member"]
    status: Literal["pending", "accepted", "revoked", "expired"]
    invited_by: str | None
    created_at: datetime.datetime
    sent_at: datetime.datetime
    send_count: int
    expires_at: datetime.datetime


class SentInvitation(InvitationInfo):
    email_delivered: bool = Field(description="false when the e-mail could not be sent now "
                                  "(see the e-mail log); resend it later.")


class InvitationList(BaseModel):
    invitations: list[InvitationInfo] = Field(description="Pending invitations, newest first.")


class InvitationPath(BaseModel):
    invitation_id: str = Field(min_length=26, max_length=26)


class AcceptRequest(BaseModel):
    """The token from the e-mailed link; a new user also gives a name and a password."""

    model_config = UNKNOWN_FIELDS_REFUSED

    token: str = Field(min_length=1, max_length=100)
    name: str | None = Field(None, max_length=200)
    password: str | None = Field(None, max_length=256)


class WorkspaceRef(BaseModel):
    id: str
    name: str


class AcceptResponse(BaseModel):
    workspace: WorkspaceRef
    user: Person
    role: Role
    new_user: bool = Field(description="true when the account was made by this acceptance; "
                           "log in with POST /api/auth/login/ either way.")
