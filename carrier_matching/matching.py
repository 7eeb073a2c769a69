"""Matching a business against a market: every candidate appetite evaluated by the engine, ranked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Protocol

from insureops.carrier_matching.market import Carrier, Market, Product
from insureops.carrier_matching.normalise import normalise_business
from insureops.carrier_matching.questions import asked_fields, question
from insureops.carrier_matching.reasons import arrange, reason_kinds
from insureops.carrier_matching.regulation import (
    DILIGENT_SEARCH_NOTE,
    REGULATORY_TAG,
    regulatory_decline,
)
from insureops.engine.ir.errors import EngineError

DECISION_RANK = {"accept": 0, "refer": 1, "decline": 2}
BUSINESS_INPUT = "business"
STATE_TAG = "state"
PRUNED_TAG = "pruned"


class CandidateIndex(Protocol):
    """What matching needs of a candidate index (carrier_matching.pruning): the appetites (by
    name) that may accept or refer a business, and why any other one cannot."""

    def candidates(self, business: Mapping) -> frozenset[str]: ...

    def why_pruned(self, name: str, business: Mapping) -> str: ...

    def for_criteria(self, naics: str | None = None,
                     state: str | None = None) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One product's answer for the business: the engine's decision, score, reasons, tags and
    outputs (`trace` when explained); `evaluated` is False when the product was answered without
    running its appetite (not offered in the business's state, or pruned by the index)."""

    carrier: Carrier
    product: Product
    decision: str
    score: Decimal
    reasons: tuple[str, ...]
    tags: tuple[str, ...]
    outputs: Mapping[str, object]
    trace: list | None = None
    evaluated: bool = True
    notes: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()  # "Ask the client: ..." lines, apart from the reasons

    @property
    def sort_key(self) -> tuple:
        return (DECISION_RANK.get(self.decision, len(DECISION_RANK)), -self.score,
                self.carrier.name, self.product.name, self.product.id)


@dataclass(frozen=True, slots=True)
class AskedQuestion:
    """A question for the client that would change a decision: the Business field that answers
    it, the words to ask it in, and the products (ids) that asked, best first."""

    field: str
    text: str
    products: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MatchReport:
    """The ranked results (at most `limit` of them), how many products were considered (active,
    on the lines asked for) and how many of those the candidate index pruned; the questions
    the accepting and referring products ask, and what reading the business changed."""

    results: tuple[MatchResult, ...]
    considered: int
    pruned: int
    questions: tuple[AskedQuestion, ...] = ()
    warnings: tuple[str, ...] = ()


def candidate_products(market: Market, lines: Iterable[str] | None = None) -> list[Product]:
    """The active products of active carriers, on `lines` when given (line codes)."""
    wanted = frozenset(lines) if lines else None
    found = []
    for product in market.products:
        carrier = market.carrier(product.carrier_id)
        if not product.active or carrier is None or not carrier.active:
            continue
        if wanted is not None and product.line not in wanted:
            continue
        found.append(product)
    return found


def requested_lines(business: Mapping, lines: Iterable[str] | None) -> list[str] | None:
    """The lines to match: `lines` when given, else the business's `lines_of_business`, else all."""
    chosen = list(lines) if lines else list(business.get("lines_of_business") or [])
    return chosen or None


def match(business: Mapping, market: Market, *, as_of: date, lines: Iterable[str] | None = None,
          explain: bool = False, limit: int | None = None,
          index: CandidateIndex | None = None) -> MatchReport:
    """Match `business` (JSON-like data of the Business type) against `market`.

    Every active product on the lines asked for is answered; with `limit`, only the best
    `limit` accepts and refers are returned (fewer when fewer products would write it). A product the regulatory facts
    forbid (carrier_matching.regulation: private comp in a monopolistic state, comp in the
    surplus lines market) is declined first; a product not offered in the business's state is
    declined by its manifest; with `index`, an appetite the index rules out
    is declined with the index's reason without running it; every other appetite is evaluated
    by the engine (once per appetite, shared by the products that point at it) as of `as_of`.
    The business is read first (carrier_matching.normalise: states by name, NAICS 2017 codes,
    line aliases; each change a warning of the report). Raises BusinessInputError for a value
    it cannot read (an unknown NAICS code), and the engine's EvaluationError when the business
    does not fit the Business type; the first is a kind of the second.
    """
    normalised = normalise_business(business, as_of=as_of)
    business = normalised.business
    products = candidate_products(market, requested_lines(business, lines))
    state = business.get("state")
    allowed = index.candidates(business) if index is not None else None
    answers: dict[str, tuple] = {}
    results: list[MatchResult] = []
    pruned = 0
    for product in products:
        carrier = market.carrier(product.carrier_id)
        forbidden = regulatory_decline(product.line, product.admitted, state)
        if forbidden is not None:
            results.append(_declined(carrier, product, forbidden, REGULATORY_TAG))
            continue
        if state is not None and state not in product.states:
            results.append(_declined(carrier, product, f"{product.name} is not offered in "
                                     f"{state}", STATE_TAG))
            continue
        appetite = market.appetite(product.appetite)
        if allowed is not None and appetite.name not in allowed:
            pruned += 1
            results.append(_declined(carrier, product, index.why_pruned(appetite.name, business),
                                     PRUNED_TAG))
            continue
        answer = answers.get(appetite.path)
        if answer is None:
            result = next(appetite.ruleset.evaluate_many(  # the engine's batch entry point
                ({BUSINESS_INPUT: business},), as_of=as_of, explain=explain))
            if isinstance(result, EngineError):  # an error value: raised, as evaluate does
                raise result
            decision = result.decision or "decline"
            kinds = reason_kinds(appetite.ruleset.ir, result.fired, len(result.reasons))
            reasons, questions = arrange(decision, result.reasons, kinds)
            answer = answers[appetite.path] = (
                decision, result.score, reasons, tuple(result.tags), dict(result.outputs),
                result.trace, questions)
        decision, score, reasons, tags, outputs, trace, questions = answer
        notes = (DILIGENT_SEARCH_NOTE,) if not product.admitted and decision != "decline" else ()
        results.append(MatchResult(carrier, product, decision, score, reasons, tags, outputs,
                                   trace, notes=notes, questions=questions))
    results.sort(key=lambda r: r.sort_key)
    questions = asked_questions(results)
    if limit is not None:  # the best N: accepts and refers, never padded with declines
        results = [r for r in results if r.decision != "decline"][:max(0, limit)]
    return MatchReport(tuple(results), len(products), pruned, questions, normalised.warnings)


def asked_questions(results: Iterable[MatchResult]) -> tuple[AskedQuestion, ...]:
    """What accepting and referring products ask of the client, one entry per field, in the
    order of the best product that asks it."""
    asked: dict[str, list[str]] = {}
    for result in results:
        if result.decision == "decline":
            continue
        for field in asked_fields(result.tags):
            asked.setdefault(field, []).append(result.product.id)
    return tuple(AskedQuestion(field, question(field).text, tuple(products))
                 for field, products in asked.items())


def with_activities(business: Mapping) -> dict:
    """The business as appetites read it (carrier_matching.normalise), without the warnings."""
    return normalise_business(business).business


def _declined(carrier: Carrier, product: Product, reason: str, tag: str) -> MatchResult:
    return MatchResult(carrier, product, "decline", Decimal(0), (reason,), (tag,), {},
                       None, evaluated=False)
