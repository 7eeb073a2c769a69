"""ORM model of the team area: invitations (the users, workspaces and memberships are shared)."""

from __future__ import annotations

import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class Invitation(Base):
    """An invitation to join a workspace. `status` is pending, accepted or revoked; a pending
    invitation past `expires_at` is expired (derived, so no job has to flip it). Only the
    SHA-256 of the e-mailed token is kept (migration 0003)."""

    __tablename__ = "invitations"
    __table_args__ = (
        CheckConstraint("role IN ('admin', 'member')", name="role"),
        CheckConstraint("status IN ('pending', 'accepted', 'revoked')", name="status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(254))
    role: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invited_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    sent_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    send_count: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    accepted_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    accepted_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    revoked_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)

    def state(self, now: datetime.datetime) -> str:
        """pending, accepted, revoked or expired (a pending one past its expiry)."""
        if self.status == "pending" and now >= self.expires_at:
            return "expired"
        return self.status
