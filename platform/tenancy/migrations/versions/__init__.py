"""Alembic revisions of the tenant data model; each names the data-model version it produces."""
