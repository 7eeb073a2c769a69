"""The alembic environment of the tenant data model (separate from the platform database's)."""
