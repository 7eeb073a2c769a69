"""Saving, listing and updating prospects; owner isolation by (issuer, subject) (issue 15)."""

from __future__ import annotations

import pytest

from tests.platform.prospects.conftest import BASE, Extension


async def test_prospect_is_saved_with_derived_fields_when_posted(alice):
    body = await alice.saved(company_name="Acme Roofing LLC",
                             website="HTTPS://www.Acme-Roofing.com/about", email="Jane@Acme-Roofing.com", phone="+1 (555) 010-2000",
                             state="TX", naics="238160", source_url="https://maps.example/acme")
    assert body["domain"] == "acme-roofing.com"
    assert body["phone"] == "+1 (555) 010-2000" and body["phone_digits"] == "15550102000"
    assert body["email"] == "jane@acme-roofing.com"
    assert body["status"] == "new" and len(body["id"]) == 26
    assert body["created_at"] == body["updated_at"]


@pytest.mark.parametrize("fields", [
    {},
    {"company_name": ""},
    {"company_name": "A", "status": "won"},
    {"company_name": "A", "website": "http://"},
    {"company_name": "A", "email": "not-an-email"},
    {"company_name": "A", "domain": "forged.example"},
    {"company_name": "A", "phone_digits": "1"},
])
async def test_prospect_is_refused_when_fields_are_invalid_or_read_only(alice, fields):
    response = await alice.save(**fields)
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"


async def test_update_changes_only_the_fields_sent_when_patched(alice, clock):
    saved = await alice.saved(company_name="Acme", website="acme.com", phone="555-0100",
                              notes="call back")
    clock.advance(5)
    response = await alice.patch(saved["id"], status="contacted", website="https://acme.io",
                                 notes=None)
    assert response.status == 200
    body = await response.json()
    assert (body["status"], body["domain"], body["notes"]) == ("contacted", "acme.io", None)
    assert body["phone_digits"] == "5550100" and body["company_name"] == "Acme"
    assert body["updated_at"] > saved["updated_at"]


async def test_update_is_refused_when_company_name_or_status_is_null(alice):
    saved = await alice.saved(company_name="Acme")
    for field in ("company_name", "status"):
        response = await alice.patch(saved["id"], **{field: None})
        assert response.status == 400


async def test_other_owners_prospect_is_not_found_when_patched(alice, bob):
    saved = await alice.saved(company_name="Alice's lead")
    response = await bob.patch(saved["id"], status="lost")
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "not_found"
    assert (await bob.patch("01ARZ3NDEKTSV4RRFFQ69G5FAV", status="lost")).status == 404


async def test_list_shows_only_the_callers_prospects_when_another_user_saved_some(alice, bob):
    await alice.saved(company_name="Mine")
    await bob.saved(company_name="Bob's")
    listed = await (await alice.get("/")).json()
    assert [item["company_name"] for item in listed["items"]] == ["Mine"]


async def test_same_subject_is_another_owner_when_the_issuer_differs(
        make_client, jwt_settings, identity_provider, clock):
    """The owner is the pair (issuer, sub): a provider switch cannot hand one user's prospects
    to whoever holds the same `sub` at another issuer."""
    first = Extension(await make_client(jwt_settings, clock=clock), identity_provider, "sam")
    await first.accept_terms()
    await first.saved(company_name="Sam's lead")
    other_issuer = "https://other-idp.example/"
    moved = jwt_settings.model_copy(update={"jwt_issuer": other_issuer})
    second = Extension(await make_client(moved, clock=clock), identity_provider, "sam")
    token = identity_provider.token("sam", iss=other_issuer)
    response = await second.client.get(f"{BASE}/", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200
    assert (await response.json())["items"] == []


async def test_list_filters_by_status_and_state_when_asked(alice):
    await alice.saved(company_name="A", state="TX", status="qualified")
    await alice.saved(company_name="B", state="tx")
    await alice.saved(company_name="C", state="CA", status="qualified")

    def names(body):
        return sorted(item["company_name"] for item in body["items"])

    assert names(await (await alice.get("/", state="TX")).json()) == ["A", "B"]
    assert names(await (await alice.get("/", status="qualified")).json()) == ["A", "C"]
    assert names(await (await alice.get("/", status="qualified", state="TX")).json()) == ["A"]
    assert (await alice.get("/", status="won")).status == 400


@pytest.mark.parametrize("ordering", ["-created_at", "created_at", "company_name",
                                      "-company_name", "updated_at"])
async def test_pages_cover_every_prospect_once_in_order_when_following_cursors(alice, clock,
                                                                                 ordering):
    names = ["delta", "alpha", "echo", "charlie", "bravo"]
    for name in names:
        await alice.saved(company_name=name)
        clock.advance(1)
    seen, cursor = [], None
    while True:
        params = {"limit": 2, "ordering": ordering, **({"cursor": cursor} if cursor else {})}
        body = await (await alice.get("/", **params)).json()
        seen += [item["company_name"] for item in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    by_time = names if "created" in ordering or "updated" in ordering else sorted(names)
    assert seen == (by_time[::-1] if ordering.startswith("-") else by_time)


async def test_cursor_is_refused_when_mangled_or_used_with_another_ordering(alice):
    for name in ("a", "b", "c"):
        await alice.saved(company_name=name)
    cursor = (await (await alice.get("/", limit=1)).json())["next_cursor"]
    for params in ({"cursor": "garbage"}, {"cursor": cursor, "ordering": "company_name"}):
        response = await alice.get("/", **params)
        assert response.status == 400
        assert (await response.json())["error"]["details"][0]["field"] == "cursor"


async def test_patch_on_a_fixed_path_is_405_when_it_is_not_a_prospect_id(alice):
    response = await alice.client.patch(f"{BASE}/accept-terms/", json={}, headers=alice.headers)
    assert response.status == 405
