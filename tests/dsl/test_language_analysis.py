"""The language analysis for editors (dsl/analysis.py, symbols.py, completion.py,
highlighting.py): definitions, references, rename, hover, outline, completion, tokens."""

from __future__ import annotations

import pytest

from insureops.dsl.analysis import MAX_NESTING, MAX_SOURCE_CHARS, RenameError, analyse
from insureops.dsl.api import check_source
from insureops.dsl.completion import complete
from insureops.dsl.highlighting import semantic_tokens

SOURCE = """\
ruleset sample
input business: Business
default decision refer

const LIMIT = 1_000
const BIG = LIMIT * 10

rule claims "Claims" priority 5
when count(c in business.prior_claims where c.amount > LIMIT) > 2
    and any(c in business.prior_claims where c.amount > BIG)
then
    set band = "high"
    refer "Too many claims over {LIMIT}"
end

table bands hit first
    | business.annual_revenue | => tier |
    | > BIG                   | "large" |
    | -                       | "small" |
end

rule small
when outputs.tier == "small" and outputs.band is null
then
    accept "Small"
end

test "claims"
given business = {"prior_claims": [{"amount": 5000}, {"amount": 6000}, {"amount": 7000}]}
expect decision == "refer" and fired == ["claims", "bands"] and outputs.band == "high"
end
"""


def offset(needle: str, shift: int = 0, nth: int = 0) -> int:
    found = -1
    for _ in range(nth + 1):
        found = SOURCE.index(needle, found + 1)
    return found + shift


def texts(spans) -> list[str]:
    return [SOURCE[span.start:span.end] for span in spans]


@pytest.fixture(scope="module")
def analysis():
    return analyse(SOURCE)


def test_analysis_reports_the_checkers_diagnostics_when_the_text_has_errors():
    broken = SOURCE.replace("c.amount > BIG", "c.amout > BIGG")
    assert analyse(broken).diagnostics == check_source(broken).diagnostics
    assert [d.code for d in analyse(broken).diagnostics] == ["E104", "E100"]


def test_every_occurrence_spans_exactly_its_name(analysis):
    occurrences = analysis.index.occurrences
    assert {o.kind for o in occurrences} >= {"input", "const", "output", "rule", "table",
                                             "variable", "field", "function", "result", "type"}
    for occurrence in occurrences:
        assert SOURCE[occurrence.span.start:occurrence.span.end] == occurrence.name
        line = SOURCE.splitlines()[occurrence.span.line - 1]
        column = occurrence.span.column - 1
        assert line[column:column + len(occurrence.name)] == occurrence.name


def test_definition_and_references_of_a_const_when_used_in_rules_tables_and_messages(analysis):
    at_use = offset("LIMIT)", 2)
    [definition] = analysis.definitions(at_use)
    assert definition.start == offset("LIMIT = ")
    references = analysis.references(at_use)
    assert len(references) == 4  # the const, BIG's value, the condition, the message
    assert {span.line for span in references} == {5, 6, 9, 13}
    assert len(analysis.references(at_use, include_declaration=False)) == 3


def test_output_definitions_are_every_set_and_table_column(analysis):
    assert analysis.definitions(offset("outputs.tier", len("outputs."))) == [
        next(o.span for o in analysis.index.occurrences if o.kind == "output" and o.definition
             and o.name == "tier")]
    assert texts(analysis.references(offset("band =")))[0] == "band"
    assert [span.line for span in analysis.references(offset("band ="))] == [12, 23, 30]


def test_references_of_a_table_are_the_uses_of_its_outputs(analysis):
    found = analysis.references(offset("bands hit"))
    assert [span.line for span in found] == [16, 30, 23]  # the table, `fired`, outputs.tier


def test_comprehension_variables_are_scoped_to_their_comprehension(analysis):
    first = analysis.references(offset("c.amount > LIMIT"))
    assert [span.line for span in first] == [9, 9]
    assert {span.start for span in first}.isdisjoint(
        {span.start for span in analysis.references(offset("c.amount > BIG"))})


def test_rename_edits_every_occurrence_when_the_new_name_is_free(analysis):
    edits = analysis.rename(offset("tier |"), "segment")
    assert [edit.span.line for edit in edits] == [17, 23] and {e.text for e in edits} == {
        "segment"}
    renamed = rename_all(SOURCE, analysis.rename(offset("claims \""), "many_claims"))
    assert 'fired == ["many_claims", "bands"]' in renamed
    assert check_source(renamed).ok


@pytest.mark.parametrize(("new_name", "message"), [
    ("when", "reserved keyword"), ("2x", "not a name"), ("BIG", "already exists")])
def test_rename_refuses_when_the_name_is_not_usable(analysis, new_name, message):
    with pytest.raises(RenameError, match=message):
        analysis.rename(offset("LIMIT = "), new_name)


def test_rename_refuses_a_field_or_a_built_in(analysis):
    assert analysis.rename_target(offset("prior_claims")) is None
    with pytest.raises(RenameError):
        analysis.rename(offset("count("), "tally")


def test_hover_shows_types_and_docs(analysis):
    assert "business.prior_claims: list[" in analysis.hover(offset("prior_claims")).markdown
    assert "amount: number" in analysis.hover(offset("amount > LIMIT")).markdown
    assert "c: Business.prior_claims item" in analysis.hover(offset("c in")).markdown
    const = analysis.hover(offset("BIG =")).markdown
    assert "const BIG = LIMIT * 10" in const and "type: `number`" in const
    assert "count(" in analysis.hover(offset("count(")).markdown
    assert "table `bands`" in analysis.hover(offset("outputs.tier", 9)).markdown
    assert "input business: Business" in analysis.hover(offset("business.annual")).markdown
    assert "table bands hit first" in analysis.hover(offset("bands hit")).markdown
    assert "In a test's `expect`" in analysis.hover(offset("decision ==")).markdown
    assert analysis.hover(offset("then")) is None


def test_outline_lists_declarations_in_source_order(analysis):
    outline = analysis.outline()
    assert [(item.kind, item.name) for item in outline] == [
        ("input", "business"), ("const", "LIMIT"), ("const", "BIG"), ("rule", "claims"),
        ("table", "bands"), ("rule", "small"), ("test", "claims")]
    assert [child.name for child in outline[3].children] == ["band"]
    assert [child.name for child in outline[4].children] == ["tier"]


def test_completion_offers_fields_of_a_path_by_its_type_when_the_text_does_not_parse(analysis):
    typing = SOURCE.replace("c.amount > BIG", "c.")
    at = typing.index("where c.)") + len("where c.")
    labels = {item.label: item for item in complete(typing, at, analysis)}
    assert {"amount", "date"} <= set(labels) and labels["amount"].detail == "number"
    typing = SOURCE.replace("business.annual_revenue |", "business.requests[0]. |")
    item = {i.label for i in complete(typing, typing.index("[0]. |") + 4, analysis)}
    assert "line" in item  # the fields of one request
    typing = SOURCE.replace("outputs.tier ==", "outputs. ==")
    assert {i.label for i in complete(typing, typing.index("outputs.") + 8, analysis)} == {
        "band", "tier"}


def test_completion_offers_names_types_and_words_by_context(analysis):
    names = {item.label: item.kind for item in complete(SOURCE, offset("LIMIT) > 2"), analysis)}
    assert names["LIMIT"] == "const" and names["business"] == "input"
    assert names["days_between"] == "function" and names["when"] == "keyword"
    assert "score" not in names or names["score"] == "keyword"
    in_test = {item.label for item in complete(SOURCE, offset("decision =="), analysis)}
    assert {"fired", "reasons"} <= in_test and "business" not in in_test
    text = "ruleset a\ninput b: Cl"
    assert "Claim" in {item.label for item in complete(text, len(text), analysis)}
    text = "ruleset a\ntable t hit "
    assert [item.label for item in complete(text, len(text))] == ["first", "unique", "collect"]
    assert complete(SOURCE, offset("Too many"), analysis) == []  # inside a string
    assert {i.label for i in complete(SOURCE, offset("{LIMIT}", 1), analysis)} >= {"LIMIT"}


def test_semantic_tokens_classify_names_by_the_analysis(analysis):
    lines = SOURCE.splitlines()
    found = {(lines[line - 1][column - 1:column - 1 + length], kind, modifiers)
             for line, column, length, kind, modifiers in semantic_tokens(SOURCE, analysis)}
    assert ("LIMIT", "variable", frozenset({"readonly", "declaration"})) in found
    assert ("business", "parameter", frozenset()) in found
    assert ("amount", "property", frozenset()) in found
    assert ("count", "function", frozenset({"defaultLibrary"})) in found
    assert ("refer", "enumMember", frozenset()) in found
    assert ('"Too many claims over {LIMIT}"', "string", frozenset()) in found
    # without an analysis (a text that does not parse), the words still get their kinds
    plain = {(lines[line - 1][column - 1:column - 1 + length], kind)
             for line, column, length, kind, _ in semantic_tokens(SOURCE)}
    assert ("rule", "keyword") in plain and ("claims", "function") in plain


def test_analysis_refuses_text_over_its_budget_without_checking():
    huge = analyse("ruleset a\n#" + "x" * MAX_SOURCE_CHARS)
    assert huge.notice and "characters" in huge.notice and huge.index is None
    deep = analyse("ruleset a\nconst X = " + "(" * (MAX_NESTING + 1) + "1" +
                   ")" * (MAX_NESTING + 1) + "\n")
    assert deep.notice and "nest" in deep.notice and deep.diagnostics == ()


def rename_all(text: str, edits) -> str:
    for edit in sorted(edits, key=lambda e: e.span.start, reverse=True):
        text = text[:edit.span.start] + edit.text + text[edit.span.end:]
    return text
