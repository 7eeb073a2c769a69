"""ORM models of the accounts area: users, workspaces, memberships, sessions, verification codes."""

from __future__ import annotations

import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.columns import UtcDateTime
from insureops.platform.db import Base


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
