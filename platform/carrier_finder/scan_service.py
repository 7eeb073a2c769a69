"""Use cases around a business's own words: scanning its website, finding similar businesses."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from insureops.carrier_matching.classifier import ClassifierResult, classify
from insureops.carrier_matching.recommendations import Recommendation, recommend
from insureops.carrier_matching.similarity import (
    SimilarBusiness,
    load_reference,
    similar_businesses,
)
from insureops.carrier_matching.website_text import extract_page_text
from insureops.dsl import CompiledRuleset, compile_ruleset
from insureops.platform.carrier_finder.website import ScanSession, fetch_page, parse_scan_url
from insureops.platform.config import Settings

ROOT = Path(__file__).resolve().parents[2]
RECOMMENDATIONS_PATH = "examples/coverage_recommendations.rules"
EXCERPT_CHARS = 500
BUSINESS_TEXT_CHARS = 2_000  # what the classifier reads of each text, too
MAX_NAME_CHARS = 255  # Business.name


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

    @property
    def naics(self) -> str | None:
        return self.classification[0].naics if self.classification else None


@cache
def recommendations_ruleset() -> CompiledRuleset:
    """The coverage recommendations ruleset, compiled once per process."""
    source = (ROOT / RECOMMENDATIONS_PATH).read_text("utf-8")
    return compile_ruleset(source, filename=RECOMMENDATIONS_PATH)


async def scan_website(url: str, settings: Settings, http_session: ScanSession) -> ScanResult:
    """Fetch the site under the scan rules (platform/carrier_finder/website.py), read its text,
    classify it and run the recommendations ruleset on the business it describes.

    Raises a ScanError subclass (stable code) when the site cannot or may not be read."""
    page = await fetch_page(url, settings, http_session)
    text = extract_page_text(page.html)
    words = " ".join(part for part in (text.description, text.text) if part)
    classification = classify(words, name=text.title, website=page.url)
    business: dict[str, Any] = {"website": page.url,
                                "description": words[:BUSINESS_TEXT_CHARS] or None}
    if text.title:
        business["name"] = text.title[:MAX_NAME_CHARS]
    if classification:
        business["naics"] = classification[0].naics
    return ScanResult(url=str(parse_scan_url(url)), final_url=page.url, title=text.title,
                      description=text.description, excerpt=text.excerpt(EXCERPT_CHARS),
                      classification=classification,
                      recommendations=recommend(recommendations_ruleset(), business),
                      business=business)


def find_similar_businesses(query: dict[str, Any], limit: int = 10) -> list[SimilarBusiness]:
    """Reference businesses most like `query` (a Business or {naics, description}), best first."""
    return similar_businesses(query, load_reference(), limit)


def reference_size() -> int:
    return len(load_reference())
