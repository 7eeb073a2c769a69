"""ORM models of the accounts area: login sessions and e-mail verification codes.

Users, workspaces and memberships belong to platform/identity, which every area shares.
"""

from __future__ import annotations

import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base
from insureops.platform.identity import models as _identity_models  # noqa: F401 - users, workspaces


class Session(Base):
    """A login. Only the SHA-256 of the cookie value is kept; `expires_at` slides forward."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    active_workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    last_seen_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, index=True)


class VerificationCode(Base):
    """The one live e-mail verification code of an unverified user, as an HMAC."""

    __tablename__ = "verification_codes"

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    failed_tries: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
