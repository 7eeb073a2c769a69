"""The service's tables in a tenant database (revisions v2_2_0_outbox, v2_2_0_events) as
SQLAlchemy Core: the outbox switches, the outbox, the effect ledger whose unique key makes each
effect happen once per (ruleset version, record, record version), and the event outbox (the
webhook events of the effects, written with them, relayed to the platform database)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

switches = sa.Table(
    "insureops_outbox_switches", metadata,
    sa.Column("record_type", sa.String(16), primary_key=True),
    sa.Column("event", sa.String(8), primary_key=True),
)

outbox = sa.Table(
    "insureops_outbox", metadata,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
    sa.Column("tenant_id", sa.String(26), nullable=False),
    sa.Column("record_type", sa.String(16), nullable=False),
    sa.Column("record_id", sa.Uuid(), nullable=False),
    sa.Column("event", sa.String(8), nullable=False),
    sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
)

effects = sa.Table(
    "insureops_rule_effects", metadata,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
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
)
EFFECT_KEY = ("rule_id", "rule_version", "record_type", "record_id", "record_version", "effect")

event_outbox = sa.Table(
    "insureops_event_outbox", metadata,
    sa.Column("id", ID, primary_key=True, autoincrement=True),
    sa.Column("tenant_id", sa.String(26), nullable=False),
    sa.Column("event_key", sa.String(200), nullable=False, unique=True),
    sa.Column("event_type", sa.String(64), nullable=False),
    sa.Column("payload", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
              server_default=sa.func.now()),
)
