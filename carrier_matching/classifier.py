"""The offline NAICS classifier: a business description to ranked NAICS 2022 codes with confidence."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from insureops.carrier_matching import naics_reference
from insureops.carrier_matching.classifier_text import host_parts, stem, tokens, weighted_tokens
from insureops.carrier_matching.keyword_index import TIER_WEIGHTS, KeywordIndex, load_index

MAX_RESULTS = 5
METHOD = "offline"

# How much each source of words counts: the description says most; a name ("Joe's Plumbing") often
# names the trade; a host name is short and often a brand.
DESCRIPTION_WEIGHT = 1.0
NAME_WEIGHT = 0.6
WEBSITE_WEIGHT = 0.5
# Title matching backs the index up: it finds the codes whose NAICS title shares rare words with
# the description, scaled so that an index phrase ("strong", 3.0) outweighs a partial title match.
TITLE_WEIGHT = 2.5
# A two-word phrase found in the other order or with a word between counts a little less.
PAIR_WINDOW = 3
PAIR_FACTOR = 0.8
MIN_SCORE = 0.8  # below this a candidate is noise (a shared common word), not a classification
# Typo tolerance: a word the index does not know is read as the nearest known stem at this rapidfuzz
# ratio or above; short words are left alone (too many near neighbours).
TYPO_MIN_RATIO = 85.0
TYPO_MIN_LENGTH = 6
MAX_TYPO_LOOKUPS = 12
# Confidence = strength x share ** SHARE_EXPONENT: the strength of the evidence grows with the best
# score (1 - exp(-best / EVIDENCE_SCALE): one strong phrase gives 0.63, two give 0.86) and the
# share is the candidate's part of the top five scores (plus a damping term, so that a lone weak
# candidate is not certain). Checked against accuracy by bench/bench_classify.py.
EVIDENCE_SCALE = 3.0
SHARE_DAMPING = 0.5
SHARE_EXPONENT = 0.5


@dataclass(frozen=True, slots=True)
class ClassifierResult:
    """One candidate code: its NAICS 2022 title and a confidence in [0, 1]."""

    naics: str
    title: str
    confidence: float


def classify(description: str, name: str | None = None, website: str | None = None,
             limit: int = MAX_RESULTS) -> list[ClassifierResult]:
    """The most likely NAICS 2022 codes for a business, best first, at most `limit` (<= 5).

    Each text is cut at classifier_text.MAX_TEXT_CHARS characters. Text with no known trade word
    gives an empty list. The result depends on the arguments alone.
    """
    index = load_index()
    scores: dict[str, float] = defaultdict(float)
    described: list[tuple[str, float]] = []
    for text_tokens, weight in [(weighted_tokens(description or ""), DESCRIPTION_WEIGHT),
                                (_plain(tokens(name or "")), NAME_WEIGHT),
                                (_plain(_website_stems(website or "", index)), WEBSITE_WEIGHT)]:
        text_tokens = [(index.synonyms.get(word, word), factor)
                       for word, factor in _correct(text_tokens, index)]
        # Phrases of two words or more claim their words first, then two-word phrases in the
        # other order, then single words: "we repair old appliances" is appliance repair before
        # it is "repair" alone.
        unclaimed = _score_phrases(text_tokens, weight, index, scores, shortest=2)
        unclaimed = _score_pairs(unclaimed, weight, index, scores)
        unclaimed = _score_phrases(unclaimed, weight, index, scores, shortest=1)
        _score_titles(unclaimed, weight, index, scores)
        described.extend(text_tokens)
    _apply_contexts([word for word, factor in described if factor == 1.0], index, scores)
    ranked = sorted(((s, c) for c, s in scores.items() if s >= MIN_SCORE), key=lambda p: (-p[0], p[1]))
    return _results(ranked[:MAX_RESULTS])[:max(0, min(limit, MAX_RESULTS))]


def _plain(stems: list[str]) -> list[tuple[str, float]]:
    return [(word, 1.0) for word in stems]


def _score_phrases(text_tokens: list[tuple[str, float]], weight: float, index: KeywordIndex,
                   scores: dict[str, float], shortest: int) -> list[tuple[str, float]]:
    """Longest phrase first, left to right: a phrase's words are not read again on their own
    ("food truck" is a food truck, not a truck); each distinct phrase counts once, at the
    largest weight of its words. Returns the words no phrase claimed."""
    seen: set[tuple[str, ...]] = set()
    unclaimed: list[tuple[str, float]] = []
    stems = [word for word, _ in text_tokens]
    position = 0
    while position < len(stems):
        for length in range(min(index.longest_phrase, len(stems) - position), shortest - 1, -1):
            key = tuple(stems[position:position + length])
            if key in index.phrases:
                if key not in seen:
                    seen.add(key)
                    factor = max(f for _, f in text_tokens[position:position + length])
                    for code, phrase_weight in index.phrases[key]:
                        scores[code] += phrase_weight * weight * factor
                position += length
                break
        else:
            unclaimed.append(text_tokens[position])
            position += 1
    return unclaimed


def _score_pairs(text_tokens: list[tuple[str, float]], weight: float, index: KeywordIndex,
                 scores: dict[str, float]) -> list[tuple[str, float]]:
    """Two-word phrases in the other order or a word apart, among the words left: owners say
    "we clean offices" for "office cleaning", "repair old appliances" for "appliance repair".
    Returns the words still unclaimed."""
    taken: set[int] = set()
    seen: set[tuple[str, str]] = set()
    for first in range(len(text_tokens)):
        for second in range(first + 1, min(len(text_tokens), first + 1 + PAIR_WINDOW)):
            if first in taken or second in taken:
                continue
            a, b = text_tokens[first][0], text_tokens[second][0]
            key = (b, a) if (b, a) in index.phrases else (a, b) if (a, b) in index.phrases else None
            if key is None:
                continue
            taken.update((first, second))
            if key in seen:
                continue
            seen.add(key)
            factor = max(text_tokens[first][1], text_tokens[second][1]) * PAIR_FACTOR
            for code, phrase_weight in index.phrases[key]:
                scores[code] += phrase_weight * weight * factor
    return [token for position, token in enumerate(text_tokens) if position not in taken]


def _score_titles(text_tokens: list[tuple[str, float]], weight: float, index: KeywordIndex,
                  scores: dict[str, float]) -> None:
    """Codes whose title shares words with the text, by the share of the title's (idf) weight
    matched and the rarity of what matched."""
    matched: dict[str, float] = defaultdict(float)
    factors: dict[str, float] = {}
    for word, factor in text_tokens:
        factors[word] = max(factor, factors.get(word, 0.0))
    for word, factor in factors.items():
        for code in index.title_postings.get(word, ()):
            matched[code] += index.idf[word] * factor
    for code, mass in matched.items():
        coverage = mass / index.title_mass[code]
        scores[code] += weight * TITLE_WEIGHT * coverage * min(1.0, mass / 5.0)


def _apply_contexts(stems: list[str], index: KeywordIndex, scores: dict[str, float]) -> None:
    """Words such as "wholesale" or "rental" favour a part of NAICS among the candidates found."""
    boosts = [target for word in dict.fromkeys(stems) for target in index.contexts.get(word, ())]
    if not boosts:
        return
    for code, score in list(scores.items()):
        sector = naics_reference.sector_code(code)
        # In proportion to the evidence already there, up to a strong phrase's worth: a context
        # word confirms a candidate, it does not lift a stray title match over a named trade.
        support = min(1.0, score / TIER_WEIGHTS["strong"])
        for prefix, weight in boosts:
            if code.startswith(prefix) or sector == prefix:
                scores[code] += weight * support


def _correct(text_tokens: list[tuple[str, float]], index: KeywordIndex) -> list[tuple[str, float]]:
    """Unknown words read as known ones: a plural the stemmer kept ("rvs" as "rv"), then, for
    long words, the nearest known stem ("resturant" as "restaur")."""
    corrected, lookups = [], 0
    for word, factor in text_tokens:
        if word not in index.vocabulary_set:
            if word.endswith("s") and word[:-1] in index.vocabulary_set:
                word = word[:-1]
            elif len(word) >= TYPO_MIN_LENGTH and lookups < MAX_TYPO_LOOKUPS:
                lookups += 1
                word = _nearest_stem(word)
        corrected.append((word, factor))
    return corrected


@lru_cache(maxsize=20_000)
def _nearest_stem(word: str) -> str:
    # Among the known stems of the same initial (a typo rarely hits the first letter), which
    # keeps each look-up to a few hundred comparisons.
    candidates = load_index().vocabulary_by_initial.get(word[0], ())
    best = process.extractOne(word, candidates, scorer=fuzz.ratio, score_cutoff=TYPO_MIN_RATIO)
    return best[0] if best else word


def _website_stems(website: str, index: KeywordIndex) -> list[str]:
    """Known words in a host name, also where they run together ("joesplumbing")."""
    found: list[str] = []
    for part in host_parts(website):
        if stem(part) in index.vocabulary_set:
            found.append(stem(part))
            continue
        rest = part
        for surface, word_stem in index.host_words:
            if surface in rest:
                found.append(word_stem)
                rest = rest.replace(surface, " ")
    return found


def _results(ranked: list[tuple[float, str]]) -> list[ClassifierResult]:
    if not ranked:
        return []
    strength = 1.0 - math.exp(-ranked[0][0] / EVIDENCE_SCALE)
    total = sum(score for score, _ in ranked) + SHARE_DAMPING
    return [ClassifierResult(code, naics_reference.title(code) or "",
                             round(strength * (score / total) ** SHARE_EXPONENT, 3))
            for score, code in ranked]
