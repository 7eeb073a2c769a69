"""The checker: types from the registry, names, outputs, tests; everything reported at once."""

from __future__ import annotations

from insureops.dsl.api import check_source
from insureops.dsl.functions import FUNCTIONS
from insureops.engine.ir.builtins import FUNCTIONS as ENGINE_FUNCTIONS
from insureops.schema.registry import default_registry

HEADER = "ruleset a\ninput business: Business\n"


def codes(source: str, registry=None) -> list[str]:
    return [d.code for d in check_source(source, registry=registry).diagnostics]


def test_spec_example_checks_clean(spec_source):
    report = check_source(spec_source)
    assert report.ok and report.diagnostics == ()


def test_every_error_is_reported_when_a_file_has_several():
    source = HEADER + ('rule r when business.anual_revenue > 1 and business.state > 5 '
                       'and nope(1) then score += "x" end\n')
    assert codes(source) == ["E104", "E200", "E101", "E200"]


def test_did_you_mean_names_the_field_when_misspelt():
    report = check_source(HEADER + "rule r when business.anual_revenue > 1 then stop end\n")
    assert report.errors[0].message == "unknown field `anual_revenue` on Business"
    assert report.errors[0].hint == "did you mean `annual_revenue`?"


def test_any_input_checks_no_fields_when_declared_any():
    assert codes("ruleset a\ninput x: Any\nrule r when x.whatever.deep > 1 then stop end\n") == []


def test_custom_registry_types_are_used_when_given():
    registry = default_registry().with_types({"Car": {
        "type": "object", "properties": {"make": {"type": "string"}},
        "additionalProperties": False}})
    source = "ruleset a\ninput car: Car\nrule r when car.make == 1 or car.model == \"x\" then stop end\n"
    assert codes(source, registry) == ["E200", "E104"]


def test_open_object_schema_allows_unknown_fields_when_additional_properties_allowed():
    registry = default_registry().with_types({"Open": {
        "type": "object", "properties": {"a": {"type": "number"}}}})
    assert codes("ruleset a\ninput o: Open\nrule r when o.b == 1 then stop end\n", registry) == []


def test_string_concatenation_and_date_difference_type_check_when_well_typed():
    source = HEADER + ('rule r when business.state + "x" == "CAx" and '
                       'days_between(business.founded_on, today()) > 365 and '
                       'today() - business.founded_on == 365 days and '
                       'business.founded_on + 1 year < today() then stop end\n')
    assert codes(source) == []


def test_outputs_of_tables_and_rules_are_readable_when_set_somewhere():
    source = HEADER + ('rule r when true then set level = 1 end\n'
                       'rule s when outputs.level == 1 and outputs.factor > 1 then stop end\n'
                       'table t hit first\n    | business.state | => factor |\n'
                       '    | -              | 1         |\nend\n')
    assert codes(source) == []


def test_expect_reads_result_names_when_in_a_test():
    source = HEADER + ('test "t"\ngiven business = {"state": "CA", "prior_claims": '
                       '[{"amount": 1}]}\nexpect decision == null and score == 0 and '
                       '"x" in tags and reasons == [] and fired == []\nend\n')
    assert codes(source) == []


def test_given_object_fields_are_checked_when_nested_in_lists():
    source = HEADER + ('test "t"\ngiven business = {"prior_claims": [{"amout": 1}]}\n'
                       'expect score == 0\nend\n')
    assert codes(source) == ["E104"]


def test_comprehension_variable_has_the_item_type_when_iterating_a_typed_list():
    source = HEADER + ('rule r when any(c in business.prior_claims where c.amount > "x") '
                       'then stop end\n')
    assert codes(source) == ["E200"]


def test_comprehension_variable_is_unknown_when_used_outside():
    source = HEADER + "rule r when any(c in business.prior_claims) and c.amount > 1 then stop end\n"
    assert codes(source) == ["E100"]


def test_function_table_is_the_engine_registry_when_compared():
    assert FUNCTIONS is ENGINE_FUNCTIONS  # one registry (tests/engine/test_builtin_registry.py)


def test_warnings_do_not_make_a_report_fail_when_there_is_no_error():
    report = check_source(HEADER + "rule r when business.employee_count > 3 and "
                          "business.employee_count < 2 then stop end\n")
    assert report.ok and [d.code for d in report.warnings] == ["W200"]


def test_durations_do_not_order_when_compared_with_less_than():
    assert codes(HEADER + "rule r when 1 month < 30 days then stop end\n") == ["E200"]


def test_one_argument_aggregate_needs_a_collection_when_called():
    source = HEADER + ('rule r when sum(business.annual_revenue) > 1 or max(business.state) == "x" '
                       'or sum(business.lines_of_business) > 0 or min(1, 2) == 1 then stop end\n')
    assert codes(source) == ["E202", "E202", "E202"]


def test_type_messages_read_as_english_when_the_type_starts_with_a_vowel_or_is_any():
    report = check_source("ruleset a\ninput x: Any\nrule r when x.n > 3 days then stop end\n"
                          "rule s when count(c in {\"a\": 1} where true) > 0 then stop end\n"
                          "rule t when abs({\"a\": 1}) > 1 then stop end\n")
    messages = [d.message for d in report.errors]
    assert messages == [
        "type mismatch: `>` cannot combine a value of any type with a duration",
        "`count` needs a list or set, not an object",
        "argument 1 of `abs` must be a number, not an object",
    ]
