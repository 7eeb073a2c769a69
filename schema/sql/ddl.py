"""The DDL of data model 2.2.0 as text, for PostgreSQL or SQLite (`insureops schema ddl`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable, SetTableComment

from insureops.schema.model import DATA_MODEL_VERSION
from insureops.schema.sql.tables import VERSION_TABLE, build_metadata
from insureops.schema.sql.triggers import trigger_statements

DIALECTS = {"postgresql": postgresql.dialect, "sqlite": sqlite.dialect}


def ddl_statements(dialect_name: str, *, version_row: bool = True) -> list[str]:
    """Every statement that creates the data model on `dialect_name`, in execution order;
    the last one records the version unless `version_row` is false."""
    if dialect_name not in DIALECTS:
        raise ValueError(f"unsupported dialect {dialect_name!r}: use postgresql or sqlite")
    dialect = DIALECTS[dialect_name]()
    statements = []
    for table in build_metadata().sorted_tables:
        statements.append(str(CreateTable(table).compile(dialect=dialect)).strip())
        if table.comment and dialect.supports_comments and not dialect.inline_comments:
            statements.append(str(SetTableComment(table).compile(dialect=dialect)).strip())
        for index in sorted(table.indexes, key=lambda item: item.name or ""):
            statements.append(str(CreateIndex(index).compile(dialect=dialect)).strip())
    statements += trigger_statements(dialect_name)
    if version_row:
        statements.append(str(sa.insert(build_metadata().tables[VERSION_TABLE])
                              .values(version=DATA_MODEL_VERSION)
                              .compile(dialect=dialect, compile_kwargs={"literal_binds": True})))
    return statements


def render_ddl(dialect_name: str) -> str:
    """The statements of `ddl_statements`, each ended by `;` and a blank line."""
    header = f"-- insureops tenant data model {DATA_MODEL_VERSION} ({dialect_name})\n\n"
    return header + "".join(f"{statement};\n\n" for statement in ddl_statements(dialect_name))
