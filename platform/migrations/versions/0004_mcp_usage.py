"""Usage counts reported by local MCP servers (tool, count, period) for billing.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_usage",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("key_id", sa.String(26), nullable=False),
        sa.Column("tool", sa.String(64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("period_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("period_end", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("count > 0", name="ck_mcp_usage_count_positive"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_mcp_usage_workspace_id_workspaces"),
        sa.PrimaryKeyConstraint("id", name="pk_mcp_usage"),
    )
    op.create_index("ix_mcp_usage_workspace_id", "mcp_usage", ["workspace_id"])


def downgrade() -> None:
    op.drop_index("ix_mcp_usage_workspace_id", table_name="mcp_usage")
    op.drop_table("mcp_usage")
