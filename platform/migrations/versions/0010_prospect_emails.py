"""Prospects: the owner's verified e-mail, linking prospects to the workspaces of its members.

Revision ID: 0010_prospect_emails
Revises: 0009_workspace_market
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_prospect_emails"
down_revision = "0009_workspace_market"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("prospects") as batch:
        batch.add_column(sa.Column("owner_email", sa.String(254), nullable=True))
    op.create_index("ix_prospects_owner_email", "prospects", ["owner_email"])


def downgrade() -> None:
    op.drop_index("ix_prospects_owner_email", table_name="prospects")
    with op.batch_alter_table("prospects") as batch:
        batch.drop_column("owner_email")
