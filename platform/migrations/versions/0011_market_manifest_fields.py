"""The market manifests' new fields (issue 32): carrier type, access path, territories and
underwriters, where to submit, quote links and guide dates; product strength and access; the
market's wholesalers and MGAs; and where to submit for a workspace's own carriers and products.

Every new column is nullable: rows stored before this revision have none of it until the next
`insureops market load` fills them (an unchanged file with new fields is an update).

Revision ID: 0011_market_manifest_fields
Revises: 0013_webhooks
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_market_manifest_fields"
down_revision = "0013_webhooks"
branch_labels = None
depends_on = None

CARRIER_COLUMNS = (
    ("carrier_type", sa.String(24)),
    ("access", sa.String(16)),
    ("via", sa.String(100)),
    ("territories", sa.JSON()),
    ("submission_email", sa.String(254)),
    ("submission_portal", sa.String(2048)),
    ("quote_url", sa.String(2048)),
    ("guide_effective", sa.Date()),
    ("guide_reviewed", sa.Date()),
)
PRODUCT_COLUMNS = (
    ("strength", sa.String(16)),
    ("access", sa.String(16)),
    ("via", sa.String(100)),
    ("quote_url", sa.String(2048)),
)
OWN_CARRIER_COLUMNS = (
    ("submission_email", sa.String(254)),
    ("submission_portal", sa.String(2048)),
    ("quote_url", sa.String(2048)),
)
OWN_PRODUCT_COLUMNS = (
    ("strength", sa.String(16)),
    ("quote_url", sa.String(2048)),
)
TABLES = (("carriers", CARRIER_COLUMNS), ("products", PRODUCT_COLUMNS),
          ("workspace_carriers", OWN_CARRIER_COLUMNS),
          ("workspace_products", OWN_PRODUCT_COLUMNS))


def upgrade() -> None:
    for table, columns in TABLES:
        with op.batch_alter_table(table) as batch:
            for name, kind in columns:
                batch.add_column(sa.Column(name, kind, nullable=True))
    op.create_table(
        "market_intermediaries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=True),
        sa.Column("slug", sa.String(100), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("states", sa.JSON(), nullable=False),
        sa.Column("contact", sa.String(200), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("phone", sa.String(40), nullable=True),
        sa.Column("portal", sa.String(2048), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_market_intermediaries_workspace_id_workspaces"),
        sa.PrimaryKeyConstraint("id", name="pk_market_intermediaries"),
    )
    op.create_index("ix_market_intermediaries_workspace_id", "market_intermediaries",
                    ["workspace_id"])


def downgrade() -> None:
    op.drop_index("ix_market_intermediaries_workspace_id", table_name="market_intermediaries")
    op.drop_table("market_intermediaries")
    for table, columns in reversed(TABLES):
        with op.batch_alter_table(table) as batch:
            for name, _ in reversed(columns):
                batch.drop_column(name)
