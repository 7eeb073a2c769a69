"""Data model 2.2.0: the baseline (every table, constraint and trigger of the specification).

Revision ID: v2_2_0
Revises:
Create Date: 2026-11-22

A fresh database is built by `apply` from the current metadata and stamped at the head revision
(alembic's "building an up-to-date database from scratch"); this revision does the same when a
database is upgraded from nothing. Later data-model versions add revisions with explicit
operations (op.add_column, ...) that move a database at the previous version in place.
"""

from __future__ import annotations

from alembic import op

from insureops.schema.sql.creation import create_data_model, drop_data_model

revision = "v2_2_0"
down_revision = None
branch_labels = None
depends_on = None
data_model_version = "2.2.0"


def upgrade() -> None:
    create_data_model(op.get_bind(), version=data_model_version)


def downgrade() -> None:
    drop_data_model(op.get_bind())
