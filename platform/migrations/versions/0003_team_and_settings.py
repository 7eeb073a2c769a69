"""Team and settings: invitations, API keys and the tenant database connection.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _workspace_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                   name=f"fk_{table}_workspace_id_workspaces")


def _user_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], ["users.id"], ondelete="SET NULL",
                                   name=f"fk_{table}_{column}_users")


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("invited_by", sa.String(26), nullable=True),
        _timestamp("created_at"),
        _timestamp("sent_at"),
        sa.Column("send_count", sa.Integer(), nullable=False),
        _timestamp("expires_at"),
        _timestamp("accepted_at", nullable=True),
        sa.Column("accepted_by", sa.String(26), nullable=True),
        _timestamp("revoked_at", nullable=True),
        sa.CheckConstraint("role IN ('admin', 'member')", name="ck_invitations_role"),
        sa.CheckConstraint("status IN ('pending', 'accepted', 'revoked')",
                           name="ck_invitations_status"),
        _workspace_fk("invitations"),
        _user_fk("invitations", "invited_by"),
        _user_fk("invitations", "accepted_by"),
        sa.PrimaryKeyConstraint("id", name="pk_invitations"),
        sa.UniqueConstraint("token_hash", name="uq_invitations_token_hash"),
    )
    op.create_index("ix_invitations_workspace_id", "invitations", ["workspace_id"])
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("display_prefix", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(26), nullable=True),
        _timestamp("created_at"),
        _timestamp("last_used_at", nullable=True),
        _timestamp("expires_at", nullable=True),
        _timestamp("revoked_at", nullable=True),
        sa.CheckConstraint("scopes IN ('read', 'read write')", name="ck_api_keys_scopes"),
        _workspace_fk("api_keys"),
        _user_fk("api_keys", "created_by"),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_workspace_id", "api_keys", ["workspace_id"])
    op.create_table(
        "tenant_databases",
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("url_encrypted", sa.Text(), nullable=False),
        sa.Column("backend", sa.String(16), nullable=False),
        sa.Column("host", sa.String(255), nullable=True),
        sa.Column("port", sa.Integer(), nullable=True),
        sa.Column("database", sa.String(255), nullable=True),
        sa.Column("username", sa.String(255), nullable=True),
        sa.Column("saved_by", sa.String(26), nullable=True),
        _timestamp("saved_at"),
        _timestamp("last_test_at", nullable=True),
        sa.Column("last_test_ok", sa.Boolean(), nullable=True),
        sa.Column("last_test_latency_ms", sa.Integer(), nullable=True),
        sa.Column("last_test_error", sa.String(64), nullable=True),
        sa.Column("schema_version", sa.String(32), nullable=True),
        _workspace_fk("tenant_databases"),
        _user_fk("tenant_databases", "saved_by"),
        sa.PrimaryKeyConstraint("workspace_id", name="pk_tenant_databases"),
    )


def downgrade() -> None:
    op.drop_table("tenant_databases")
    op.drop_table("api_keys")
    op.drop_table("invitations")
