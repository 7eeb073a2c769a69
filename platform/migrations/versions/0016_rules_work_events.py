"""Webhook events keyed by what caused them, so a relay may publish one twice harmlessly.

`webhook_events.dedupe_key` (nullable, unique): rules at work's relay publishes each event of
a tenant database's event outbox under the effect's ledger key; publishing it again after a
crash finds the key and writes nothing (docs/rules-at-work.md, "Webhook events"); and an
index on deliveries by endpoint and status, which counts an endpoint's waiting deliveries
against INSUREOPS_WEBHOOK_MAX_PENDING_PER_ENDPOINT at each publish.

Revision ID: 0016_rules_work_events
Revises: 0011_market_manifest_fields
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_rules_work_events"
down_revision = "0011_market_manifest_fields"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_events") as batch:
        batch.add_column(sa.Column("dedupe_key", sa.String(200), nullable=True))
        batch.create_unique_constraint("uq_webhook_events_dedupe_key", ["dedupe_key"])
    op.create_index("ix_webhook_deliveries_endpoint_id_status", "webhook_deliveries",
                    ["endpoint_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_endpoint_id_status", "webhook_deliveries")
    with op.batch_alter_table("webhook_events") as batch:
        batch.drop_constraint("uq_webhook_events_dedupe_key", type_="unique")
        batch.drop_column("dedupe_key")
