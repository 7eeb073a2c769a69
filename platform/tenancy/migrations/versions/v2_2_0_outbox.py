"""The service's outbox and effect ledger in a tenant database (data model 2.2.0 unchanged).

Revision ID: v2_2_0_outbox
Revises: v2_2_0
Create Date: 2026-11-27

Outbox switches (which record type and event some active binding listens to), the outbox
(one row per client, policy, claim or uw_submission written while its switch is on, by
triggers: every writer is seen) and the effect ledger (its unique key makes each effect happen
once). None of the specification's tables changes (docs/rules-at-work.md).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v2_2_0_outbox"
down_revision = "v2_2_0"
branch_labels = None
depends_on = None
data_model_version = "2.2.0"

WATCHED = {"clients": "client", "policies": "policy", "claims": "claim",
           "uw_submissions": "uw_submission"}


def _postgresql_triggers() -> list[str]:
    statements = [
        "CREATE OR REPLACE FUNCTION insureops_outbox_write() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ DECLARE happened text := CASE TG_OP WHEN 'INSERT' THEN 'created' "
        "ELSE 'updated' END; BEGIN "
        "IF EXISTS (SELECT 1 FROM insureops_outbox_switches s WHERE s.record_type = "
        "TG_ARGV[0] AND s.event = happened) THEN "
        "INSERT INTO insureops_outbox (tenant_id, record_type, record_id, event) "
        "VALUES (NEW.tenant_id, TG_ARGV[0], NEW.id, happened); END IF; RETURN NULL; END $$"]
    for table, record_type in WATCHED.items():
        statements.append(
            f"CREATE TRIGGER trg_{table}_outbox AFTER INSERT OR UPDATE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION insureops_outbox_write('{record_type}')")
    return statements


def _sqlite_triggers() -> list[str]:
    statements = []
    for table, record_type in WATCHED.items():
        for operation, event in (("INSERT", "created"), ("UPDATE", "updated")):
            statements.append(
                f"CREATE TRIGGER trg_{table}_outbox_{event} AFTER {operation} ON {table} "
                f"FOR EACH ROW WHEN EXISTS (SELECT 1 FROM insureops_outbox_switches s "
                f"WHERE s.record_type = '{record_type}' AND s.event = '{event}') BEGIN "
                f"INSERT INTO insureops_outbox (tenant_id, record_type, record_id, event, "
                f"written_at) VALUES (NEW.tenant_id, '{record_type}', NEW.id, '{event}', "
                f"strftime('%Y-%m-%d %H:%M:%f', 'now')); END")
    return statements


def upgrade() -> None:
    op.create_table(
        "insureops_outbox_switches",
        sa.Column("record_type", sa.String(16), primary_key=True),
        sa.Column("event", sa.String(8), primary_key=True),
    )
    op.create_table(
        "insureops_outbox",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(26), nullable=False),
        sa.Column("record_type", sa.String(16), nullable=False),
        sa.Column("record_id", sa.Uuid(), nullable=False),
        sa.Column("event", sa.String(8), nullable=False),
        sa.Column("written_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
    )
    op.create_table(
        "insureops_rule_effects",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(26), nullable=False),
        sa.Column("rule_id", sa.String(26), nullable=False),
        sa.Column("rule_version", sa.Integer(), nullable=False),
        sa.Column("record_type", sa.String(16), nullable=False),
        sa.Column("record_id", sa.Uuid(), nullable=False),
        sa.Column("record_version", sa.String(64), nullable=False),
        sa.Column("effect", sa.String(16), nullable=False),
        sa.Column("effect_id", sa.Uuid(), nullable=True),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.UniqueConstraint("rule_id", "rule_version", "record_type", "record_id",
                            "record_version", "effect", name="uq_insureops_rule_effects_once"),
        sa.CheckConstraint("effect IN ('uw_score', 'task', 'error')",
                           name="ck_insureops_rule_effects_effect"),
    )
    op.create_index("ix_insureops_rule_effects_record", "insureops_rule_effects",
                    ["record_type", "record_id"])
    bind = op.get_bind()
    statements = (_postgresql_triggers() if bind.dialect.name == "postgresql"
                  else _sqlite_triggers())
    for statement in statements:
        bind.exec_driver_sql(statement.replace("%", "%%") if bind.dialect.name ==
                             "postgresql" else statement)


def downgrade() -> None:
    bind = op.get_bind()
    for table in WATCHED:
        if bind.dialect.name == "postgresql":
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS trg_{table}_outbox ON {table}")
        else:
            for event in ("created", "updated"):
                bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS trg_{table}_outbox_{event}")
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP FUNCTION IF EXISTS insureops_outbox_write() CASCADE")
    op.drop_table("insureops_rule_effects")
    op.drop_table("insureops_outbox")
    op.drop_table("insureops_outbox_switches")
