"""The canonical printer (dsl/formatter.py): idempotent on every example ruleset, only
whitespace changes, comments kept, and the layout it decides."""

from __future__ import annotations

from pathlib import Path

import pytest

from insureops.dsl.api import check_source
from insureops.dsl.formatter import UnformattableError, format_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.rules"))


def test_examples_include_the_market():
    assert len(EXAMPLES) > 100
    assert any("market" in path.parts for path in EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_is_idempotent_and_keeps_the_ruleset_when_run_on_an_example(path):
    source = path.read_text()
    once = format_source(source)  # raises unless the tokens and comments are the same
    assert format_source(once) == once


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.rules")), ids=lambda p: p.name)
def test_formatting_keeps_what_the_checker_finds_when_run_on_an_example(path):
    source = path.read_text()
    once = format_source(source)
    found = [(d.code, d.span.line if d.span else None) for d in check_source(once).diagnostics]
    assert found == [(d.code, d.span.line if d.span else None)
                     for d in check_source(source).diagnostics]
    assert check_source(once).ruleset.name == check_source(source).ruleset.name


MESSY = """\
# header comment
ruleset  sample.rules   "Sample"
version 2
input business:Business
default decision refer


const LIMITS = {"a":1,"b":2}   # trailing
const CODES = ["x",
  "y"]

# about the rule
rule r "R" priority -5 when business.state=="CA"and not(x in CODES) then score+=len( business.naics )*2
 set out=- 1
   decline "No {business.state}"
  end
table t hit first
| business.state|=> rate|# header note
  # between rows
 |"CA"|   1.2   |
| - | between 1 and 2|
end
test "t"
given business = {"state": "CA",
  "naics": "1"}
    as of 2026-01-01
expect decision=="refer"
  and score == 0
end
# the end
"""

CANONICAL = """\
# header comment
ruleset sample.rules "Sample"
version 2
input business: Business
default decision refer

const LIMITS = {"a": 1, "b": 2}  # trailing
const CODES = ["x",
               "y"]

# about the rule
rule r "R" priority -5
when business.state == "CA" and not (x in CODES)
then
    score += len(business.naics) * 2
    set out = -1
    decline "No {business.state}"
end

table t hit first
    | business.state | => rate         |  # header note
    # between rows
    | "CA"           | 1.2             |
    | -              | between 1 and 2 |
end

test "t"
given business = {"state": "CA",
                  "naics": "1"}
      as of 2026-01-01
expect decision == "refer"
       and score == 0
end
# the end
"""


def test_layout_is_canonical_when_the_input_is_messy():
    assert format_source(MESSY) == CANONICAL
    assert format_source(CANONICAL) == CANONICAL


def test_a_rule_condition_continues_one_level_in_when_it_spans_lines():
    source = ("ruleset a\ninput b: Business\nrule r\nwhen\n  b.state == \"CA\"\n"
              "      or b.state == \"TX\"\nthen\n    stop\nend\n")
    assert format_source(source) == (
        "ruleset a\ninput b: Business\n\nrule r\nwhen\n    b.state == \"CA\"\n"
        "    or b.state == \"TX\"\nthen\n    stop\nend\n")


def test_hanging_brackets_indent_one_level_from_their_line():
    source = "ruleset a\nconst XS = [\n1,\n  2,\n]\n"
    assert format_source(source) == "ruleset a\nconst XS = [\n    1,\n    2,\n]\n"


def test_formatting_refuses_a_ruleset_with_syntax_errors():
    with pytest.raises(UnformattableError, match="line 2") as raised:
        format_source("ruleset a\nrule r when then end\n")
    assert raised.value.diagnostics[0].code == "E001"


def test_formatting_keeps_deep_nesting_without_recursion_when_brackets_nest_thousands_deep():
    source = "ruleset a\nconst X = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    assert format_source(source) == source


def test_windows_line_endings_become_newlines_when_formatted():
    assert format_source("ruleset a\r\n# c\r\nconst X = 1  # t\r\n") == (
        "ruleset a\n# c\nconst X = 1  # t\n")
