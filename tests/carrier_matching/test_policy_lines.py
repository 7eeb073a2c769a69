"""The join of the market's ACORD line codes and a policy's `line_of_business` (issue 33): one
table (carrier_matching/lines.py), read both ways."""

from __future__ import annotations

import pytest

from insureops.carrier_matching.lines import (
    LINE_CODES,
    LINES,
    POLICY_LINES,
    expand_lines,
    lines_asked,
    lines_of_policy_line,
    policy_line_asked,
    policy_line_of,
)
from insureops.schema.enums import ENUMS


def test_every_line_names_a_policy_line_of_the_data_model():
    assert POLICY_LINES == ENUMS["lob"]
    assert {line.policy_line for line in LINES} <= set(ENUMS["lob"])


@pytest.mark.parametrize("code", sorted(LINE_CODES))
def test_a_code_is_among_the_codes_of_its_policy_line_when_read_back(code):
    assert code in lines_of_policy_line(policy_line_of(code))


@pytest.mark.parametrize("policy_line", ENUMS["lob"])
def test_every_code_of_a_policy_line_maps_back_to_it(policy_line):
    assert all(policy_line_of(code) == policy_line for code in lines_of_policy_line(policy_line))


def test_the_table_joins_the_lines_agents_expect_when_read_both_ways():
    assert lines_of_policy_line("liability") == ("CGL", "EO", "UMBRC", "LIQUR", "EPLI", "DO")
    assert lines_of_policy_line("workers_comp") == ("WORK",)
    assert lines_of_policy_line("auto") == ("AUTOB", "GARAG")
    assert lines_of_policy_line("property") == ("BOP", "PROPC")
    assert lines_of_policy_line("life") == () and lines_of_policy_line("nope") == ()
    assert policy_line_of("CGL") == "liability" and policy_line_of("wc") == "workers_comp"
    assert policy_line_of("INMRC") == "marine" and policy_line_of("nope") is None


def test_lines_asked_reads_a_policy_line_as_all_its_codes_and_a_code_as_itself():
    assert lines_asked("Liability ") == lines_of_policy_line("liability")
    assert lines_asked("CGL") == ("CGL",) and lines_asked("general liability") == ("CGL",)
    assert lines_asked("travel") == () and lines_asked("nope") is None


def test_expand_lines_flattens_in_order_once_each_and_leaves_unknown_values_to_the_field():
    assert expand_lines(["workers_comp", "CGL", "liability"]) == [
        "WORK", "CGL", "EO", "UMBRC", "LIQUR", "EPLI", "DO"]
    assert expand_lines(["NOPE", 5]) == ["NOPE", 5]
    assert expand_lines(None) is None and expand_lines("CGL") == "CGL"


def test_expand_lines_passes_values_that_are_not_strings_through_when_schemathesis_sends_them():
    # schemathesis: `"lines": [{}]` was a 500 (a dict is unhashable); now the field refuses it
    assert expand_lines([{}, "CGL", [], "CGL"]) == [{}, "CGL", []]


def test_expand_lines_refuses_a_policy_line_the_market_writes_nothing_for():
    with pytest.raises(ValueError, match="health is a policy line"):
        expand_lines(["CGL", "health"])


def test_policy_line_asked_reads_only_published_codes_and_keeps_everything_else():
    assert policy_line_asked("CGL") == "liability" and policy_line_asked("liability") == "liability"
    assert policy_line_asked("cgl") == "cgl" and policy_line_asked(None) is None
