"""The alembic environment and revisions of the tenant data model, run by platform.tenancy.data_model."""
