"""Rules at work: bindings (a published ruleset run on every record written), book runs (a
ruleset over the whole book, resumable) and, on PostgreSQL, procrastinate's job queue.

Revision ID: 0012_rules_at_work
Revises: 0015_service_signing_keys
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_rules_at_work"
down_revision = "0015_service_signing_keys"
branch_labels = None
depends_on = None

RECORD_TYPES = "record_type IN ('client', 'policy', 'claim', 'uw_submission')"
PROCRASTINATE_TABLES = ("procrastinate_events", "procrastinate_periodic_defers",
                        "procrastinate_jobs", "procrastinate_workers")


def _timestamp(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _owned(table: str) -> list:
    return [
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.tenant_id"], ondelete="CASCADE",
                                name=f"fk_{table}_workspace_id_workspaces"),
        sa.ForeignKeyConstraint(["rule_id"], ["rules.id"], ondelete="CASCADE",
                                name=f"fk_{table}_rule_id_rules"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL",
                                name=f"fk_{table}_created_by_users"),
    ]


def upgrade() -> None:
    op.create_table(
        "rule_bindings",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("record_type", sa.String(16), nullable=False),
        sa.Column("on_created", sa.Boolean(), nullable=False),
        sa.Column("on_updated", sa.Boolean(), nullable=False),
        sa.Column("condition", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(26), nullable=True),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.Column("evaluated", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("effects", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("errors", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text(), nullable=True),
        _timestamp("last_evaluated_at", nullable=True),
        sa.CheckConstraint(RECORD_TYPES, name="ck_rule_bindings_record_type"),
        sa.CheckConstraint("status IN ('active', 'paused')", name="ck_rule_bindings_status"),
        *_owned("rule_bindings"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_bindings"),
    )
    op.create_index("ix_rule_bindings_workspace_id", "rule_bindings", ["workspace_id"])
    op.create_index("ix_rule_bindings_rule_id", "rule_bindings", ["rule_id"])
    op.create_table(
        "rule_runs",
        sa.Column("id", sa.String(26), nullable=False),
        sa.Column("workspace_id", sa.String(26), nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("baseline_version", sa.Integer(), nullable=True),
        sa.Column("record_type", sa.String(16), nullable=False),
        sa.Column("condition", sa.Text(), nullable=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("created_by", sa.String(26), nullable=True),
        _timestamp("created_at"),
        _timestamp("started_at", nullable=True),
        _timestamp("finished_at", nullable=True),
        _timestamp("updated_at"),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("done", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("matched", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("errors", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("effects", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("elapsed_seconds", sa.Float(), nullable=False, server_default="0"),
        sa.Column("checkpoint", sa.String(64), nullable=True),
        sa.Column("state", sa.LargeBinary(), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("impact", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False,
                  server_default=sa.false()),
        sa.CheckConstraint(RECORD_TYPES, name="ck_rule_runs_record_type"),
        sa.CheckConstraint("mode IN ('dry_run', 'apply')", name="ck_rule_runs_mode"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'completed', 'failed', 'cancelled')",
            name="ck_rule_runs_status"),
        *_owned("rule_runs"),
        sa.PrimaryKeyConstraint("id", name="pk_rule_runs"),
    )
    op.create_index("ix_rule_runs_workspace_id", "rule_runs", ["workspace_id"])
    op.create_index("ix_rule_runs_rule_id", "rule_runs", ["rule_id"])
    op.create_index("ix_rule_runs_status", "rule_runs", ["status"])
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        from procrastinate.schema import SchemaManager

        # procrastinate's own schema (tables, types, functions, triggers) in the platform
        # database; later procrastinate releases ship migrations that a later revision applies.
        bind.exec_driver_sql(SchemaManager.get_schema().replace("%", "%%"))


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for table in PROCRASTINATE_TABLES:
            bind.exec_driver_sql(f"DROP TABLE IF EXISTS {table} CASCADE")
        bind.exec_driver_sql(
            "DO $$ DECLARE f record; BEGIN FOR f IN SELECT p.oid::regprocedure AS sig "
            "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE p.proname LIKE 'procrastinate%%' AND n.nspname = current_schema() LOOP "
            "EXECUTE 'DROP FUNCTION ' || f.sig || ' CASCADE'; END LOOP; END $$")
        for type_name in ("procrastinate_job_status", "procrastinate_job_event_type",
                          "procrastinate_job_to_defer_v1"):
            bind.exec_driver_sql(f"DROP TYPE IF EXISTS {type_name} CASCADE")
    op.drop_table("rule_runs")
    op.drop_table("rule_bindings")
