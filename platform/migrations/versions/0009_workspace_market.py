"""A workspace's own carriers and products, their appetites rules of the rule studio.

Revision ID: 0009_workspace_market
Revises: 0008_connectors
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_workspace_market"
down_revision = "0008_connectors"
branch_labels = None
depends_on = None


def _common(table: str) -> list:
    return [
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.String(26), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(26), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name=f"fk_{table}_workspace_id_workspaces"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL",
                                name=f"fk_{table}_created_by_users"),
        sa.ForeignKeyConstraint(["updated_by"], ["users.id"], ondelete="SET NULL",
                                name=f"fk_{table}_updated_by_users"),
        sa.PrimaryKeyConstraint("id", name=f"pk_{table}"),
        sa.UniqueConstraint("workspace_id", "slug", name=f"uq_{table}_workspace_id_slug"),
    ]


def upgrade() -> None:
    op.create_table(
        "workspace_carriers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("slug", sa.String(100), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("naic_code", sa.String(5), nullable=True),
        sa.Column("rating", sa.String(4), nullable=True),
        sa.Column("market", sa.String(16), nullable=False),
        sa.Column("states", sa.JSON(), nullable=False),
        sa.Column("website", sa.String(2048), nullable=True),
        *_common("workspace_carriers"),
    )
    op.create_index("ix_workspace_carriers_workspace_id", "workspace_carriers", ["workspace_id"])
    op.create_table(
        "workspace_products",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("carrier_id", sa.Integer(), nullable=False),
        sa.Column("appetite_rule_id", sa.String(26), nullable=False),
        sa.Column("slug", sa.String(200), nullable=False),
        sa.Column("line", sa.String(8), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("states", sa.JSON(), nullable=False),
        sa.Column("minimum_premium", sa.Numeric(14, 2), nullable=False),
        sa.Column("max_limit", sa.Numeric(14, 2), nullable=False),
        sa.Column("max_aggregate", sa.Numeric(14, 2), nullable=True),
        sa.Column("admitted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["carrier_id"], ["workspace_carriers.id"], ondelete="CASCADE",
                                name="fk_workspace_products_carrier_id_workspace_carriers"),
        sa.ForeignKeyConstraint(["appetite_rule_id"], ["rules.id"], ondelete="CASCADE",
                                name="fk_workspace_products_appetite_rule_id_rules"),
        *_common("workspace_products"),
    )
    for column in ("workspace_id", "carrier_id", "appetite_rule_id"):
        op.create_index(f"ix_workspace_products_{column}", "workspace_products", [column])


def downgrade() -> None:
    op.drop_table("workspace_products")
    op.drop_table("workspace_carriers")
