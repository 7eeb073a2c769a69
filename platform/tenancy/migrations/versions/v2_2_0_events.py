"""The service's event outbox in a tenant database (data model 2.2.0 unchanged).

Revision ID: v2_2_0_events
Revises: v2_2_0_outbox
Create Date: 2026-11-27

One row per webhook event an effect calls for (decision.made, task.opened), written in the
effect's own transaction and keyed by the effect's ledger key, so the event exists iff the
effect does; a relay publishes it to the platform database (idempotently, on that key) and
then deletes it (docs/rules-at-work.md, "Webhook events").
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v2_2_0_events"
down_revision = "v2_2_0_outbox"
branch_labels = None
depends_on = None
data_model_version = "2.2.0"


def upgrade() -> None:
    op.create_table(
        "insureops_event_outbox",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(26), nullable=False),
        sa.Column("event_key", sa.String(200), nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.UniqueConstraint("event_key", name="uq_insureops_event_outbox_key"),
    )
    op.create_index("ix_insureops_event_outbox_tenant", "insureops_event_outbox",
                    ["tenant_id", "id"])


def downgrade() -> None:
    op.drop_table("insureops_event_outbox")
