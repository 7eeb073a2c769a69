"""Candidate sources: a workspace's own carriers, products and appetites laid over the market,
matched beside it, and never pruned by the market's index (issue 14)."""

from __future__ import annotations

from decimal import Decimal

from insureops.carrier_matching.market import Appetite, Carrier, Product
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.carrier_matching.sources import (
    LayeredSource,
    MarketSource,
    appetite_input_problem,
    match_source,
    own_market,
)
from insureops.dsl import compile_ruleset
from tests.carrier_matching.example_market import AS_OF, example_market
from tests.carrier_matching.test_matching import ELECTRICIAN, RESTAURANT


def appetite(name: str, when: str, score: int = 72) -> Appetite:
    source = f'''ruleset {name} "Local mutual"
input business: Business
default decision decline

rule written "Written here"
when {when}
then
    score += {score}
    accept "A local mutual writes it"
end
'''
    return Appetite(name, f"@rule/{name}", source, compile_ruleset(source))


LOCAL = Carrier("local-mutual", "Local Mutual", "", "NR", "admitted", frozenset({"AZ", "GA"}))


def product(code: str, path: str, carrier: str = "local-mutual") -> Product:
    return Product(f"{carrier}/{code}", carrier, "CGL", code, "", frozenset({"AZ", "GA"}),
                   Decimal(0), Decimal(1_000_000), None, True, path)


def base_source() -> MarketSource:
    market = example_market()
    return MarketSource(market, index_market_appetites(market.appetites))


def test_an_own_appetite_is_evaluated_and_ranked_among_the_market_when_laid_over_it():
    own = appetite("local.gl", 'business.naics == "238210"')
    source = LayeredSource(base_source(), own_market([LOCAL], [product("gl", own.path)], [own]))
    report = match_source(ELECTRICIAN, source, as_of=AS_OF, lines=["CGL"])
    ids = [r.product.id for r in report.results]
    mine = report.results[ids.index("local-mutual/gl")]
    assert (mine.decision, mine.score, mine.evaluated) == ("accept", 72, True)
    assert report.considered == 1 + len([p for p in example_market().products
                                         if p.line == "CGL" and p.active])
    assert report.results == tuple(sorted(report.results, key=lambda r: r.sort_key))


def test_pruning_stays_correct_when_an_own_appetite_shares_a_market_appetites_name():
    market = example_market()
    # a market appetite the index prunes for the restaurant, and an own one of the same name
    # that accepts it: the own one must be evaluated, the market one may be evaluated too
    index = index_market_appetites(market.appetites)
    pruned_name = min(index.pruned(RESTAURANT))
    own = appetite(pruned_name, "true")
    source = LayeredSource(base_source(), own_market([LOCAL], [product("gl", own.path)], [own]))
    pruned = match_source(RESTAURANT, source, as_of=AS_OF)
    unpruned = match_source(RESTAURANT, LayeredSource(MarketSource(market), source.own),
                            as_of=AS_OF)
    decided = {(r.product.id, r.decision, r.score) for r in pruned.results}
    assert decided == {(r.product.id, r.decision, r.score) for r in unpruned.results}
    assert ("local-mutual/gl", "accept", 72) in decided
    assert pruned.pruned > 0 and source.index.why_pruned(pruned_name, RESTAURANT) is None


def test_an_own_carrier_hides_the_market_carrier_of_its_id_when_laid_over_it():
    own = appetite("local.gl", "true")
    granite = Carrier("granite-trades", "Our Granite", "", "NR", "admitted", frozenset({"AZ"}))
    source = LayeredSource(base_source(), own_market(
        [granite], [product("gl", own.path, carrier="granite-trades")], [own]))
    assert source.market.carrier("granite-trades").name == "Our Granite"
    assert [p.id for p in source.market.products_of("granite-trades")] == ["granite-trades/gl"]


def test_the_base_is_matched_unchanged_when_nothing_is_laid_over_it():
    base = base_source()
    source = LayeredSource(base, own_market([], [], []))
    assert source.market is base.market and source.index is base.index
    # a product whose appetite is missing is left out of the own part
    assert own_market([LOCAL], [product("gl", "@rule/missing")], []).products == ()


def test_a_ruleset_is_refused_as_an_appetite_when_its_inputs_are_not_business():
    assert appetite_input_problem(appetite("a.b", "true").ruleset.ir) is None
    wrong = compile_ruleset('ruleset c.d "x"\ninput claim: Any\ndefault decision accept\n')
    assert "declares claim: Any" in appetite_input_problem(wrong.ir)
