"""The classifier's index: the project's own phrase file and the NAICS 2022 titles, built once."""

from __future__ import annotations

import math
import re
import tomllib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from insureops.carrier_matching import naics_reference
from insureops.carrier_matching.classifier_text import tokens, words

INDEX_FILE = "classifier_index/keywords.toml"
TIER_WEIGHTS = {"strong": 3.0, "weak": 1.0}
_RAW_WORD = re.compile(r"[A-Za-z0-9]+(?:[-&/][A-Za-z0-9]+)*")
# Title words that name no trade: "Holding Companies", "Sales Financing" (every seller says "sell").
TITLE_STOP_STEMS = frozenset(["compani", "sell"])
_EXCEPT_CLAUSE = re.compile(r"\((?:except|including)[^)]*\)", re.IGNORECASE)


class KeywordIndexError(ValueError):
    """The phrase file names a code that is not NAICS 2022, or is malformed."""

    code = "classifier_index_invalid"


@dataclass(frozen=True, slots=True)
class KeywordIndex:
    """Lookups the classifier runs against; every key is a tuple of stems."""

    phrases: Mapping[tuple[str, ...], tuple[tuple[str, float], ...]]
    synonyms: Mapping[str, str]  # stem -> the stem it is read as ("fix" -> "repair")
    longest_phrase: int
    contexts: Mapping[str, tuple[tuple[str, float], ...]]  # stem -> (code prefix, weight)
    title_postings: Mapping[str, tuple[str, ...]]  # stem -> codes whose title holds it
    idf: Mapping[str, float]
    title_mass: Mapping[str, float]  # code -> sum of its title stems' idf
    vocabulary_set: frozenset[str]  # every stem known
    vocabulary_by_initial: Mapping[str, tuple[str, ...]]  # for typo correction
    host_words: tuple[tuple[str, str], ...]  # (surface word, stem), longest first, for host names


@cache
def load_index() -> KeywordIndex:
    """Read the phrase file shipped with the package and index the NAICS titles."""
    # Beside this module (as dsl/ finds its grammar): the folder is a namespace package, which
    # importlib.resources cannot read under an editable install.
    text = (Path(__file__).parent / INDEX_FILE).read_text("utf-8")
    return build_index(tomllib.loads(text))


def build_index(document: Mapping[str, object]) -> KeywordIndex:
    """Build the index from a parsed phrase file (see classifier_index/keywords.toml)."""
    phrases: dict[tuple[str, ...], dict[str, float]] = defaultdict(dict)
    surfaces: dict[str, str] = {}
    synonyms = _synonyms(_mapping(document.get("synonyms", {}), "synonyms"))
    for code, tiers in _mapping(document.get("codes", {}), "codes").items():
        if not naics_reference.is_national_industry(code):
            raise KeywordIndexError(f"codes.{code}: not a 6-digit NAICS {naics_reference.NAICS_VERSION} code")
        for tier, entries in _mapping(tiers, f"codes.{code}").items():
            if tier not in TIER_WEIGHTS or not isinstance(entries, list):
                raise KeywordIndexError(f"codes.{code}.{tier}: expected strong = [...] or weak = [...]")
            for entry in entries:
                key = tuple(synonyms.get(stem, stem) for stem in tokens(str(entry)))
                if not key:
                    raise KeywordIndexError(f"codes.{code}: {entry!r} has no words left to match")
                if len(key) == 1 and len(_RAW_WORD.findall(str(entry))) > 1:
                    # "all you can eat" would read as "eat": a phrase must stay a phrase.
                    raise KeywordIndexError(
                        f"codes.{code}: {entry!r} reads as the one word {key[0]!r}")
                weight = TIER_WEIGHTS[tier]
                phrases[key][code] = max(weight, phrases[key].get(code, 0.0))
                if len(key) == 1 and tier == "strong":
                    for word in words(str(entry)):
                        surfaces.setdefault(word, key[0])
    contexts = _contexts(_mapping(document.get("context", {}), "context"), synonyms)
    postings, idf, mass = _title_index(synonyms)
    vocabulary = ({stem for key in phrases for stem in key} | set(postings) | set(contexts)
                  | set(synonyms))
    return KeywordIndex(
        phrases={key: tuple(sorted(codes.items())) for key, codes in phrases.items()},
        synonyms=synonyms,
        longest_phrase=max((len(key) for key in phrases), default=1),
        contexts=contexts,
        title_postings=postings,
        idf=idf,
        title_mass=mass,
        vocabulary_set=frozenset(vocabulary),
        vocabulary_by_initial=_by_initial(vocabulary),
        host_words=tuple(sorted((w for w in surfaces.items() if len(w[0]) >= 4),
                                key=lambda item: (-len(item[0]), item[0]))),
    )


def title_stems(code: str, synonyms: Mapping[str, str]) -> list[str]:
    """The distinct stems of a code's title, its "(except ...)" clauses left out."""
    title = _EXCEPT_CLAUSE.sub(" ", naics_reference.title(code) or "")
    stems = (synonyms.get(stem, stem) for stem in tokens(title))
    return [stem for stem in dict.fromkeys(stems) if stem not in TITLE_STOP_STEMS]


def _title_index(synonyms: Mapping[str, str]
                 ) -> tuple[dict[str, tuple[str, ...]], dict[str, float], dict[str, float]]:
    codes = naics_reference.national_industries()
    stems_of = {code: title_stems(code, synonyms) for code in codes}
    postings: dict[str, list[str]] = defaultdict(list)
    for code in codes:
        for stem in stems_of[code]:
            postings[stem].append(code)
    idf = {stem: math.log(len(codes) / len(holders)) for stem, holders in postings.items()}
    mass = {code: sum(idf[stem] for stem in stems_of[code]) for code in codes}
    return {stem: tuple(holders) for stem, holders in postings.items()}, idf, mass


def _synonyms(section: Mapping[str, object]) -> dict[str, str]:
    synonyms: dict[str, str] = {}
    for word, meaning in section.items():
        source, target = tokens(word), tokens(str(meaning))
        if len(source) != 1 or len(target) != 1:
            raise KeywordIndexError(f"synonyms.{word}: expected one word = \"one word\"")
        if source[0] != target[0]:
            synonyms[source[0]] = target[0]
    return synonyms


def _contexts(section: Mapping[str, object],
              synonyms: Mapping[str, str]) -> dict[str, tuple[tuple[str, float], ...]]:
    contexts: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for word, targets in section.items():
        stems = tokens(word)
        if len(stems) != 1 or not isinstance(targets, Mapping):
            raise KeywordIndexError(f"context.{word}: expected one word = {{ prefix = weight }}")
        for prefix, weight in targets.items():
            contexts[synonyms.get(stems[0], stems[0])].append((str(prefix), float(weight)))
    return {stem: tuple(sorted(targets)) for stem, targets in contexts.items()}


def _by_initial(vocabulary: set[str]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for stem in sorted(vocabulary):
        groups[stem[0]].append(stem)
    return {initial: tuple(stems) for initial, stems in groups.items()}


def _mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise KeywordIndexError(f"{where}: expected a table")
    return value
