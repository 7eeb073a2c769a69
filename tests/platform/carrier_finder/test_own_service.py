"""The fast tier of a workspace's own carriers and products: the use cases and the market view
on in-memory fakes of their ports (fakes.py), a fixed clock; no database, no HTTP. Here are the
rules: ids taken, defaults, what may be a product's appetite, limits and states, what each rule
state makes of a product, and what the view matches. The SQL, the routes' shapes and codes and
the workspace isolation are the database tier's (test_own_market.py, tests/platform/security)."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from insureops.carrier_matching.market import Carrier, Market
from insureops.platform.carrier_finder.own import service as own
from insureops.platform.carrier_finder.view import workspace_view
from tests.platform.carrier_finder.fakes import FakeCatalog, FakeMarketStore, FakeOwn
from tests.platform.carrier_finder.test_own_market import APPETITE, LOWER

NOW = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.UTC)
LEE, KIM = own.Actor("workspace-lee", "user-lee"), own.Actor("workspace-kim", "user-kim")
RULE, OTHER = "01ARZ3NDEKTSV4RRFFQ69G5FA1", "01ARZ3NDEKTSV4RRFFQ69G5FA2"
GRANITE = Carrier("granite-trades", "Granite Trades", "11111", "A", "admitted",
                  frozenset({"AZ"}))
CARRIER = {"name": "Mesa County Mutual", "states": ["AZ", "NM"], "rating": "A-"}
PRODUCT = "mesa-county-mutual/contractors-gl"
NOT_AN_APPETITE = '''ruleset claims.triage "Claims triage"
input claim: Any
default decision accept
'''


class Agency:
    """One workspace's store, catalog and market, and its admin's calls."""

    def __init__(self) -> None:
        self.store, self.catalog = FakeOwn(), FakeCatalog()
        self.market = FakeMarketStore(Market((GRANITE,), (), ()))
        self.cache = own.CompiledCache()

    async def carrier(self, slug: str = "mesa-county-mutual", actor=LEE, **values):
        return await own.create_carrier(None, self.market, actor, slug,
                                        {**CARRIER, **values}, NOW, store=self.store)

    async def product(self, rule_id: str = RULE, code: str = "contractors-gl",
                      carrier: str = "mesa-county-mutual", actor=LEE, **values):
        values = {"line": "CGL", "name": "Contractors GL", "max_limit": Decimal(1_000_000),
                  "appetite_rule_id": rule_id, **values}
        return await own.create_product(None, self.catalog, actor, carrier, code, values, NOW,
                                        store=self.store)

    async def change(self, slug: str = PRODUCT, actor=LEE, **values):
        return await own.update_product(None, self.catalog, actor, slug, values, NOW,
                                        store=self.store)

    async def view(self, workspace_id: str = LEE.workspace_id):
        return await workspace_view(None, self.market, self.catalog, self.cache, workspace_id,
                                    own=self.store)


@pytest.fixture
async def agency():
    agency = Agency()
    yield agency
    agency.cache.threads.close()


async def test_a_carrier_is_refused_when_the_market_or_the_workspace_has_its_id(agency):
    with pytest.raises(own.OwnEntryTakenError, match="The market has a carrier"):
        await agency.carrier("granite-trades")
    await agency.carrier()
    with pytest.raises(own.OwnEntryTakenError, match="This workspace has"):
        await agency.carrier()
    await agency.carrier(actor=KIM)  # another workspace's ids are its own


async def test_a_carrier_is_admitted_reached_directly_and_signed_when_added(agency):
    row = await agency.carrier()
    assert (row.market, row.access, row.active) == ("admitted", "direct", True)
    assert (row.created_by, row.updated_by, row.created_at) == ("user-lee", "user-lee", NOW)
    core = own.core_carrier(row)
    assert (core.rating, core.naic_code, core.profile.access.path) == ("A-", "", "direct")
    assert own.core_carrier(await agency.carrier("x-mutual", rating=None)).rating == "NR"


async def test_another_workspaces_entries_are_not_found_when_changed(agency):
    agency.catalog.put(LEE.workspace_id, RULE, APPETITE)
    await agency.carrier()
    await agency.product()
    with pytest.raises(own.OwnEntryNotFoundError):
        await own.update_carrier(None, KIM, "mesa-county-mutual", {"name": "X"}, NOW,
                                 store=agency.store)
    with pytest.raises(own.OwnEntryNotFoundError):
        await agency.change(actor=KIM, name="X")
    with pytest.raises(own.OwnCarrierUnknownError):
        await agency.product(actor=KIM)
    assert agency.store.saves == 0


async def test_a_product_takes_its_carriers_states_and_market_when_they_are_left_out(agency):
    agency.catalog.put(LEE.workspace_id, RULE, APPETITE)
    await agency.carrier(market="surplus_lines")
    row = await agency.product()
    assert (row.slug, row.states, row.admitted) == (PRODUCT, ["AZ", "NM"], False)
    assert (row.description, row.minimum_premium, row.created_by) == ("", 0, "user-lee")
    with pytest.raises(own.OwnEntryTakenError):
        await agency.product()
    with pytest.raises(own.OwnCarrierUnknownError, match="granite-trades"):
        await agency.product(carrier="granite-trades")


@pytest.mark.parametrize(("rule", "why"), [
    ("missing", "No rule"),
    ("theirs", "No rule"),
    ("triage", "of kind triage"),
    ("archived", "is archived"),
    ("wrong_inputs", "declares claim: Any"),
    ("wrong_current", "in version 2"),
])
async def test_a_product_is_refused_when_its_rule_cannot_be_its_appetite(agency, rule, why):
    catalog, lee = agency.catalog, LEE.workspace_id
    catalog.put(KIM.workspace_id, "theirs", APPETITE)
    catalog.put(lee, "triage", NOT_AN_APPETITE, kind="triage")
    catalog.put(lee, "archived", APPETITE, published=1, status="archived")
    catalog.put(lee, "wrong_inputs", NOT_AN_APPETITE)
    catalog.put(lee, "wrong_current", APPETITE, NOT_AN_APPETITE, published=1)
    catalog.put(lee, RULE, APPETITE)
    await agency.carrier()
    with pytest.raises(own.AppetiteRuleInvalidError, match=why):
        await agency.product(rule)
    await agency.product()
    with pytest.raises(own.AppetiteRuleInvalidError, match=why):  # rebinding is checked alike
        await agency.change(appetite_rule_id=rule)


async def test_a_products_limits_and_states_are_refused_when_they_disagree(agency):
    agency.catalog.put(LEE.workspace_id, RULE, APPETITE)
    await agency.carrier()
    with pytest.raises(own.OwnLimitsError) as refused:
        await agency.product(states=["AZ", "TX"])
    assert refused.value.field == "states" and "TX" in str(refused.value)
    with pytest.raises(own.OwnLimitsError) as refused:
        await agency.product(max_aggregate=Decimal(10))
    assert refused.value.field == "max_aggregate"
    await agency.product(max_aggregate=Decimal(2_000_000))
    with pytest.raises(own.OwnLimitsError):  # against the stored limit
        await agency.change(max_aggregate=Decimal(10))
    with pytest.raises(own.OwnLimitsError):
        await agency.change(states=["CA"])
    row = await agency.change(max_limit=Decimal(2_000_000), name="GL")
    assert (row.name, row.updated_at, agency.store.saves) == ("GL", NOW, 1)


async def test_each_rule_state_says_whether_and_why_a_product_is_matched(agency):
    catalog, lee = agency.catalog, LEE.workspace_id
    catalog.put(lee, "draft", APPETITE)
    catalog.put(lee, "published", APPETITE, LOWER, published=2)
    catalog.put(lee, "archived", APPETITE, published=1, status="archived")
    catalog.put(lee, "triage", NOT_AN_APPETITE, kind="triage", published=1)
    catalog.put(lee, "wrong_inputs", NOT_AN_APPETITE, published=1)
    ids = {"draft", "published", "archived", "triage", "wrong_inputs", "missing"}
    states, found = await own.appetites(None, catalog, agency.cache, lee, ids)
    assert {rule_id: (s.status, s.version) for rule_id, s in states.items()} == {
        "draft": ("unpublished", None), "published": ("published", 2),
        "archived": ("archived", None), "triage": ("wrong_kind", None),
        "wrong_inputs": ("wrong_inputs", 1), "missing": ("invalid", None)}
    assert "input business: Business" in states["wrong_inputs"].reason
    assert set(found) == {"published"} and found["published"].path == "@published/v2"
    assert "score += 20" in found["published"].source
    # compiled once per published source: the second read finds it in the cache
    catalog.sources.clear()
    again, _ = await own.appetites(None, catalog, agency.cache, lee, {"published"})
    assert again["published"].status == "published"


async def test_the_view_matches_published_products_of_active_carriers_and_names_the_rest(agency):
    catalog, lee = agency.catalog, LEE.workspace_id
    catalog.put(lee, RULE, APPETITE, published=1)
    catalog.put(lee, OTHER, APPETITE.replace("appetite.mesa_county.gl", "appetite.draft"))
    await agency.carrier()
    await agency.product()
    await agency.product(OTHER, code="draft-gl")
    view = await agency.view()
    assert [(p.id, p.appetite) for p in view.market.products] == [(PRODUCT, f"@{RULE}/v1")]
    assert [(p.slug, s.status) for p, s in view.unmatched] == [
        ("mesa-county-mutual/draft-gl", "unpublished")]
    assert view.market.carrier("granite-trades") == GRANITE  # laid over the stored market
    await own.update_carrier(None, LEE, "mesa-county-mutual", {"active": False}, NOW,
                             store=agency.store)
    assert (await agency.view()).unmatched == []
    theirs = await agency.view(KIM.workspace_id)
    assert theirs.own_products == {} and theirs.market.products == ()
