"""Every ruleset in examples/ (the market's appetites included) is in `insureops rules fmt`'s
canonical layout: `insureops rules fmt --check examples/` would list nothing. Answered from the
formatter's memo (tests/examples/canonical.py), so the check costs milliseconds."""

from __future__ import annotations

from insureops.dsl.formatter import format_source
from tests.examples.canonical import (
    ROOT,
    canonical_digest,
    digest,
    example_rulesets,
    is_canonical,
)

HINT = "run `insureops rules fmt examples/` (then `python -m tests.examples.canonical`)"


def test_every_example_ruleset_is_in_the_canonical_layout():
    rulesets = example_rulesets()
    assert len(rulesets) >= 160
    unformatted = [str(path.relative_to(ROOT)) for path in rulesets
                   if not is_canonical(path.read_text(encoding="utf-8"))]
    assert unformatted == [], HINT


def test_a_text_the_memo_does_not_know_is_formatted_for_real():
    padded = 'ruleset a.b\ninput c:  Any\ndefault decision accept\n'
    assert canonical_digest(padded) == digest(format_source(padded))
    assert not is_canonical(padded)
    assert is_canonical(format_source(padded))
