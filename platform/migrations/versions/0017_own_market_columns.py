"""A workspace's own carriers and products take the market's columns (issue 30, "one house").

Both the market's and the own tables derive their columns from one definition (market/models.py
`CarrierColumns`, `ProductColumns`): the own ones gain the carrier profile, a product's access
and via, and the index on `slug`. Every row is kept; an own carrier's access, which the code
always took as direct, is written as `direct`. Columns are only added (native ALTER TABLE):
rebuilding a table on SQLite would cascade to the products that point at it.

Revision ID: 0017_own_market_columns
Revises: 0016_rules_work_events
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_own_market_columns"
down_revision = "0016_rules_work_events"
branch_labels = None
depends_on = None

CARRIER_COLUMNS = (
    ("carrier_type", sa.String(24)),
    ("access", sa.String(16)),
    ("via", sa.String(100)),
    ("territories", sa.JSON()),
    ("guide_effective", sa.Date()),
    ("guide_reviewed", sa.Date()),
)
PRODUCT_COLUMNS = (
    ("access", sa.String(16)),
    ("via", sa.String(100)),
)
TABLES = (("workspace_carriers", CARRIER_COLUMNS), ("workspace_products", PRODUCT_COLUMNS))


def upgrade() -> None:
    for table, columns in TABLES:
        for name, kind in columns:
            op.add_column(table, sa.Column(name, kind, nullable=True))
        op.create_index(f"ix_{table}_slug", table, ["slug"])
    op.execute("UPDATE workspace_carriers SET access = 'direct'")


def downgrade() -> None:
    for table, columns in reversed(TABLES):
        op.drop_index(f"ix_{table}_slug", table_name=table)
        for name, _ in reversed(columns):
            op.drop_column(table, name)
