"""Rule studio: saved case sets of a rule (simulate and compare on the same cases again), and
indexes for the execution log's filters (decision, record, day).

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

# The execution log's filters, each one index range of a rule's executions: measured on
# PostgreSQL with 200,000 executions of one rule, a decision 64 -> 1 ms, a record 155 -> 0.3 ms.
_LOG_INDEXES = {
    "ix_rule_executions_rule_id_decision": ["rule_id", "decision", "id"],
    "ix_rule_executions_rule_id_record_uuid": ["rule_id", "record_uuid", "id"],
    "ix_rule_executions_rule_id_executed_at": ["rule_id", "executed_at"],
}


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
    for name, columns in _LOG_INDEXES.items():
        op.create_index(name, "rule_executions", columns)


def downgrade() -> None:
    for name in _LOG_INDEXES:
        op.drop_index(name, table_name="rule_executions")
    op.drop_index("ix_rule_case_sets_rule_id", table_name="rule_case_sets")
    op.drop_table("rule_case_sets")
