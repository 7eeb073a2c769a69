"""Identity: users, workspaces, memberships and the password, tenant-id and e-mail rules they share.

Every area that needs them (accounts, team, settings, the tenant API) depends on this package;
none of them owns it, since areas never import each other.
"""

from __future__ import annotations

from insureops.platform.identity.credentials import (
    PasswordProblem,
    Passwords,
    check_password_policy,
    new_tenant_id,
    normalise_email,
)
from insureops.platform.identity.models import Membership, User, Workspace

__all__ = [
    "Membership",
    "PasswordProblem",
    "Passwords",
    "User",
    "Workspace",
    "check_password_policy",
    "new_tenant_id",
    "normalise_email",
]
