"""docs/data-model.md matches the code it documents."""

from __future__ import annotations

from pathlib import Path

from insureops.schema.catalog import TABLES
from insureops.schema.reference import render_reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "data-model.md"


def test_docs_page_is_the_generated_reference_when_committed():
    assert DOC.read_text() == render_reference(), (
        "docs/data-model.md is stale: run `insureops schema docs > docs/data-model.md`")


def test_reference_lists_every_table_and_machine_when_rendered():
    text = render_reference()
    assert all(f"### {table.name}\n" in text for table in TABLES)
    assert "| closed | open |" in text and "| cancelled | active |" in text


def test_no_rule_is_said_twice_when_a_note_repeats_a_generated_rule():
    # Issue 11: policies.policy_number read "unique together with tenant_id; unique together
    # with tenant_id" (the catalog's note and the generated unique-together rule).
    rows = [line for line in render_reference().splitlines() if line.startswith("| ")]
    for row in rows:
        rules = [part.strip() for part in row.strip("|").split("|")[-1].split(";")]
        assert len(rules) == len(set(rules)), row
    assert "| policy_number | string(50) | yes |  | unique together with tenant_id |" in rows
