"""Rule studio: saved case sets of a rule (simulate and compare on the same cases again).

Revision ID: 0014_case_sets
Revises: 0010_prospect_emails
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_case_sets"
down_revision = "0010_prospect_emails"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rule_case_sets",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("cases", sa.JSON(), nullable=False),
        sa.Column("case_count", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(26), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(26), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["rule_id"], ["rules.id"], ondelete="CASCADE",
                                name="fk_rule_case_sets_rule_id_rules"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL",
                                name="fk_rule_case_sets_created_by_users"),
        sa.ForeignKeyConstraint(["updated_by"], ["users.id"], ondelete="SET NULL",
                                name="fk_rule_case_sets_updated_by_users"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_case_sets"),
        sa.UniqueConstraint("rule_id", "name", name="uq_rule_case_sets_rule_id_name"),
    )
    op.create_index("ix_rule_case_sets_rule_id", "rule_case_sets", ["rule_id"])


def downgrade() -> None:
    op.drop_index("ix_rule_case_sets_rule_id", table_name="rule_case_sets")
    op.drop_table("rule_case_sets")
