"""Prospect search (ranked) and the duplicate check (with reasons, strongest first) through
HTTP on both engines: the routes and the store's queries. How search ranks and why a prospect
is a duplicate (one reason per field, the strongest first, names that only resemble) are the
use cases' rules, tested without a database in test_service.py."""

from __future__ import annotations

import pytest


@pytest.fixture
async def book(alice):
    """Alice's saved prospects, by a short name."""
    rows = {
        "acme": await alice.saved(company_name="Acme Roofing LLC", website="https://acme.com",
                                  email="info@acme.com", phone="(555) 010-2000"),
        "acme_notes": await alice.saved(company_name="Zenith Plumbing",
                                        notes="Referred by Acme's owner"),
        "bolt": await alice.saved(company_name="Bolt Electric", website="boltelectric.io",
                                  email="ops@bolt.io", phone="+1 555 777 8888"),
        "acmeville": await alice.saved(company_name="Acmeville Bakery"),
    }
    return rows


async def search(user, q: str, **params) -> list[dict]:
    response = await user.get("/search-prospects/", q=q, **params)
    assert response.status == 200, await response.text()
    return (await response.json())["items"]


async def test_best_match_comes_first_when_several_prospects_match(alice, book):
    hits = await search(alice, "acme")
    assert [hit["prospect"]["id"] for hit in hits] == [
        book["acme"]["id"], book["acmeville"]["id"], book["acme_notes"]["id"]]
    assert set(hits[0]["matched"]) == {"name", "domain", "email"}
    assert hits[-1]["matched"] == ["notes"]
    assert hits[0]["score"] > hits[1]["score"] > hits[2]["score"]


async def test_each_field_makes_a_prospect_a_search_candidate_when_it_holds_the_text(
        alice, book):
    for q, expected, field in (("boltelectric.io", "bolt", "domain"),
                               ("ops@bolt.io", "bolt", "email"),
                               ("555-777-8888", "bolt", "phone"), ("7778888", "bolt", "phone"),
                               ("plumbing", "acme_notes", "name")):
        hits = await search(alice, q)
        assert hits[0]["prospect"]["id"] == book[expected]["id"], q
        assert field in hits[0]["matched"], q


async def test_search_finds_nothing_when_the_prospects_are_another_users(alice, book, bob):
    assert await search(bob, "acme") == []


async def test_search_treats_wildcards_literally_when_the_query_holds_them(alice, book):
    assert await search(alice, "%") == []
    assert await search(alice, "_") == []


async def test_search_is_refused_when_q_is_missing(alice):
    assert (await alice.get("/search-prospects/")).status == 400


async def duplicates(user, **params) -> list[dict]:
    response = await user.get("/check-duplicate/", **params)
    assert response.status == 200, await response.text()
    return (await response.json())["duplicates"]


async def test_duplicate_is_found_with_every_reason_when_fields_match(alice, book):
    found = await duplicates(alice, name="ACME Roofing, Inc.", website="http://www.acme.com/x",
                             email="INFO@acme.com", phone="555.010.2000")
    assert found[0]["prospect"]["id"] == book["acme"]["id"]
    assert set(found[0]["reasons"]) == {"same_domain", "same_email", "same_phone",
                                        "similar_name"}
    assert found[0]["name_similarity"] == 100.0
    assert all(item["prospect"]["id"] != book["bolt"]["id"] for item in found)


async def test_duplicates_are_only_the_callers_when_another_user_has_the_same_prospect(
        alice, book, bob):
    assert await duplicates(bob, website="acme.com", name="Acme Roofing") == []


async def test_duplicate_check_is_refused_when_nothing_is_given(alice):
    response = await alice.get("/check-duplicate/")
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"
