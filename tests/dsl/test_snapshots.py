"""Snapshots (syrupy): the IR of the specification's example and of a broken file's diagnostics.

Refresh with `pytest tests/dsl/test_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

import pprint
from pathlib import Path

from insureops.dsl.api import check_source

CASES = Path(__file__).parent / "cases"


def test_spec_example_ir_matches_its_snapshot(spec_source, snapshot):
    report = check_source(spec_source)
    assert pprint.pformat(report.ruleset, width=100) == snapshot


def test_spans_of_the_spec_example_match_their_snapshot(spec_source, snapshot):
    ruleset = check_source(spec_source).ruleset
    spans = {item.name: (item.span, item.name_span) for item in ruleset.items}
    spans["tests"] = [test.span for test in ruleset.tests]
    assert pprint.pformat(spans, width=100) == snapshot


def test_diagnostics_of_a_broken_file_match_their_snapshot(snapshot):
    source = (CASES / "e200_type_mismatch.rules").read_text()
    report = check_source(source, filename="e200.rules")
    assert [d.to_dict() for d in report.diagnostics] == snapshot
