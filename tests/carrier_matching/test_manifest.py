"""Reading carrier.toml: the model it gives, and each problem located by file, line and column."""

from __future__ import annotations

from decimal import Decimal

import pytest

from insureops.carrier_matching import MarketInvalidError, load_market
from insureops.carrier_matching.jurisdictions import STATE_CODES
from insureops.carrier_matching.manifest import MAX_MANIFEST_DEPTH, parse_manifest
from tests.carrier_matching.market_texts import MANIFEST, market_texts

PATH = "alpha/carrier.toml"


def codes_and_places(result) -> list[tuple[str, int | None, int | None]]:
    return [(p.code, p.line, p.column) for p in result.problems]


def test_manifest_gives_carrier_and_products_when_valid():
    result = parse_manifest(PATH, MANIFEST)
    assert result.problems == []
    carrier = result.carrier
    assert (carrier.id, carrier.naic_code, carrier.rating, carrier.admitted) == (
        "alpha", "11111", "A", True)
    assert carrier.states == {"CA", "TX"}
    gl, umbrella = result.products
    assert gl.id == "alpha/gl" and gl.line == "CGL" and gl.appetite == "alpha/electricians.rules"
    assert gl.states == {"CA", "TX"} and gl.max_limit == Decimal(1_000_000) and gl.admitted
    assert umbrella.max_aggregate is None and umbrella.active


def test_all_states_means_fifty_states_and_dc_when_written_as_all():
    text = MANIFEST.replace('states = ["CA", "TX"]', 'states = "all"')
    result = parse_manifest(PATH, text.replace('states = ["TX", "CA"]', 'states = "all"'))
    assert result.carrier.states == STATE_CODES and len(STATE_CODES) == 51


def test_unknown_line_is_located_with_a_hint_when_misspelt():
    result = parse_manifest(PATH, MANIFEST.replace('line = "CGL"', 'line = "CGLL"'))
    (problem,) = result.problems
    assert (problem.code, problem.line, problem.column) == ("unknown_line", 22, 1)
    assert 'did you mean "CGL"' in problem.message and "products[0].line" in problem.message


def test_unknown_state_is_reported_when_a_code_is_not_a_state():
    result = parse_manifest(PATH, MANIFEST.replace('["CA", "TX"]', '["CA", "TX", "PR", "XX"]'))
    assert codes_and_places(result) == [("unknown_state", 7, 1)]
    assert "PR, XX" in result.problems[0].message


def test_product_states_must_be_written_by_the_carrier_when_listed():
    text = MANIFEST.replace('strength = "standard"\n\n',
                            'strength = "standard"\nstates = ["NY"]\n\n', 1)
    result = parse_manifest(PATH, text)
    assert codes_and_places(result) == [("invalid_field", 29, 1)]
    assert "NY" in result.problems[0].message


def test_missing_and_unknown_fields_are_reported_when_the_carrier_table_is_wrong():
    text = MANIFEST.replace('rating = "A"\n', 'ratng = "A"\n')
    result = parse_manifest(PATH, text)
    assert sorted(codes_and_places(result)) == [("missing_field", 1, 1), ("unknown_field", 5, 1)]
    assert any("did you mean `rating`" in p.message for p in result.problems)
    assert result.carrier is None and result.products == []


def test_toml_syntax_error_is_located_when_the_text_is_not_toml():
    result = parse_manifest(PATH, MANIFEST.replace('name = "Alpha Mutual"', 'name = Alpha Mutual'))
    (problem,) = result.problems
    assert (problem.code, problem.line) == ("manifest_syntax", 3)
    assert problem.render().startswith("alpha/carrier.toml:3:")


def test_carrier_id_must_be_its_folder_when_they_differ():
    result = parse_manifest("beta/carrier.toml", MANIFEST)
    assert [p.code for p in result.problems] == ["invalid_field"]
    assert '"alpha" must be the folder\'s name "beta"' in result.problems[0].message


def test_rating_and_naic_code_are_checked_when_malformed():
    text = MANIFEST.replace('"11111"', '"1111"').replace('rating = "A"', 'rating = "AAA"')
    result = parse_manifest(PATH, text)
    assert codes_and_places(result) == [("invalid_field", 4, 1), ("invalid_field", 5, 1)]


def test_duplicate_product_ids_are_reported_when_a_carrier_repeats_one():
    result = parse_manifest(PATH, MANIFEST.replace('id = "umbrella"', 'id = "gl"'))
    assert codes_and_places(result) == [("duplicate_id", 31, 1)]
    assert len(result.products) == 1


# issue 28, part 6: a manifest nested 100,000 deep made tomllib raise RecursionError, a traceback
# from `market check` and on the service's market load. The nesting is now bounded first.
DEEP = 100_000


@pytest.mark.parametrize("value", [
    "[" * DEEP + "]" * DEEP,
    "{ a = " * DEEP + "1" + " }" * DEEP,
    "[" * (MAX_MANIFEST_DEPTH + 1) + "]" * (MAX_MANIFEST_DEPTH + 1),
])
def test_a_manifest_nested_too_deeply_is_one_located_problem_when_read(value):
    result = parse_manifest(PATH, MANIFEST.replace('rating = "A"', f"rating = {value}"))
    (problem,) = result.problems
    assert (problem.code, problem.line) == ("manifest_too_deep", 5)
    assert f"nested deeper than {MAX_MANIFEST_DEPTH} levels" in problem.message
    assert result.carrier is None


def test_brackets_in_strings_and_comments_do_not_count_when_nesting_is_bounded():
    many = "[{" * DEEP
    text = MANIFEST.replace(
        'description = "General liability for electricians."',
        f'description = "{many}"\n# {many}\n'
        f"note_a = '{many}'\nnote_b = \"\"\"{many}\n\\\"\"\"\"\"\"\nnote_c = '''{many}''''\n"
        f"deep = {'[' * MAX_MANIFEST_DEPTH}{']' * MAX_MANIFEST_DEPTH}")
    result = parse_manifest(PATH, text)
    assert sorted({problem.code for problem in result.problems}) == ["unknown_field"]
    assert len(result.problems) == 4  # note_a, note_b, note_c, deep: read, then refused


def test_the_market_load_refuses_a_deep_manifest_with_its_problem_when_loaded():
    texts = market_texts()
    texts["alpha/carrier.toml"] = MANIFEST.replace('rating = "A"',
                                                   "rating = " + "[" * DEEP + "]" * DEEP)
    with pytest.raises(MarketInvalidError) as refused:
        load_market(texts)
    assert [problem.code for problem in refused.value.problems] == ["manifest_too_deep"]
