"""Rule studio: rules (a workspace's rulesets), their immutable versions, publications,
the four-eyes setting, approvals and the execution log.

Revision ID: 0005_rules_studio
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_rules_studio"
down_revision = "0004"
branch_labels = None
depends_on = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _user_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], ["users.id"], ondelete="SET NULL",
                                   name=f"fk_{table}_{column}_users")


def _rule_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["rule_id"], ["rules.id"], ondelete="CASCADE",
                                   name=f"fk_{table}_rule_id_rules")


def upgrade() -> None:
    op.create_table(
        "rules",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("current_version", sa.Integer(), nullable=False),
        sa.Column("published_version", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(26), nullable=True),
        _timestamp("created_at"),
        sa.Column("updated_by", sa.String(26), nullable=True),
        _timestamp("updated_at"),
        sa.CheckConstraint("kind IN ('appetite', 'triage', 'underwriting', 'pricing', 'other')",
                           name="ck_rules_kind"),
        sa.CheckConstraint("status IN ('draft', 'published', 'archived')",
                           name="ck_rules_status"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_rules_workspace_id_workspaces"),
        _user_fk("rules", "created_by"),
        _user_fk("rules", "updated_by"),
        sa.PrimaryKeyConstraint("id", name="pk_rules"),
        sa.UniqueConstraint("workspace_id", "name", name="uq_rules_workspace_id_name"),
    )
    op.create_index("ix_rules_workspace_id", "rules", ["workspace_id"])
    op.create_table(
        "rule_versions",
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("author_id", sa.String(26), nullable=True),
        _timestamp("created_at"),
        sa.Column("warnings", sa.JSON(), nullable=False),
        sa.Column("tests", sa.JSON(), nullable=False),
        sa.Column("tests_passed", sa.Boolean(), nullable=False),
        _rule_fk("rule_versions"),
        _user_fk("rule_versions", "author_id"),
        sa.PrimaryKeyConstraint("rule_id", "number", name="pk_rule_versions"),
    )
    op.create_table(
        "rule_publications",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("actor_id", sa.String(26), nullable=True),
        _timestamp("at"),
        sa.CheckConstraint("action IN ('published', 'unpublished')",
                           name="ck_rule_publications_action"),
        _rule_fk("rule_publications"),
        _user_fk("rule_publications", "actor_id"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_publications"),
    )
    op.create_index("ix_rule_publications_rule_id", "rule_publications", ["rule_id"])
    op.create_table(
        "rule_studio_settings",
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("four_eyes", sa.Boolean(), nullable=False),
        sa.Column("updated_by", sa.String(26), nullable=True),
        _timestamp("updated_at"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name="fk_rule_studio_settings_workspace_id_workspaces"),
        _user_fk("rule_studio_settings", "updated_by"),
        sa.PrimaryKeyConstraint("workspace_id", name="pk_rule_studio_settings"),
    )
    op.create_table(
        "rule_approvals",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("requested_by", sa.String(26), nullable=True),
        _timestamp("requested_at"),
        sa.Column("decided_by", sa.String(26), nullable=True),
        _timestamp("decided_at", nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('pending', 'approved', 'rejected')",
                           name="ck_rule_approvals_status"),
        _rule_fk("rule_approvals"),
        _user_fk("rule_approvals", "requested_by"),
        _user_fk("rule_approvals", "decided_by"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_approvals"),
    )
    op.create_index("ix_rule_approvals_rule_id", "rule_approvals", ["rule_id"])
    op.create_table(
        "rule_executions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("executed_by", sa.String(26), nullable=True),
        _timestamp("executed_at"),
        sa.Column("input_digest", sa.String(64), nullable=False),
        sa.Column("record_type", sa.String(16), nullable=True),
        sa.Column("record_uuid", sa.String(36), nullable=True),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("decision", sa.String(64), nullable=True),
        sa.Column("score", sa.String(64), nullable=True),
        sa.Column("fired", sa.JSON(), nullable=False),
        sa.Column("error", sa.String(64), nullable=True),
        sa.Column("duration_us", sa.Integer(), nullable=False),
        _rule_fk("rule_executions"),
        _user_fk("rule_executions", "executed_by"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_executions"),
    )
    op.create_index("ix_rule_executions_rule_id", "rule_executions", ["rule_id"])


def downgrade() -> None:
    op.drop_index("ix_rule_executions_rule_id", table_name="rule_executions")
    op.drop_table("rule_executions")
    op.drop_index("ix_rule_approvals_rule_id", table_name="rule_approvals")
    op.drop_table("rule_approvals")
    op.drop_table("rule_studio_settings")
    op.drop_index("ix_rule_publications_rule_id", table_name="rule_publications")
    op.drop_table("rule_publications")
    op.drop_table("rule_versions")
    op.drop_index("ix_rules_workspace_id", table_name="rules")
    op.drop_table("rules")
