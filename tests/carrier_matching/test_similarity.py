"""Similar businesses: the shipped reference set, the ranking's properties and known queries."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from insureops.carrier_matching import STATE_CODES, naics_reference
from insureops.carrier_matching.similarity import (
    CLASS_DEPTH_SCORES,
    PROSPECT,
    REFERENCE,
    ReferenceBusiness,
    SimilarityQueryError,
    class_depth,
    load_reference,
    similar_businesses,
)

BASE = ReferenceBusiness(id="b-0", name="Base", naics="238220",
                         description="residential plumbing repair and drain cleaning", state="AZ",
                         city="Tucson", annual_revenue=1_000_000, employee_count=10,
                         years_in_business=10)


def ref(id: str, **changes) -> ReferenceBusiness:
    return replace(BASE, id=id, name=id, **changes)


def test_reference_set_covers_states_and_sectors_when_loaded():
    reference = load_reference()
    businesses = reference.businesses
    assert len(businesses) >= 300
    assert {b.state for b in businesses} == set(STATE_CODES)
    assert len({naics_reference.sector_code(b.naics) for b in businesses}) >= 18
    assert len({b.id for b in businesses}) == len(businesses)
    assert len({b.name for b in businesses}) == len(businesses)
    assert all(naics_reference.is_national_industry(b.naics) for b in businesses)
    assert all(b.annual_revenue > 0 and b.employee_count > 0 and b.years_in_business > 0
               for b in businesses)
    assert len({b.description for b in businesses}) >= 300


def test_deeper_naics_agreement_ranks_higher_when_all_else_is_equal():
    reference = [ref("d0", naics="541511"), ref("d2", naics="236118"), ref("d3", naics="238990"),
                 ref("d4", naics="238290"), ref("d5", naics="238221"), ref("d6", naics="238220")]
    # 238221 is no NAICS code, but shares five digits: depth is about the digits
    ranked = similar_businesses({"naics": "238220", "description": BASE.description}, reference)
    assert [s.business.id for s in ranked] == ["d6", "d5", "d4", "d3", "d2", "d0"]
    scores = [s.score for s in ranked]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    assert ranked[0].reasons[0] == "same NAICS industry 238220"
    assert ranked[2].reasons[0] == "same NAICS industry group 2382 (Building Equipment Contractors)"
    assert ranked[4].reasons[0] == "same NAICS sector 23 (Construction)"


def test_ranged_sector_counts_when_two_digit_prefixes_differ():
    ranked = similar_businesses({"naics": "311811"},
                                [ref("m", naics="332710"), ref("r", naics="445110")])
    assert [s.business.id for s in ranked] == ["m", "r"]
    assert ranked[0].reasons == ("same NAICS sector 31-33 (Manufacturing)",)
    assert ranked[1].score == 0


def test_description_decides_when_classes_are_equal():
    reference = [ref("pipes", description="we fix leaky pipes and water heaters"),
                 ref("hvac", description="furnace and air conditioning installation")]
    ranked = similar_businesses({"naics": "238220", "description": "leaky pipes fixed fast"},
                                reference)
    assert [s.business.id for s in ranked] == ["pipes", "hvac"]
    assert any(reason.startswith("description ") and reason.endswith("% alike")
               for reason in ranked[0].reasons)


def test_same_state_and_similar_size_rank_higher_when_class_and_words_tie():
    reference = [ref("far", state="ME", annual_revenue=90_000_000, employee_count=900),
                 ref("near", state="AZ", annual_revenue=1_100_000, employee_count=9)]
    ranked = similar_businesses({"naics": "238220", "state": "AZ", "annual_revenue": 1_000_000,
                                 "employee_count": 10}, reference)
    assert [s.business.id for s in ranked] == ["near", "far"]
    assert ranked[0].reasons == ("same NAICS industry 238220", "same state", "similar size")
    assert ranked[1].reasons == ("same NAICS industry 238220",)


def test_scores_are_bounded_and_ties_go_by_id_when_businesses_are_identical():
    reference = [ref("b"), ref("a"), ref("c")]
    ranked = similar_businesses({"naics": "238220", "description": BASE.description,
                                 "state": "AZ", "annual_revenue": 1_000_000}, reference)
    assert [s.business.id for s in ranked] == ["a", "b", "c"]
    assert all(s.score == 1.0 for s in ranked)
    for s in similar_businesses({"description": "tacos"}, load_reference(), limit=50):
        assert 0.0 <= s.score <= 1.0


def test_ranking_is_deterministic_when_run_twice():
    query = {"naics": "722511", "description": "Italian restaurant with a wine bar", "state": "OR"}
    assert similar_businesses(query, load_reference()) == similar_businesses(query, load_reference())


def test_limit_is_honoured_and_capped_when_asked_for():
    assert len(similar_businesses({"naics": "23"}, load_reference(), limit=3)) == 3
    assert len(similar_businesses({"naics": "23"}, load_reference(), limit=1000)) == 50


@pytest.mark.parametrize("query", [{}, {"description": "   "}, {"naics": "2382x"}, {"naics": "2"},
                                   {"naics": 238220}, {"state": "AZ"}])
def test_query_is_refused_when_it_has_nothing_to_compare(query):
    with pytest.raises(SimilarityQueryError):
        similar_businesses(query, [BASE])


def test_class_depth_counts_shared_digits_when_sectors_match():
    assert class_depth("238220", "238220") == 6
    assert class_depth("2382", "238220") == 4
    assert class_depth("238220", "236118") == 2
    assert class_depth("238220", "541511") == 0


KNOWN_QUERIES = {
    "plumber": {"naics": "238220", "description": "We fix leaky pipes and install water heaters",
                "state": "AZ", "annual_revenue": 900_000, "employee_count": 6},
    "restaurant": {"naics": "722511", "description": "Italian restaurant with a wine bar"},
    "software": {"description": "custom software development agency"},
    "nail salon": {"naics": "812113", "description": "nail salon", "state": "TX"},
    "trucking": {"naics": "484121", "description": "refrigerated trucking", "employee_count": 40},
}


@pytest.mark.parametrize("name", KNOWN_QUERIES)
def test_known_queries_rank_as_recorded_when_run_on_the_reference_set(name, snapshot):
    ranked = similar_businesses(KNOWN_QUERIES[name], load_reference(), limit=5)
    assert [{"id": s.business.id, "name": s.business.name, "naics": s.business.naics,
             "score": s.score, "reasons": list(s.reasons)} for s in ranked] == snapshot


def test_known_queries_find_their_own_industry_first_when_run():
    for query in KNOWN_QUERIES.values():
        top = similar_businesses(query, load_reference(), limit=3)
        if "naics" in query:
            assert all(s.business.naics == query["naics"] for s in top)
    software = similar_businesses(KNOWN_QUERIES["software"], load_reference(), limit=3)
    assert all(s.business.naics.startswith("5415") for s in software)


@settings(max_examples=60, deadline=None)
@given(naics=st.one_of(st.none(), st.sampled_from(sorted({b.naics for b in load_reference().businesses}))
                       .flatmap(lambda code: st.sampled_from([code[:n] for n in range(2, 7)]))),
       words=st.lists(st.sampled_from(["plumbing", "restaurant", "software", "trucking", "salon",
                                       "repair", "wine", "clinic", "farm", "roofing"]),
                      max_size=4),
       state=st.one_of(st.none(), st.sampled_from(sorted(STATE_CODES))),
       revenue=st.one_of(st.none(), st.integers(0, 10**9)))
def test_ranking_is_ordered_and_bounded_when_queries_vary(naics, words, state, revenue):
    query = {"naics": naics, "description": " ".join(words), "state": state,
             "annual_revenue": revenue}
    if not naics and not words:
        return
    ranked = similar_businesses(query, load_reference(), limit=50)
    keys = [(-s.score, s.business.id) for s in ranked]
    assert keys == sorted(keys)
    assert all(0.0 <= s.score <= 1.0 and all(0.0 <= v <= 1.0 for v in s.parts.values())
               for s in ranked)
    if naics:  # every business inside the query's class scores at least that level's part
        inside = [s for s in ranked if s.business.naics.startswith(naics)]
        assert all(s.parts["class"] >= CLASS_DEPTH_SCORES[len(naics)] for s in inside)
        outside = [s for s in ranked if not s.business.naics.startswith(naics)]
        assert all(s.parts["class"] < CLASS_DEPTH_SCORES[len(naics)] for s in outside)


def test_prospects_join_the_reference_set_with_their_source_when_added():
    prospect = ReferenceBusiness(id="p-1", name="Saved Plumber", naics="238220",
                                 description="plumbing repair, drains", state="AZ",
                                 source=PROSPECT)
    combined = load_reference().plus([prospect])
    assert len(combined) == len(load_reference()) + 1
    found = similar_businesses({"naics": "238220", "description": "plumbing repair",
                                "state": "AZ", "annual_revenue": 900_000}, combined, 50)
    mine = next(s for s in found if s.business.id == "p-1")
    assert mine.business.source == PROSPECT and "size" not in mine.parts  # size unknown
    assert set(mine.parts) == {"class", "description", "location"}
    assert {s.business.source for s in found} == {PROSPECT, REFERENCE}


def test_a_prospect_without_a_class_scores_no_class_when_the_query_has_one():
    bare = ReferenceBusiness(id="p-2", name="No Class", naics=None, description="",
                             state=None, source="prospect")
    [found] = similar_businesses({"naics": "238220"}, [bare], 1)
    assert found.parts == {"class": 0.0} and found.score == 0.0 and found.reasons == ()
