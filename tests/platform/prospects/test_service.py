"""The fast tier of the prospects use cases: an in-memory fake of their store (fakes.py) and a
fixed clock; no database, no HTTP. Here are the rules: derived fields, the terms, how search
ranks and why a prospect is called a duplicate. The store's SQL, paging and the routes are the
database tier's (test_prospects.py, test_search_and_duplicates.py, test_terms.py)."""

from __future__ import annotations

import datetime

import pytest

from insureops.platform.prospects import service
from insureops.platform.prospects.errors import (
    ProspectNotFoundError,
    TermsNotAcceptedError,
    TermsVersionError,
)
from insureops.platform.prospects.payloads import DuplicateQuery, ProspectCreate, ProspectUpdate
from tests.platform.fakes import FakeUnitOfWork
from tests.platform.prospects.fakes import FakeProspects

TERMS = "2026-11-01"
START = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)
ALICE, BOB = ("https://idp.insureops.test/", "alice"), ("https://idp.insureops.test/", "bob")
UOW = FakeUnitOfWork()


class Book:
    """One store, its clock (a second per save) and the owners' calls."""

    def __init__(self) -> None:
        self.store = FakeProspects()
        self.now = START

    def tick(self) -> datetime.datetime:
        self.now += datetime.timedelta(seconds=1)
        return self.now

    async def accept(self, owner=ALICE, version=TERMS) -> service.Terms:
        return await service.accept_terms(UOW, owner, version, TERMS, self.tick(),
                                          store=self.store)

    async def save(self, owner=ALICE, owner_email=None, **fields):
        return await service.create(UOW, owner, ProspectCreate(**fields), self.tick(), TERMS,
                                    owner_email, store=self.store)

    async def search(self, q: str, owner=ALICE, limit=20):
        return await service.search(UOW, owner, q, limit, store=self.store)

    async def duplicates(self, owner=ALICE, **fields):
        return await service.duplicates(UOW, owner, DuplicateQuery(**fields), store=self.store)


@pytest.fixture
async def book() -> Book:
    book = Book()
    await book.accept()
    return book


@pytest.fixture
async def saved(book) -> dict:
    """Alice's prospects (the database tier's `book` fixture), by a short name."""
    return {
        "acme": await book.save(company_name="Acme Roofing LLC", website="https://acme.com",
                                email="info@acme.com", phone="(555) 010-2000"),
        "acme_notes": await book.save(company_name="Zenith Plumbing",
                                      notes="Referred by Acme's owner"),
        "bolt": await book.save(company_name="Bolt Electric", website="boltelectric.io",
                                email="ops@bolt.io", phone="+1 555 777 8888"),
        "acmeville": await book.save(company_name="Acmeville Bakery"),
    }


async def test_prospect_gets_its_derived_fields_when_saved(book):
    row = await book.save(company_name="Acme", website="https://www.Acme.com/about",
                          email="Info@ACME.com", phone="+1 (555) 010-2000")
    assert (row.domain, row.email, row.phone_digits) == ("acme.com", "info@acme.com",
                                                         "15550102000")
    assert row.status == "new" and row.created_at == row.updated_at


async def test_saving_is_refused_when_the_current_terms_are_not_accepted(book):
    with pytest.raises(TermsNotAcceptedError):
        await book.save(owner=BOB, company_name="Acme")
    await book.accept(owner=BOB)
    assert (await book.save(owner=BOB, company_name="Acme")).owner_subject == "bob"


async def test_saving_records_the_tokens_email_on_all_the_owners_prospects(book):
    first = await book.save(company_name="Acme")
    second = await book.save(company_name="Bolt", owner_email="alice@agency.test")
    assert first.owner_email == second.owner_email == "alice@agency.test"


async def test_update_changes_only_the_fields_sent_and_derives_again(book):
    row = await book.save(company_name="Acme", website="acme.com", phone="555 010")
    changed = await service.update(UOW, ALICE, row.id, ProspectUpdate(website="bolt.io"),
                                   book.tick(), TERMS, store=book.store)
    assert (changed.company_name, changed.domain, changed.phone_digits) == ("Acme", "bolt.io",
                                                                            "555010")
    assert changed.updated_at > changed.created_at


async def test_update_of_another_owners_prospect_is_not_found(book):
    row = await book.save(company_name="Acme")
    await book.accept(owner=BOB)
    with pytest.raises(ProspectNotFoundError):
        await service.update(UOW, BOB, row.id, ProspectUpdate(notes="mine"), book.tick(),
                             TERMS, store=book.store)


async def test_terms_keep_the_first_acceptance_time_when_accepted_again(book):
    first = await service.terms_status(UOW, ALICE, TERMS, store=book.store)
    again = await book.accept()
    assert first.accepted and again.accepted_at == first.accepted_at == START + \
        datetime.timedelta(seconds=1)


async def test_outdated_terms_version_is_refused_naming_the_current_one(book):
    with pytest.raises(TermsVersionError):
        await book.accept(version="2020-01-01")


async def test_terms_status_shows_the_latest_acceptance_when_the_version_moved_on(book):
    terms = await service.terms_status(UOW, ALICE, "2027-02-01", store=book.store)
    assert (terms.accepted, terms.version, terms.current_version) == (False, TERMS, "2027-02-01")


async def test_best_match_comes_first_when_several_prospects_match(book, saved):
    hits = await book.search("acme")
    assert [row.id for row, _, _ in hits] == [
        saved["acme"].id, saved["acmeville"].id, saved["acme_notes"].id]
    assert set(hits[0][2]) == {"name", "domain", "email"} and hits[-1][2] == ["notes"]
    assert hits[0][1] > hits[1][1] > hits[2][1]


@pytest.mark.parametrize(("q", "expected", "field"), [
    ("boltelectric.io", "bolt", "domain"),
    ("ops@bolt.io", "bolt", "email"),
    ("555-777-8888", "bolt", "phone"),
    ("7778888", "bolt", "phone"),
    ("plumbing", "acme_notes", "name"),
])
async def test_prospect_is_found_when_searched_by_any_of_its_fields(book, saved, q, expected,
                                                                    field):
    hits = await book.search(q)
    assert hits[0][0].id == saved[expected].id and field in hits[0][2]


async def test_search_finds_nothing_when_the_query_is_blank_or_another_users(book, saved):
    assert await book.search("   ") == []
    assert await book.search("acme", owner=BOB) == []


async def test_search_keeps_the_best_up_to_the_limit(book, saved):
    assert [row.id for row, _, _ in await book.search("acme", limit=1)] == [saved["acme"].id]


@pytest.mark.parametrize(("params", "reason"), [
    ({"website": "acme.com"}, "same_domain"),
    ({"email": "info@acme.com"}, "same_email"),
    ({"phone": "555 010 2000"}, "same_phone"),
    ({"name": "Acme Rofing"}, "similar_name"),
])
async def test_duplicate_names_its_reason_when_one_field_matches(book, saved, params, reason):
    found = await book.duplicates(**params)
    assert [match.prospect.id for match in found] == [saved["acme"].id]
    assert found[0].reasons == [reason]


async def test_duplicate_is_found_with_every_reason_when_fields_match(book, saved):
    [found] = await book.duplicates(name="ACME Roofing, Inc.", website="http://www.acme.com/x",
                                    email="INFO@acme.com", phone="555.010.2000")
    assert found.prospect.id == saved["acme"].id and found.name_similarity == 100.0
    assert set(found.reasons) == {"same_domain", "same_email", "same_phone", "similar_name"}


async def test_strongest_duplicate_comes_first_when_several_match(book, saved):
    await book.save(company_name="Acme Roofing", phone="555 999 0000")
    found = await book.duplicates(name="Acme Roofing", email="info@acme.com")
    assert found[0].prospect.id == saved["acme"].id  # e-mail and name beat name alone
    assert found[0].score > found[1].score and found[1].reasons == ["similar_name"]


async def test_no_duplicate_is_reported_when_names_only_resemble(book, saved):
    assert await book.duplicates(name="Apex Roofing Supplies") == []
    assert await book.duplicates(phone="2000") == []  # too few digits to call a duplicate


async def test_duplicates_are_only_the_callers(book, saved):
    await book.accept(owner=BOB)
    assert await book.duplicates(owner=BOB, website="acme.com", name="Acme Roofing") == []
