"""The tenant database's SQL side of the data model: SQLAlchemy Core tables, triggers, apply.

The one place in the core allowed to import SQLAlchemy and alembic (the DDL is part of the data
contract); importing it does no I/O.
"""
