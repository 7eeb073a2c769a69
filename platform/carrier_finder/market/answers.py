"""What a match answer adds for a broker, beyond the engine's verdict: each product's strength,
access path, where to submit, minimum premium and questions, and the whole report grouped by
carrier. The words come from the core (carrier_matching/presentation.py), so the service, the
CLI and the finder page say the same thing."""

from __future__ import annotations

from typing import Any

from insureops.carrier_matching.market import Market
from insureops.carrier_matching.matching import MatchReport, MatchResult
from insureops.carrier_matching.presentation import describe_access, present
from insureops.carrier_matching.states import state_code
from insureops.platform.carrier_finder.market.payloads import (
    AccessInfo,
    AskedQuestion,
    CarrierAnswer,
    CarrierProductAnswer,
)


def product_fields(market: Market, result: MatchResult) -> dict[str, Any]:
    """A result's MatchItem fields beyond the verdict: questions, notes, strength, access,
    where to submit, the quote link, minimum premium and maximum limit."""
    product, carrier = result.product, result.carrier
    profile = carrier.profile
    access = product.access or (profile.access if profile else None)
    submit = [place for place in (profile.submission_email, profile.submission_portal)
              if place] if profile else []
    return {
        "questions": list(result.questions), "notes": list(result.notes),
        "strength": product.strength,
        "access": None if access is None else AccessInfo(
            path=access.path, via=access.via, text=describe_access(access, market)),
        "submit": submit,
        "quote_url": product.quote_url or (profile.quote_url if profile else None),
        "minimum_premium": float(product.minimum_premium),
        "max_limit": float(product.max_limit),
    }


def report_fields(report: MatchReport, market: Market, state: object) -> dict[str, Any]:
    """The MatchResponse fields of the report as a whole: its questions, its warnings, and its
    results grouped by carrier (`state`, as sent, chooses each carrier's underwriter)."""
    code = state_code(state) if isinstance(state, str) else None
    carriers = [CarrierAnswer(
        id=answer.id, name=answer.name, rating=answer.rating, kind=answer.kind,
        decision=answer.decision, access=answer.access, underwriter=answer.underwriter,
        submit=answer.submit, quote_url=answer.quote_url, guide=answer.guide,
        products=[CarrierProductAnswer(
            id=p.id, name=p.name, line=p.line, line_name=p.line_name, decision=p.decision,
            score=float(p.score), strength=p.strength, minimum_premium=p.minimum_premium,
            max_limit=p.max_limit, reasons=list(p.reasons), questions=list(p.questions),
            notes=list(p.notes), access=p.access, quote_url=p.quote_url)
            for p in answer.products])
        for answer in present(report, market, code)]
    return {"carriers": carriers, "warnings": list(report.warnings),
            "questions": [AskedQuestion(field=q.field, text=q.text, products=list(q.products))
                          for q in report.questions]}
