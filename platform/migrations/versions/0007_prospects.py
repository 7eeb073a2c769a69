"""Prospects saved by the browser extension and their owners' terms acceptances.

Revision ID: 0007_prospects
Revises: 0006_carrier_market
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_prospects"
down_revision = "0006_carrier_market"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "prospects",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("owner_issuer", sa.String(255), nullable=False),
        sa.Column("owner_subject", sa.String(255), nullable=False),
        sa.Column("company_name", sa.String(200), nullable=False),
        sa.Column("website", sa.String(500), nullable=True),
        sa.Column("domain", sa.String(255), nullable=True),
        sa.Column("contact_name", sa.String(200), nullable=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("phone", sa.String(50), nullable=True),
        sa.Column("phone_digits", sa.String(50), nullable=True),
        sa.Column("address", sa.String(500), nullable=True),
        sa.Column("state", sa.String(50), nullable=True),
        sa.Column("naics", sa.String(10), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("source_url", sa.String(2000), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('new', 'contacted', 'qualified', 'converted', 'lost')",
                           name="ck_prospects_status"),
        sa.PrimaryKeyConstraint("id", name="pk_prospects"),
    )
    op.create_index("ix_prospects_owner_created", "prospects",
                    ["owner_issuer", "owner_subject", "created_at"])
    op.create_index("ix_prospects_owner_domain", "prospects",
                    ["owner_issuer", "owner_subject", "domain"])
    op.create_table(
        "prospect_terms_acceptances",
        sa.Column("owner_issuer", sa.String(255), nullable=False),
        sa.Column("owner_subject", sa.String(255), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("owner_issuer", "owner_subject", "version",
                                name="pk_prospect_terms_acceptances"),
    )


def downgrade() -> None:
    op.drop_table("prospect_terms_acceptances")
    op.drop_index("ix_prospects_owner_domain", table_name="prospects")
    op.drop_index("ix_prospects_owner_created", table_name="prospects")
    op.drop_table("prospects")
