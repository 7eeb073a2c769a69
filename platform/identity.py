"""The identity records areas share: users, workspaces, memberships, and password handling.

Sign-up (the accounts area) defines them; other areas (team, settings, the tenant API) reach
them through this module, because areas never import each other
(tests/platform/test_areas_independent.py).
"""

from __future__ import annotations

from insureops.platform.accounts.credentials import (
    Passwords,
    check_password_policy,
    new_tenant_id,
    normalise_email,
)
from insureops.platform.accounts.models import Membership, User, Workspace

__all__ = [
    "Membership",
    "Passwords",
    "User",
    "Workspace",
    "check_password_policy",
    "new_tenant_id",
    "normalise_email",
]
