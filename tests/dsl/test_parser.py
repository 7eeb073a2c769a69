"""The parser: the grammar accepts the language and reports syntax errors in words."""

from __future__ import annotations

from insureops.dsl.parser import grammar, keywords, parse_file


def messages(source: str) -> list[str]:
    _, diagnostics = parse_file(source)
    return [f"{d.code} {d.span.line}:{d.span.column} {d.message}" for d in diagnostics]


def test_spec_example_parses_without_diagnostics(spec_source):
    tree, diagnostics = parse_file(spec_source)
    assert diagnostics == []
    assert tree is not None


def test_grammar_is_built_once_when_used_twice():
    assert grammar() is grammar()


def test_missing_end_names_the_open_rule_when_the_file_ends():
    found = messages("ruleset a\nrule r\nwhen x > 1\nthen\n  stop\n")
    assert found == [("E002 5:7 expected `end` to close rule `r` opened at line 2, "
                      "found end of file")]


def test_missing_end_names_the_open_rule_when_the_next_rule_starts():
    found = messages("ruleset a\nrule r when x then stop\nrule s when y then stop end\n")
    assert found == ["E001 3:1 expected `end` to close rule `r` opened at line 2, found `rule`"]


def test_expected_expression_is_said_in_words_when_a_condition_is_missing():
    assert messages("ruleset a\nrule r when then stop end\n") == [
        "E001 2:13 expected an expression, found `then`"]


def test_single_equals_gets_a_hint_when_used_as_comparison():
    _, diagnostics = parse_file('ruleset a\nrule r when x = 1 then stop end\n')
    assert diagnostics[0].hint == "compare with `==`; `=` only names a const, output or given"


def test_every_broken_block_is_reported_when_several_blocks_have_errors():
    source = ("ruleset a\nrule r when x = 1 then stop end\n"
              "rule s when y then stop end\nrule t when z > then stop end\n")
    found = messages(source)
    assert [line.split()[1] for line in found] == ["2:15", "4:17"]


def test_keyword_is_reserved_when_used_as_a_name():
    assert messages("ruleset a\nconst end = 1\n") == [
        "E004 2:7 `end` is a reserved keyword, expected a name"]


def test_unterminated_string_is_reported_when_the_line_ends():
    assert messages('ruleset a\nconst A = "abc\n') == ["E003 2:11 unterminated string"]


def test_comparisons_do_not_chain_when_written_in_a_row():
    assert messages("ruleset a\nrule r when 1 < 2 < 3 then stop end\n")[0].startswith("E001 2:19")


def test_comment_is_ignored_when_it_follows_code():
    assert messages("ruleset a # the name\n# a line\nrule r when true then stop end # x\n") == []


def test_duration_unit_is_a_field_name_when_it_follows_a_dot():
    assert messages("ruleset a\nrule r when x.days > 90 days then stop end\n") == []


def test_keywords_include_every_word_of_the_grammar():
    assert {"rule", "when", "then", "end", "starts_with", "between", "score"} <= keywords()
    assert "days" not in keywords() and "count" not in keywords()
