"""IncrementalChecker (dsl/incremental.py): exactly check_parsed's report, edit after edit,
with the parse of unchanged items reused."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from insureops.dsl.api import check_parsed
from insureops.dsl.incremental import IncrementalChecker
from insureops.engine import ir

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [*sorted((ROOT / "examples").glob("*.rules")),
            ROOT / "examples" / "market" / "apex-workforce" / "staffing-epli.rules"]
EDITS = ["x", " ", "\n", ")", '"', "=", "1", "#", "rule", "end\n"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_reports_are_check_parsed_reports_when_the_text_is_edited_at_random(path):
    rng = random.Random(path.name)
    checker = IncrementalChecker()
    source = path.read_text()
    for _ in range(12):
        _, expected = check_parsed(source)
        _, found = checker.check(source)
        assert found == expected  # the IR and every diagnostic (with its span)
        assert spans(found.ruleset) == spans(expected.ruleset)  # IR spans: compare=False
        at = rng.randrange(len(source))
        if rng.random() < 0.5:
            source = source[:at] + rng.choice(EDITS) + source[at:]
        else:
            source = source[:at] + source[at + rng.randrange(1, 4):]


def spans(node: object) -> list:
    """Every Span in an IR tree, in field order (the IR's equality leaves them out)."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ir.Span):
            found.append(item)
        elif isinstance(item, tuple):
            stack.extend(reversed(item))
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(reversed([getattr(item, f.name) for f in dataclasses.fields(item)]))
    return found


def test_only_the_edited_item_is_parsed_again_when_one_rule_changes():
    checker = IncrementalChecker()
    source = (ROOT / "examples" / "claims_triage.rules").read_text()
    checker.check(source)
    assert checker.reused == 0 and checker.pieces > 10
    edited = source.replace("score += 20", "score += 21")
    tree, report = checker.check(edited)
    assert report.ok and tree is not None
    assert checker.reused == checker.pieces - 1  # every other piece came from memory
    expected = check_parsed(edited)[1]
    assert report == expected and spans(report.ruleset) == spans(expected.ruleset)
    assert len(spans(report.ruleset)) > 300


def test_a_syntax_error_gives_the_full_parse_and_its_recovery():
    checker = IncrementalChecker()
    source = (ROOT / "examples" / "claims_triage.rules").read_text()
    broken = source.replace("then\n    score += 20", "then\n    score +=").replace(
        "when claim.reported_loss_amount >= LARGE_LOSS", "when claim.reported_loss_amount >=")
    tree, report = checker.check(broken)
    assert tree is None and report == check_parsed(broken)[1]
    assert [d.code for d in report.diagnostics] == ["E001", "E001"]
