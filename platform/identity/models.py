"""ORM models of identity: users, workspaces (tenants) and the memberships joining them."""

from __future__ import annotations

import datetime

from sqlalchemy import CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class User(Base):
    """A person who signed up; `email` is stored normalised (trimmed, lower case)."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(255))
    email_verified_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class Workspace(Base):
    """A tenant. `tenant_id` is a ULID (26 characters) and the workspace's public id."""

    __tablename__ = "workspaces"

    tenant_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class Membership(Base):
    """A user's role in a workspace: owner > admin > member."""

    __tablename__ = "memberships"
    __table_args__ = (CheckConstraint("role IN ('owner', 'admin', 'member')", name="role"),)

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
