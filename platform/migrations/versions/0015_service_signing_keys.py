"""The service's own token-signing keys (the service as identity provider, issue 33).

Revision ID: 0015_service_signing_keys
Revises: 0014_case_sets
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_service_signing_keys"
down_revision = "0014_case_sets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "service_signing_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("algorithm", sa.String(16), nullable=False),
        sa.Column("private_key_encrypted", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("published_until", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("service_signing_keys")
