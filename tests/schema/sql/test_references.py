"""Every foreign key of the catalog acts on delete as the specification says (one case per key)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from insureops.schema.catalog import TABLES
from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.violations import translated_violations

REFERENCES = [(t.name, f.name, f.references.table, f.references.on_delete)
              for t in TABLES for f in t.fields if f.references]


def test_catalog_declares_the_specified_actions_when_listing_references():
    actions = {(table, column): action for table, column, _, action in REFERENCES}
    assert actions[("claims", "policy_id")] == "RESTRICT"
    assert actions[("claims", "insured_id")] == "RESTRICT"
    assert actions[("claims", "claimant_id")] == "SET NULL"
    assert actions[("policy_cessions", "agreement_id")] == "RESTRICT"
    assert actions[("policies", "client_id")] == "SET NULL"
    assert actions[("consents", "client_id")] == "CASCADE"
    assert len(REFERENCES) == 36


@pytest.mark.parametrize(("table_name", "column", "parent", "action"), REFERENCES,
                         ids=[f"{t}.{c}-{a}" for t, c, _, a in REFERENCES])
def test_deleting_the_parent_acts_as_specified_when_a_row_references_it(
        rows, table_name, column, parent, action):
    parent_id = rows.make(parent)
    child_id = rows.make(table_name, **{column: parent_id})
    parent_table = sa_table(parent)
    delete = sa.delete(parent_table).where(parent_table.c.id == parent_id)
    if action == "RESTRICT":
        with pytest.raises(ConstraintViolationError) as caught:
            with rows.connection.begin_nested(), translated_violations(rows.connection):
                rows.connection.execute(delete)
        assert (caught.value.field, caught.value.code) == (column, "referenced")
        assert rows.get(parent, parent_id) is not None
        return
    rows.connection.execute(delete)
    child = rows.get(table_name, child_id)
    if action == "CASCADE":
        assert child is None
    else:
        assert child is not None and getattr(child, column) is None
