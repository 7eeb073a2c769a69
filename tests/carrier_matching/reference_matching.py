"""The straightforward matcher, as `matching.match` was written before it was made fast: every
product of the market looked at in turn, every answer built and formatted, then sorted. The
differential test holds the optimised matcher to it, answer for answer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal, InvalidOperation

from insureops.carrier_matching.market import Market
from insureops.carrier_matching.matching import (
    BUSINESS_INPUT,
    DECISION_RANK,
    PRUNED_TAG,
    STATE_TAG,
    AskedQuestion,
    CandidateIndex,
    MatchReport,
    MatchResult,
)
from insureops.carrier_matching.normalise import normalise_business
from insureops.carrier_matching.questions import ASK_REASON_PREFIX, asked_fields, question
from insureops.carrier_matching.regulation import (
    DILIGENT_SEARCH_NOTE,
    REGULATORY_TAG,
    regulatory_decline,
)
from insureops.engine import ir

_MONEY = re.compile(r"\$(-?\d+(?:\.\d+)?)(?![\d,])")


def reference_match(business: Mapping, market: Market, *, as_of: date,
                    lines: Iterable[str] | None = None, explain: bool = False,
                    limit: int | None = None, index: CandidateIndex | None = None
                    ) -> MatchReport:
    normalised = normalise_business(business, as_of=as_of)
    business = normalised.business
    chosen = list(lines) if lines else list(business.get("lines_of_business") or [])
    if not lines and not chosen:
        chosen = [r["line"] for r in business.get("requests") or [] if r.get("line")]
    wanted = frozenset(chosen) if chosen else None
    products = []
    for product in market.products:
        carrier = market.carrier(product.carrier_id)
        if not product.active or carrier is None or not carrier.active:
            continue
        if wanted is not None and product.line not in wanted:
            continue
        products.append(product)
    state = business.get("state")
    allowed = index.candidates(business) if index is not None else None
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
        result = appetite.ruleset.evaluate({BUSINESS_INPUT: business}, as_of=as_of,
                                           explain=explain)
        decision = result.decision or "decline"
        kinds = _kinds(appetite.ruleset.ir, result.fired, len(result.reasons))
        reasons, questions = _arrange(decision, result.reasons, kinds)
        notes = (DILIGENT_SEARCH_NOTE,) if not product.admitted and decision != "decline" else ()
        results.append(MatchResult(carrier, product, decision, result.score, reasons,
                                   tuple(result.tags), dict(result.outputs), result.trace,
                                   notes=notes, questions=questions))
    results.sort(key=lambda r: (DECISION_RANK.get(r.decision, len(DECISION_RANK)), -r.score,
                                r.carrier.name, r.product.name, r.product.id))
    asked: dict[str, list[str]] = {}
    for result in results:
        if result.decision != "decline":
            for field in asked_fields(result.tags):
                asked.setdefault(field, []).append(result.product.id)
    questions = tuple(AskedQuestion(field, question(field).text, tuple(ids))
                      for field, ids in asked.items())
    if limit is not None:
        results = [r for r in results if r.decision != "decline"][:max(0, limit)]
    return MatchReport(tuple(results), len(products), pruned, questions, normalised.warnings)


def _declined(carrier, product, reason, tag) -> MatchResult:
    return MatchResult(carrier, product, "decline", Decimal(0), (reason,), (tag,), {}, None,
                       evaluated=False)


def _kinds(ruleset: ir.Ruleset, fired, count: int) -> list[str]:
    rules = {item.name: [action.decision if isinstance(action, ir.DecisionAction) else "reason"
                         for action in item.actions
                         if isinstance(action, (ir.DecisionAction, ir.ReasonAction))]
             for item in ruleset.items if isinstance(item, ir.Rule)}
    kinds = [kind for name in fired for kind in rules.get(name, ())]
    return kinds if len(kinds) == count else ["reason"] * count


def _arrange(decision: str, reasons, kinds) -> tuple[tuple[str, ...], tuple[str, ...]]:
    order = {decision: 0, "decline": 1, "refer": 2, "accept": 3, "reason": 4}
    asks, kept = [], []
    for position, (text, kind) in enumerate(zip(reasons, kinds)):
        text = _MONEY.sub(lambda m: _dollars(m.group(1)), text)
        if text.startswith(ASK_REASON_PREFIX):
            asks.append(text)
        else:
            kept.append((order.get(kind, 4), position, text))
    kept.sort()
    return tuple(text for _, _, text in kept), tuple(asks)


def _dollars(number: str) -> str:
    try:
        amount = Decimal(number)
    except InvalidOperation:
        return "$" + number
    if amount == amount.to_integral_value():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"
