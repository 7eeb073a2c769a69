"""Accounts (users, workspaces, memberships, sessions, verification codes) and the e-mail log.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        _timestamp("email_verified_at", nullable=True),
        _timestamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("email", name="uq_users_email"),
    )
    op.create_table(
        "workspaces",
        sa.Column("tenant_id", sa.String(26), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        _timestamp("created_at"),
        sa.PrimaryKeyConstraint("tenant_id", name="pk_workspaces"),
    )
    op.create_table(
        "memberships",
        sa.Column("user_id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        _timestamp("created_at"),
        sa.CheckConstraint("role IN ('owner', 'admin', 'member')", name="ck_memberships_role"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_memberships_user_id_users"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_memberships_workspace_id_workspaces"),
        sa.PrimaryKeyConstraint("user_id", "workspace_id", name="pk_memberships"),
    )
    op.create_index("ix_memberships_workspace_id", "memberships", ["workspace_id"])
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(26), nullable=False),
        sa.Column("active_workspace_id", sa.String(26), nullable=True),
        _timestamp("created_at"),
        _timestamp("last_seen_at"),
        _timestamp("expires_at"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_sessions_user_id_users"),
        sa.ForeignKeyConstraint(["active_workspace_id"], ["workspaces.tenant_id"],
                                ondelete="SET NULL",
                                name="fk_sessions_active_workspace_id_workspaces"),
        sa.PrimaryKeyConstraint("id_hash", name="pk_sessions"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    op.create_table(
        "verification_codes",
        sa.Column("user_id", sa.String(26), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        _timestamp("expires_at"),
        sa.Column("failed_tries", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_verification_codes_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", name="pk_verification_codes"),
    )
    op.create_table(
        "email_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        _timestamp("created_at"),
        sa.Column("tenant_id", sa.String(26), nullable=True),
        sa.Column("backend", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("message_id", sa.String(255), nullable=False),
        sa.Column("sender", sa.String(320), nullable=True),
        sa.Column("recipients", sa.Text(), nullable=False),
        sa.Column("subject", sa.String(998), nullable=False),
        sa.Column("template", sa.String(100), nullable=True),
        sa.Column("text_body", sa.Text(), nullable=False),
        sa.Column("html_body", sa.Text(), nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_email_log"),
    )
    op.create_index("ix_email_log_created_at", "email_log", ["created_at"])
    op.create_index("ix_email_log_tenant_id", "email_log", ["tenant_id"])


def downgrade() -> None:
    op.drop_table("email_log")
    op.drop_table("verification_codes")
    op.drop_table("sessions")
    op.drop_table("memberships")
    op.drop_table("workspaces")
    op.drop_table("users")
