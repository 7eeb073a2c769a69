"""Every table accepts a minimal valid row on both engines."""

from __future__ import annotations

from insureops.schema.catalog import TABLES


def test_minimal_row_is_accepted_in_every_table_when_required_fields_are_given(rows):
    for table in TABLES:
        row_id = rows.make(table.name)
        assert rows.get(table.name, row_id) is not None, table.name
