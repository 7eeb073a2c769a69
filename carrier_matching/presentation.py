"""A match as a broker reads it: grouped by carrier, best carrier first, each with how to reach
it (a direct appointment, or the wholesaler or MGA and who to call), the underwriter for the
business's state, where submissions go, and each product's decision with its deciding reason
first, its appetite strength, minimum premium and the questions still open."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from insureops.carrier_matching.lines import line_by_code
from insureops.carrier_matching.market import CARRIER_TYPE_NAMES, Access, Carrier, Market
from insureops.carrier_matching.matching import DECISION_RANK, MatchReport, MatchResult
from insureops.carrier_matching.reasons import format_money

DECISION_WORDS = {"accept": "Accepts", "refer": "Refers to an underwriter", "decline": "Declines"}


@dataclass(frozen=True)
class ProductAnswer:
    """One product's answer, in the words a broker reads."""

    id: str
    name: str
    line: str
    line_name: str
    decision: str
    score: Decimal
    strength: str | None
    minimum_premium: str
    max_limit: str
    reasons: tuple[str, ...]
    questions: tuple[str, ...]
    notes: tuple[str, ...]
    access: str | None  # set when the product is reached otherwise than its carrier
    quote_url: str | None


@dataclass(frozen=True)
class CarrierAnswer:
    """A carrier and its products' answers, with how to reach it."""

    id: str
    name: str
    rating: str
    kind: str           # "regional carrier, admitted", "E&S carrier, surplus lines"
    decision: str       # the best of its products'
    access: str | None
    underwriter: str | None
    submit: str | None
    quote_url: str | None
    guide: str | None
    products: tuple[ProductAnswer, ...]


def present(report: MatchReport, market: Market, state: str | None) -> tuple[CarrierAnswer, ...]:
    """The report's results grouped by carrier, carriers in the order of their best product."""
    groups: dict[str, list[MatchResult]] = {}
    for result in report.results:
        groups.setdefault(result.carrier.id, []).append(result)
    return tuple(_carrier(results[0].carrier, results, market, state)
                 for results in groups.values())


def _carrier(carrier: Carrier, results: list[MatchResult], market: Market,
             state: str | None) -> CarrierAnswer:
    profile = carrier.profile
    best = min(results, key=lambda r: DECISION_RANK.get(r.decision, 3)).decision
    kind = (CARRIER_TYPE_NAMES.get(profile.type, profile.type)
            if profile and profile.type else "carrier") + (
        ", admitted" if carrier.admitted else ", surplus lines (non-admitted)")
    underwriter = submit = guide = None
    access = None
    if profile is not None:
        access = describe_access(profile.access, market)
        territory = profile.territory(state)
        if territory is not None:
            phone = f", {territory.phone}" if territory.phone else ""
            underwriter = f"{territory.underwriter} ({territory.name}): {territory.email}{phone}"
        places = [p for p in (profile.submission_email, profile.submission_portal) if p]
        submit = " or ".join(places) or None
        if profile.guide_effective and profile.guide_reviewed:
            guide = (f"appetite guide effective {profile.guide_effective.isoformat()}, last "
                     f"reviewed {profile.guide_reviewed.isoformat()}")
    products = tuple(_product(result, carrier, market) for result in results)
    return CarrierAnswer(carrier.id, carrier.name, carrier.rating, kind, best, access,
                         underwriter, submit, profile.quote_url if profile else None, guide,
                         products)


def _product(result: MatchResult, carrier: Carrier, market: Market) -> ProductAnswer:
    product = result.product
    line = line_by_code(product.line)
    own_access = product.access
    carrier_access = carrier.profile.access if carrier.profile else None
    access = describe_access(own_access, market) if own_access and own_access != carrier_access \
        else None
    return ProductAnswer(
        product.id, product.name, product.line, line.name if line else product.line,
        result.decision, result.score, product.strength,
        format_money(f"${product.minimum_premium}"), format_money(f"${product.max_limit}"),
        result.reasons, result.questions, result.notes, access, product.quote_url)


def describe_access(access: Access, market: Market) -> str:
    """"Direct appointment", or the wholesaler or MGA with its contact."""
    if access.path == "direct":
        return "Direct appointment"
    found = market.intermediary(access.via)
    if found is None:
        return f"Through {access.via} ({access.path.upper() if access.path == 'mga' else access.path})"
    kind = "MGA" if found.kind == "mga" else "wholesaler"
    where = ", ".join(p for p in (found.email, found.phone, found.portal) if p)
    return f"Through {found.name} ({kind}): {found.contact}, {where}"


def render(report: MatchReport, market: Market, state: str | None, *,
           reasons: int = 3) -> str:
    """The report as text a broker reads: the warnings, the questions to ask, then each carrier
    with how to reach it and each product with its deciding reasons."""
    lines: list[str] = []
    for warning in report.warnings:
        lines.append(f"note: {warning}")
    if report.questions:
        lines.append("Ask the client:")
        for question in report.questions:
            lines.append(f"  - {question.text} ({len(question.products)} product(s) ask)")
    for answer in present(report, market, state):
        lines.append("")
        lines.append(f"{answer.name} ({answer.rating}, {answer.kind}): "
                     f"{DECISION_WORDS[answer.decision].lower()}")
        for label, value in (("access", answer.access), ("underwriter", answer.underwriter),
                             ("submit to", answer.submit), ("quote online", answer.quote_url),
                             ("guide", answer.guide)):
            if value and answer.decision != "decline":
                lines.append(f"    {label}: {value}")
        for product in answer.products:
            strength = f", {product.strength} appetite" if product.strength else ""
            lines.append(f"  {DECISION_WORDS[product.decision]}: {product.name} "
                         f"({product.line_name}{strength}; minimum premium "
                         f"{product.minimum_premium}, limits to {product.max_limit})")
            lines += [f"    - {reason}" for reason in product.reasons[:reasons]]
            if product.decision != "decline":
                lines += [f"    - {question}" for question in product.questions]
                lines += [f"    ! {note}" for note in product.notes]
                if product.access:
                    lines.append(f"    access: {product.access}")
    return "\n".join(lines).strip("\n") + "\n"


def decisions(answers: Iterable[CarrierAnswer]) -> dict[str, str]:
    """Carrier id -> its best decision (for tests and summaries)."""
    return {answer.id: answer.decision for answer in answers}
