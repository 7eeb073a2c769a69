"""One validation semantics on every path (issue 12): input data is converted and checked where
the rules read it, the same way untraced, explained, on the generated code and on the reference
interpreter (a NaN or an invalid date in an unread field passed untraced and failed explained);
and a field whose schema says `integer` refuses a number that is not whole (2.5 was accepted)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from engine_ir_builders import binary, comp, name, rule, ruleset, set_output, tag
from engine_ir_builders import call as ir_call
from engine_paths import AS_OF, every_path, same_everywhere

from insureops.dsl.api import compile_ruleset
from insureops.engine.inputs.jsonio import loads
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.limits import Limits
from insureops.schema.registry import default_registry

BUSINESS_SCHEMA = default_registry().get("Business")
TYPED = {"business": BUSINESS_SCHEMA}
SMALL = ruleset(rule("small", binary("<", name("business.employee_count"), 10), tag("small")),
                rule("state", binary("==", name("business.state"), "CA"), tag("ca")),
                inputs={"business": "Business"})
STATE = ruleset(rule("state", binary("==", name("business.state"), "CA"), tag("ca")),
                inputs={"business": "Business"})
CLAIMS = {"type": "object", "properties": {"claims": {"type": "array", "items": {
    "type": "object", "properties": {"count": {"anyOf": [{"type": "integer"},
                                                         {"type": "null"}]}}}}}}
CLAIM_COUNTS = ruleset(rule("r", True, set_output("v", name("business.claims"))),
                       inputs={"business": "Business"})


def _codes(rs, business: dict, schemas: dict | None = TYPED) -> set:
    return {found[0] if found[0] == "value" else found[1]
            for found in every_path(rs, {"business": business}, schemas).values()}


@pytest.mark.parametrize("count", [Decimal("2.5"), 2.5, Decimal("1E-1"), loads("7.01")])
def test_integer_field_refuses_a_fraction_when_typed_on_every_path(count):
    # issue 12: a typed Business.employee_count (schema `integer`) accepted 2.5
    assert _codes(SMALL, {"employee_count": count, "state": "CA"}) == {"invalid_input"}
    with pytest.raises(EvaluationError, match="not a whole number"):
        compile_ruleset("ruleset t\ninput business: Business\nrule r when "
                        "business.employee_count < 10 then stop end\n").evaluate(
            {"business": {"employee_count": count}}, as_of=AS_OF)


@pytest.mark.parametrize(("count", "written"), [
    (3, "3"), (Decimal(3), "3"), (Decimal("3.0"), "3.0"), (3.0, "3.0"), (Decimal("3E+1"), "30"),
    (loads("3"), "3"), (None, None)])
def test_integer_field_accepts_whole_numbers_when_typed_on_every_path(count, written):
    rs = ruleset(rule("r", True, set_output("v", name("business.employee_count"))),
                 inputs={"business": "Business"})
    found = same_everywhere(rs, {"business": {"employee_count": count}}, TYPED)
    assert found[0] == "value"
    assert loads(found[1])["v"] == (None if written is None else Decimal(written))
    assert found[1] == '{"v": ' + (written or "null") + "}"  # 3.0 keeps its written form


def test_fraction_is_accepted_when_the_input_is_untyped():
    assert _codes(SMALL, {"employee_count": Decimal("2.5")}, schemas=None) == {"value"}


def test_integer_items_refuse_fractions_through_any_of_when_read_on_every_path():
    schemas = {"business": CLAIMS}
    assert _codes(CLAIM_COUNTS, {"claims": [{"count": 2}, {"count": None}]}, schemas) == {
        "value"}
    assert _codes(CLAIM_COUNTS, {"claims": [{"count": 2}, {"count": 2.5}]}, schemas) == {
        "invalid_input"}


@pytest.mark.parametrize("junk", [
    {"founded_on": "not a date"}, {"founded_on": "2025-02-30"}, {"annual_revenue": float("nan")},
    {"payroll": float("inf")}, {"employee_count": Decimal("2.5")},
    {"prior_claims": [{"date": "yesterday", "amount": float("nan")}]}])
def test_unread_invalid_field_is_no_error_when_run_plainly_or_explained(junk):
    # issue 12: these passed untraced and failed with `explain`; STATE reads only the state
    business = {"state": "CA", **junk}
    assert same_everywhere(STATE, {"business": business}, TYPED)[5] == ("ca",)


@pytest.mark.parametrize("junk", [
    {"employee_count": float("nan")}, {"employee_count": Decimal("Infinity")},
    {"employee_count": Decimal("NaN")}, {"employee_count": Decimal("-sNaN")},
    {"employee_count": Decimal("1E+5000")}, {"state": object()}])
def test_read_invalid_field_is_invalid_input_when_run_plainly_or_explained(junk):
    assert _codes(SMALL, {"employee_count": 3, "state": "CA", **junk}) == {"invalid_input"}


FOUNDED = ruleset(rule("old", binary("<", name("business.founded_on"), date(2020, 1, 1)),
                        tag("old")), inputs={"business": "Business"})
RECENT_CLAIM = ruleset(rule("recent", comp("any", "c", name("business.prior_claims"),
                                           where=binary(">", name("c.date"), date(2025, 1, 1))),
                            tag("recent")), inputs={"business": "Business"})


@pytest.mark.parametrize("day", ["2019-W01-1", "20190101", "2019-1-1", "2019-02-30",
                                 "2019-01-0\u0661", " 2019-01-01", "2019-01-01T00:00"])
def test_read_date_that_is_not_yyyy_mm_dd_is_invalid_input_on_every_path(day):
    # `date.fromisoformat` alone also took ISO week dates (`2019-W01-1`, ten characters)
    assert _codes(FOUNDED, {"founded_on": day}) == {"invalid_input"}
    assert _codes(RECENT_CLAIM, {"prior_claims": [{"date": day, "amount": 1}]}) == {
        "invalid_input"}


def test_read_yyyy_mm_dd_date_is_a_date_on_every_path():
    assert same_everywhere(FOUNDED, {"business": {"founded_on": "2019-12-31"}}, TYPED)[5] == (
        "old",)
    assert same_everywhere(RECENT_CLAIM, {"business": {"prior_claims": [
        {"date": "2025-01-02"}]}}, TYPED)[5] == ("recent",)


EVENT = {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}
LATE = ruleset(rule("late", binary(">", name("e.at"), datetime(2026, 1, 1, tzinfo=UTC)),
                    tag("late")), inputs={"e": "Event"})


@pytest.mark.parametrize("moment", ["2026-W01-1T10:00", "20260101T1000", "2026-01-01x10:00",
                                    "2026-01-01T10", "2026-01-01T1000", "2026-01-32T10:00"])
def test_read_date_time_that_is_not_iso_is_invalid_input_on_every_path(moment):
    # `datetime.fromisoformat` alone took week dates, basic forms and any separator
    found = every_path(LATE, {"e": {"at": moment}}, {"e": EVENT})
    assert {outcome[1] for outcome in found.values()} == {"invalid_input"}, found


@pytest.mark.parametrize(("moment", "late"), [
    ("2026-01-02T10:00:00Z", True), ("2026-01-02 10:00", True), ("2025-12-31t23:59:59+00:00", False),
    ("2026-01-01T02:00:00+03:00", False), ("2026-01-02", True)])
def test_read_iso_date_time_is_a_datetime_on_every_path(moment, late):
    found = same_everywhere(LATE, {"e": {"at": moment}}, {"e": EVENT})
    assert found[5] == (("late",) if late else ())


CLAIM_COUNT = ruleset(rule("few", binary("<=", ir_call("len", name("business.prior_claims")), 2),
                           tag("few")), inputs={"business": "Business"})


@pytest.mark.parametrize("claims", [
    [{"date": "yesterday", "amount": float("nan")}], [float("inf"), None],
    [{"amount": Decimal("2.5"), "nested": [[1, 2], {"a": float("nan")}]}]])
@pytest.mark.parametrize("schemas", [TYPED, None])
def test_len_reads_no_item_when_given_a_list_on_every_path(claims, schemas):
    # issue 12: `len(prior_claims)` converted (and so checked) the whole list to read its length
    found = same_everywhere(CLAIM_COUNT, {"business": {"prior_claims": claims}}, schemas)
    assert found[5] == ("few",)


@pytest.mark.parametrize(("value", "kind"), [
    ("ab", "value"), ({"a": 1, "b": 2}, "value"), (7, "error"), ({"a": float("nan")}, "error")])
def test_len_still_reads_strings_and_objects_whole_when_not_given_a_list(value, kind):
    found = same_everywhere(CLAIM_COUNT, {"business": {"prior_claims": value}})
    assert found[0] == kind


def test_len_of_a_list_counts_its_length_not_its_items_against_the_input_limits():
    compiled = compile_ruleset("ruleset t\ninput r: Any\nrule r when len(r.claims) <= 2 then "
                               "stop end\n")
    deep = {"claims": [[[[[1]]]]]}  # the items are not read: not walked (issue 12)
    assert compiled.evaluate({"r": deep}, limits=Limits(max_input_depth=4)).fired == ("r",)
    big = {"claims": list(range(30))}  # a length costs no step and walks nothing
    assert compiled.evaluate({"r": big}, limits=Limits(max_input_nodes=20)).fired == ()