"""The 35 tables of data model 2.2.0, in dependency order (a table follows those it references)."""

from __future__ import annotations

from types import MappingProxyType

from insureops.schema.catalog import claims, operations, parties, policies
from insureops.schema.model import Table

TABLES: tuple[Table, ...] = (
    *parties.TABLES, *operations.REINSURANCE, *policies.TABLES, *operations.BILLING,
    *operations.WORKFLOW, *claims.TABLES,
)
TABLES_BY_NAME: MappingProxyType[str, Table] = MappingProxyType({t.name: t for t in TABLES})
TABLES_BY_RESOURCE: MappingProxyType[str, Table] = MappingProxyType({t.resource: t for t in TABLES})


def table(name: str) -> Table:
    """The table called `name` (KeyError when there is none)."""
    return TABLES_BY_NAME[name]
