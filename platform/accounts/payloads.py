"""Request and response shapes of the accounts area."""

from __future__ import annotations

from pydantic import BaseModel, Field

from insureops.platform.auth import Principal, Role


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
