"""Matching a business against a market: every candidate appetite evaluated by the engine, ranked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Protocol

import msgspec

from insureops.carrier_matching.market import Carrier, Market, Product
from insureops.carrier_matching.match_plan import Entry, match_plan
from insureops.carrier_matching.normalise import normalise_business
from insureops.carrier_matching.questions import ASK_REASON_PREFIX, asked_fields, question
from insureops.carrier_matching.reasons import REASON, arrange, format_money
from insureops.carrier_matching.regulation import REGULATORY_TAG, WORKERS_COMP, comp_forbidden

DECISION_RANK = {"accept": 0, "refer": 1, "decline": 2}
DECLINE = DECISION_RANK["decline"]
ZERO = Decimal(0)
BUSINESS_INPUT = "business"
STATE_TAG = "state"
PRUNED_TAG = "pruned"


class CandidateIndex(Protocol):
    """What matching needs of a candidate index (carrier_matching.pruning): the appetites (by
    name) that may accept or refer a business, and why any other one cannot."""

    def candidates(self, business: Mapping) -> frozenset[str]: ...

    def why_pruned(self, name: str, business: Mapping) -> str: ...

    def screen(self, business: Mapping) -> Screen: ...


class Screen(Protocol):
    """A business through the index: its candidates, and why another appetite is not one."""

    candidates: frozenset[str]

    def why(self, name: str) -> str | None: ...

    def for_criteria(self, naics: str | None = None,
                     state: str | None = None) -> frozenset[str]: ...


class MatchResult(msgspec.Struct, frozen=True):
    """One product's answer for the business: the engine's decision, score, reasons, tags and
    outputs (`trace` when explained); `evaluated` is False when the product was answered without
    running its appetite (not offered in the business's state, or pruned by the index).
    A frozen msgspec struct: made in C from its fields, as a match makes one per product (a
    frozen dataclass sets each field through `object.__setattr__`)."""

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


class AskedQuestion(msgspec.Struct, frozen=True):
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
    """The lines to match: `lines` when given, else the business's `lines_of_business`, else
    the lines of its `requests` (coverage asked for per line is a choice of lines), else all."""
    if lines:
        return list(lines)
    chosen = list(business.get("lines_of_business") or [])
    if not chosen:
        requested = (request.get("line") for request in business.get("requests") or ()
                     if isinstance(request, Mapping))
        chosen = list(dict.fromkeys(line for line in requested if line))
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

    What does not depend on the business is worked out once per market
    (carrier_matching.match_plan); an answer is built, and its reasons formatted, only when
    the report lists it (with `limit`, the declines never are).
    """
    normalised = normalise_business(business, as_of=as_of)
    business = normalised.business
    plan = match_plan(market)
    entries = plan.candidates(requested_lines(business, lines))
    state = business.get("state")
    comp_reason = comp_forbidden(WORKERS_COMP, state) if state is not None else None
    screen = index.screen(business) if index is not None else None
    allowed = screen.candidates if screen is not None else None
    listed = limit is None  # declines are listed only when every answer is
    inputs = {BUSINESS_INPUT: business}
    # input values converted whole, shared by this match's evaluations (the same inputs):
    # a business's claims are converted once, not by every appetite that reads them
    conversions: dict = {}
    answers: dict[str, _Answer] = {}
    rows: list[tuple] = []  # (rank, score, position, entry, answer) of the evaluated
    # the declines answered without an evaluation (score zero), by position: already in the
    # order they are listed in, so only the evaluated answers are sorted
    declined: list | None = [None] * len(plan.entries) if listed else None
    pruned = 0
    for entry in entries:
        forbidden = entry.surplus_reason
        if forbidden is None and entry.comp:
            forbidden = comp_reason
        if forbidden is not None:
            if listed:
                declined[entry.position] = _declined(entry, forbidden, REGULATORY_TAG)
            continue
        if state is not None and state not in entry.states:
            if listed:
                declined[entry.position] = _declined(
                    entry, f"{entry.product.name} is not offered in {state}", STATE_TAG)
            continue
        appetite = entry.appetite
        if allowed is not None and appetite.name not in allowed:
            pruned += 1
            if listed:
                declined[entry.position] = _declined(entry, screen.why(appetite.name),
                                                     PRUNED_TAG)
            continue
        answer = answers.get(appetite.path)
        if answer is None:
            if explain:
                result = appetite.ruleset.evaluate(inputs, as_of=as_of, explain=True,
                                                   conversions=conversions)
            else:
                result = (entry.run or entry.evaluate())(inputs, as_of=as_of,
                                                         conversions=conversions)
            answer = answers[appetite.path] = _Answer(entry, result)
        if listed or answer.rank != DECLINE:
            rows.append((answer.rank, answer.score, entry.position, entry, answer))
    ranked = _ranked(rows, len(plan.entries))
    questions = _asked(ranked)
    if listed:
        results = _listed(ranked, declined)
    else:  # the best N: accepts and refers, never padded with declines
        results = tuple(_answered(entry, answer) for _, _, _, entry, answer
                        in ranked[:max(0, limit)])
    return MatchReport(results, len(entries), pruned, questions, normalised.warnings)


def _listed(ranked: list[tuple], declined: list) -> tuple[MatchResult, ...]:
    """Every answer in rank order: the evaluated ones as `ranked` has them, with the declines
    answered unevaluated (`declined`, by position; their score is zero) placed among the
    evaluated declines as ranking them all would (by score, then position)."""
    results: list[MatchResult] = []
    below: list[MatchResult] = []  # declines scored below zero, then unknown decisions
    for rank, score, position, entry, answer in ranked:
        if rank < DECLINE:
            results.append(_answered(entry, answer))
        elif rank > DECLINE or score < 0:
            below.append(_answered(entry, answer))
        elif score > 0:
            results.append(_answered(entry, answer))
        else:
            declined[position] = _answered(entry, answer)
    results.extend([found for found in declined if found is not None])
    results.extend(below)
    return tuple(results)


def _ranked(rows: list[tuple], positions: int) -> list[tuple]:
    """`rows` best first: by decision, then score (highest first), then position (each below
    `positions`). A row is ranked by one int (a match has a few distinct scores, numbered in
    descending order): sorting the tuples would compare Decimals over and over."""
    distinct = sorted({row[1] for row in rows}, reverse=True)
    place = {score: number for number, score in enumerate(distinct)}
    width = len(distinct)
    keyed = [((row[0] * width + place[row[1]]) * positions + row[2], row) for row in rows]
    keyed.sort()  # the keys are distinct (so are positions): rows are never compared
    return [row for _, row in keyed]


class _Answer:
    """An appetite's evaluation for the business: its decision and score at once (they rank
    it), its reasons arranged only when an answer that lists them is built."""

    __slots__ = ("decision", "rank", "score", "result", "entry", "_arranged")

    def __init__(self, entry: Entry, result) -> None:
        self.decision = decision = result.decision or "decline"
        self.rank = DECISION_RANK.get(decision, len(DECISION_RANK))
        self.score = result.score
        self.result = result
        self.entry = entry
        self._arranged: tuple | None = None

    def arranged(self) -> tuple:
        """(reasons, tags, trace, questions) as a MatchResult holds them."""
        found = self._arranged
        if found is None:
            result = self.result
            given = result.reasons
            if len(given) == 1:  # nothing to order: the kinds are not needed
                text = format_money(given[0])
                reasons, questions = ((), (text,)) if text.startswith(ASK_REASON_PREFIX) \
                    else ((text,), ())
            elif given:
                rules = self.entry.rule_kinds()
                kinds = [kind for name in result.fired for kind in rules.get(name, ())]
                if len(kinds) != len(given):
                    kinds = [REASON] * len(given)
                reasons, questions = arrange(self.decision, given, kinds)
            else:
                reasons = questions = ()
            found = self._arranged = (reasons, tuple(result.tags), result.trace, questions)
        return found


def _declined(entry: Entry, reason: str, tag: str) -> MatchResult:
    """A decline answered without running the appetite."""
    return MatchResult(entry.carrier, entry.product, "decline", ZERO, (reason,), (tag,), {},
                       None, False, (), ())


def _answered(entry: Entry, answer: _Answer) -> MatchResult:
    """The answer of an evaluated appetite for `entry`'s product."""
    reasons, tags, trace, questions = answer.arranged()
    decision = answer.decision
    return MatchResult(entry.carrier, entry.product, decision, answer.score, reasons, tags,
                       dict(answer.result.outputs), trace, True,
                       entry.notes if decision != "decline" else (), questions)


def _asked(ranked: list[tuple]) -> tuple[AskedQuestion, ...]:
    """`asked_questions` of the ranked answers (the declines ask nothing)."""
    asked: dict[str, list[str]] = {}
    for rank, _, _, entry, found in ranked:
        if rank == DECLINE:
            continue
        tags = found.result.tags
        if not tags:
            continue
        for field in asked_fields(tags):
            asked.setdefault(field, []).append(entry.product.id)
    return tuple(AskedQuestion(field, question(field).text, tuple(products))
                 for field, products in asked.items())


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


