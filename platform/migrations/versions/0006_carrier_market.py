"""The carrier market: carriers, their products and the versioned appetites products point at.

Revision ID: 0006_carrier_market
Revises: 0005_rules_studio
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_carrier_market"
down_revision = "0005_rules_studio"
branch_labels = None
depends_on = None


def _workspace(table: str) -> list:
    return [sa.Column("workspace_id", sa.String(26), nullable=True),
            sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                    name=f"fk_{table}_workspace_id_workspaces")]


def upgrade() -> None:
    op.create_table(
        "appetites",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        *_workspace("appetites"),
        sa.Column("path", sa.String(300), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("title", sa.String(300), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_appetites"),
    )
    op.create_index("ix_appetites_workspace_id", "appetites", ["workspace_id"])
    op.create_index("ix_appetites_path", "appetites", ["path"])
    op.create_table(
        "carriers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        *_workspace("carriers"),
        sa.Column("slug", sa.String(100), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("naic_code", sa.String(5), nullable=False),
        sa.Column("rating", sa.String(4), nullable=False),
        sa.Column("market", sa.String(16), nullable=False),
        sa.Column("states", sa.JSON(), nullable=False),
        sa.Column("website", sa.String(2048), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_carriers"),
    )
    op.create_index("ix_carriers_workspace_id", "carriers", ["workspace_id"])
    op.create_index("ix_carriers_slug", "carriers", ["slug"])
    op.create_table(
        "products",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        *_workspace("products"),
        sa.Column("carrier_id", sa.Integer(), nullable=False),
        sa.Column("appetite_id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(200), nullable=False),
        sa.Column("line", sa.String(8), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("states", sa.JSON(), nullable=False),
        sa.Column("minimum_premium", sa.Numeric(14, 2), nullable=False),
        sa.Column("max_limit", sa.Numeric(14, 2), nullable=False),
        sa.Column("max_aggregate", sa.Numeric(14, 2), nullable=True),
        sa.Column("admitted", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["carrier_id"], ["carriers.id"], ondelete="CASCADE",
                                name="fk_products_carrier_id_carriers"),
        sa.ForeignKeyConstraint(["appetite_id"], ["appetites.id"],
                                name="fk_products_appetite_id_appetites"),
        sa.PrimaryKeyConstraint("id", name="pk_products"),
    )
    for column in ("workspace_id", "carrier_id", "appetite_id", "slug"):
        op.create_index(f"ix_products_{column}", "products", [column])


def downgrade() -> None:
    op.drop_table("products")
    op.drop_table("carriers")
    op.drop_table("appetites")
