"""Request and response shapes of the accounts area."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Principal, Role
from insureops.platform.http.bodies import EMAIL_PATTERN, UNKNOWN_FIELDS_REFUSED


class ProfileUser(BaseModel):
    id: str = Field(description="The user's id.")
    email: str
    name: str
    email_verified: bool


class WorkspaceRole(BaseModel):
    """A workspace the user belongs to, with the user's role in it."""

    id: str = Field(description="The workspace (tenant) id, a ULID.")
    name: str
    role: Role


class ProfileResponse(BaseModel):
    """The logged-in user, the workspaces they belong to, and the session's active workspace."""

    user: ProfileUser
    workspaces: list[WorkspaceRole]
    active_workspace: WorkspaceRole | None = Field(
        description="The workspace this session acts in; null when the user has none.")

    @classmethod
    def from_principal(cls, principal: Principal) -> ProfileResponse:
        """The profile of a session principal (the session authenticator loads its memberships)."""
        if principal.user is None:
            raise ValueError("a session principal always carries its user")
        user = principal.user
        workspaces = [WorkspaceRole(id=m.workspace_id, name=m.workspace_name, role=m.role)
                      for m in principal.memberships]
        active = next((w for w in workspaces if w.id == principal.active_workspace_id), None)
        return cls(user=ProfileUser(id=user.id, email=user.email, name=user.name,
                                    email_verified=user.email_verified),
                   workspaces=workspaces, active_workspace=active)




class SignupRequest(BaseModel):
    """A new account: the password needs 10+ characters and must not be the e-mail address."""

    model_config = UNKNOWN_FIELDS_REFUSED

    email: str = Field(max_length=254, pattern=EMAIL_PATTERN, examples=["ann@example.com"])
    # The service checks the length itself (credentials.check_password_policy, with its own message);
    # the document states the same minimum so clients know it.
    password: str = Field(min_length=1, max_length=256, json_schema_extra={"minLength": 10})
    name: str = Field(min_length=1, max_length=200)


class SignupResponse(BaseModel):
    """The same answer whether or not the address already had an account (docs/accounts.md)."""

    email: str
    message: str


class VerifyRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    email: str = Field(max_length=254)
    code: str = Field(min_length=1, max_length=12, description="The 6-digit code from the e-mail.")


class VerifyResponse(BaseModel):
    email: str
    email_verified: bool


class ResendCodeRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    email: str = Field(max_length=254)


class LoginRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    email: str = Field(max_length=254)
    password: str = Field(min_length=1, max_length=256)


class ResendCodeResponse(SignupResponse):
    """The same answer whatever the state of the address."""


class TokenResponse(BaseModel):
    """A token the service signed for the browser extension (the service is the identity
    provider: no external one is configured)."""

    access_token: str = Field(description="The JWT: send it as `Authorization: Bearer <token>` "
                              "to the prospect routes.")
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int = Field(description="Seconds the token is valid for (default 600).")
    expires_at: int = Field(description="Its `exp`: Unix time in seconds.")
    issuer: str = Field(description="Its `iss`.")
    audience: str = Field(description="Its `aud`.")
    jwks_uri: str = Field(description="Where the service publishes the keys that verify it.")
