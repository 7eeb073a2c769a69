"""Connectors: the workspaces' bring-your-own-key LLM provider keys (encrypted).

Revision ID: 0008_connectors
Revises: 0007_prospects
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_connectors"
down_revision = "0007_prospects"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "llm_provider_keys",
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("provider", sa.String(16), nullable=False),
        sa.Column("key_encrypted", sa.Text(), nullable=False),
        sa.Column("key_last_four", sa.String(4), nullable=False),
        sa.Column("base_url", sa.String(2048), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("saved_by", sa.String(26), nullable=True),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_test_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_test_ok", sa.Boolean(), nullable=True),
        sa.Column("last_test_latency_ms", sa.Integer(), nullable=True),
        sa.Column("last_test_error", sa.String(500), nullable=True),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_llm_provider_keys_workspace_id_workspaces"),
        sa.ForeignKeyConstraint(["saved_by"], ["users.id"], ondelete="SET NULL",
                                name="fk_llm_provider_keys_saved_by_users"),
        sa.PrimaryKeyConstraint("workspace_id", "provider", name="pk_llm_provider_keys"),
    )


def downgrade() -> None:
    op.drop_table("llm_provider_keys")
