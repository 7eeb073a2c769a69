"""Use cases around a business's own words: scanning its website, finding similar businesses.
The workspace's prospects come through the store's port (`store`: the SQL repository by default,
a fake in memory in the fast tests; repository.py)."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from insureops.carrier_matching.classifier import ClassifierResult, classify
from insureops.carrier_matching.market import Market
from insureops.carrier_matching.matching import CandidateIndex, MatchResult
from insureops.carrier_matching.recommendations import Recommendation, recommend
from insureops.carrier_matching.scan_business import find_state, scan_business
from insureops.carrier_matching.similarity import (
    PROSPECT,
    ReferenceBusiness,
    SimilarBusiness,
    load_reference,
    similar_businesses,
)
from insureops.carrier_matching.website_text import extract_page_text
from insureops.dsl import CompiledRuleset, compile_ruleset
from insureops.platform.carrier_finder.classification import Classified
from insureops.platform.carrier_finder.market import service
from insureops.platform.carrier_finder.scan import repository
from insureops.platform.carrier_finder.scan.repository import ScanRepository
from insureops.platform.carrier_finder.scan.website import ScanSession, fetch_page, parse_scan_url
from insureops.platform.carrier_finder.view import View
from insureops.platform.config import Settings
from insureops.platform.data.database import UnitOfWork
from insureops.platform.records.prospects import Prospect

ROOT = Path(__file__).resolve().parents[3]
RECOMMENDATIONS_PATH = "examples/coverage_recommendations.rules"
EXCERPT_CHARS = 500
SCAN_CARRIERS = 5  # the best matching carrier products a scan returns
MAX_PROSPECTS = 2_000  # a workspace's most recently updated prospects compared per request

# (description, name, website) -> ranked codes and how they were found
PageClassifier = Callable[[str, str | None, str | None], Awaitable[Classified]]


async def offline_classifier(description: str, name: str | None,
                             website: str | None) -> Classified:
    return Classified(classify(description, name=name, website=website))


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What a scan found on a site and what it recommends."""

    url: str
    final_url: str
    title: str | None
    description: str | None
    excerpt: str
    classification: list[ClassifierResult]
    recommendations: list[Recommendation]
    business: dict[str, Any]  # the Business the recommendations ruleset ran on
    method: str = "offline"
    fallback_reason: str | None = None

    @property
    def naics(self) -> str | None:
        return self.classification[0].naics if self.classification else None


@cache
def recommendations_ruleset() -> CompiledRuleset:
    """The coverage recommendations ruleset, compiled once per process."""
    source = (ROOT / RECOMMENDATIONS_PATH).read_text("utf-8")
    return compile_ruleset(source, filename=RECOMMENDATIONS_PATH)


async def scan_website(url: str, settings: Settings, http_session: ScanSession,
                       classifier: PageClassifier = offline_classifier) -> ScanResult:
    """Fetch the site under the scan rules (platform/carrier_finder/scan/website.py), read its text,
    classify it (with `classifier`) and run the recommendations ruleset on the business it
    describes.

    Raises a ScanError subclass (stable code) when the site cannot or may not be read."""
    page = await fetch_page(url, settings, http_session)
    text = extract_page_text(page.html)
    words = " ".join(part for part in (text.description, text.text) if part)
    classified = await classifier(words, text.title, page.url)
    classification = classified.results
    business = scan_business(url=page.url, title=text.title, words=words,
                             naics=classification[0].naics if classification else None,
                             state=find_state(text.title, text.description, text.text))
    return ScanResult(url=str(parse_scan_url(url)), final_url=page.url, title=text.title,
                      description=text.description, excerpt=text.excerpt(EXCERPT_CHARS),
                      classification=classification,
                      recommendations=recommend(recommendations_ruleset(), business),
                      business=business, method=classified.method,
                      fallback_reason=classified.fallback_reason)


async def match_scanned(run: service.Offload, result: ScanResult, market: Market,
                        index: CandidateIndex | None, as_of: datetime.date,
                        limit: int = SCAN_CARRIERS) -> list[MatchResult]:
    """The best `limit` carrier products for the scanned business, by the matcher that
    POST /match-carriers-detailed/ runs, on the recommended lines (every line without any)."""
    lines = [r.line for r in result.recommendations] or None
    report, _ = await service.match_business(run, market,
                                             service.business_data(result.business),
                                             lines=lines, explain=False, limit=limit,
                                             as_of=as_of, index=index)
    return list(report.results)


async def scan_and_match(url: str, settings: Settings, classifier: PageClassifier,
                         market_view: Callable[[], Awaitable[View]], run: service.Offload,
                         as_of: datetime.date) -> tuple[ScanResult, list[MatchResult]]:
    """Scan the site at `url`, then match the business it describes against the market the
    workspace sees (`market_view`, read once the page is in: a scan may take seconds)."""
    async with ScanSession(settings) as http_session:
        result = await scan_website(url, settings, http_session, classifier)
    view = await market_view()
    return result, await match_scanned(run, result, view.market, view.source.index, as_of)


def prospect_business(prospect: Prospect) -> ReferenceBusiness:
    """A saved prospect as a business to compare with: its notes stand for the description."""
    state = (prospect.state or "").strip()
    return ReferenceBusiness(
        id=prospect.id, name=prospect.company_name, naics=prospect.naics or None,
        description=prospect.notes or "", source=PROSPECT,
        state=state.upper() if len(state) == 2 else (state or None))


async def workspace_businesses(uow: UnitOfWork, workspace_id: str | None, *,
                               store: ScanRepository = repository) -> list[ReferenceBusiness]:
    """The prospects the session's workspace sees (platform/records/prospects.py), as businesses
    (the `MAX_PROSPECTS` most recently updated)."""
    if workspace_id is None:
        return []
    rows = await store.workspace_prospects(uow.session, workspace_id, MAX_PROSPECTS)
    return [prospect_business(row) for row in rows]


def find_similar_businesses(query: dict[str, Any], limit: int = 10,
                            prospects: list[ReferenceBusiness] | None = None
                            ) -> list[SimilarBusiness]:
    """The businesses most like `query` (a Business or {naics, description}), best first, among
    the reference set and `prospects`."""
    reference = load_reference()
    return similar_businesses(query, reference.plus(prospects) if prospects else reference, limit)


def reference_size() -> int:
    return len(load_reference())
