"""The tenant database's SQL side of the data model: SQLAlchemy Core tables, DDL, triggers.

The one place in the core allowed to import SQLAlchemy (the DDL is part of the data contract). It
never creates an engine, connects or runs alembic: platform.tenant_engine and
platform.tenant_schema do. Its write helpers run statements on a Connection the caller opened.
"""
