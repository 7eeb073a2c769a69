"""Text normalisation for the NAICS classifier: case, accents, punctuation, stop words and stems."""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

import Stemmer

# Longer descriptions are cut here before anything else: an owner's description fits easily, and
# the classifier's time stays bounded whatever a caller sends (a website's text, a pasted page).
MAX_TEXT_CHARS = 2000

# Words that say nothing about the trade. Both the index and the descriptions lose them, so an
# index phrase such as "bed and breakfast" matches "bed & breakfast" and "bed n breakfast".
STOP_WORDS = frozenset([
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "around", "as",
    "at", "be", "been", "being", "both", "but", "by", "can", "co", "corp",
    "corporation", "could", "did", "do", "does", "doing", "each", "etc", "every", "few",
    "for", "from", "get", "got", "had", "has", "have", "he", "her", "here", "hers", "him",
    "his", "how", "i", "im", "in", "inc", "incorporated", "into", "is", "it", "its", "ive", "just",
    "llc", "ltd", "many", "me", "more", "most", "mostly", "much", "my", "n", "need", "needs",
    "no", "not", "now", "of", "off", "on", "one", "only", "or", "other", "our", "ours", "out",
    "over", "own", "per", "plus", "pllc", "really", "right", "run", "runs", "same", "she",
    "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "thing", "things", "this", "those", "through", "to", "too", "two", "up", "us",
    "very", "via", "was", "way", "we", "were", "what", "when", "where", "which", "while",
    "who", "whose", "why", "will", "with", "within", "would", "yes", "you", "your", "yours",
])

# "IT" (information technology) would be lost as the stop word "it": upper case, it is the trade.
_INFORMATION_TECHNOLOGY = re.compile(r"\bI\.?T\b\.?(?!['\u2019])")
# "AM" before radio words would be lost as the stop word "am".
_AM_RADIO = re.compile(r"\bAM\b(?=\s*(?:/|and|radio|station|FM|talk))")
_SMALL_AMPERSAND = re.compile(r"\b([a-z])\s*&\s*([a-z])\b")  # r&d, b&b, p&c: one token
_APOSTROPHE_S = re.compile(r"['\u2019]s\b")
_APOSTROPHE = re.compile(r"['\u2019]")
_WORD = re.compile(r"[a-z0-9]+")
# A hyphenated word whose one side would be dropped reads as one word: "x-ray", "take-out",
# "co-op", "pre-k", "18-hole" (the other hyphenated words read as two: "in-home" is "in home").
_HYPHENATED = re.compile(r"\b([a-z0-9]+)-([a-z0-9]+)\b")
_WORD_OR_BREAK = re.compile(r"[a-z0-9]+|[.,;:!?()\[\]\n]")

# Who the business serves is not what it does: in "we sell it to restaurants" or "engineering for
# homebuilders" the words after the marker name the customers. They count at AUDIENCE_FACTOR, from
# the marker to the end of the clause, a scope breaker, or AUDIENCE_SCOPE words.
AUDIENCE_FACTOR = 0.35
AUDIENCE_SCOPE = 4
AUDIENCE_MARKERS = frozenset(["for", "to", "serving", "serve", "serves", "supplying", "customers",
                              "clients"])
SCOPE_BREAKERS = frozenset(["with", "on", "in", "at", "by", "from", "into", "we", "i", "our", "who",
                            "that", "which", "while", "but", "so", "because", "using", "through",
                            "as", "also", "plus", "like", "such"])


@cache
def _stemmer() -> Stemmer.Stemmer:
    # PyStemmer: the Snowball English algorithm compiled (about 1 us a word).
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The word's English (Snowball) stem: plurals, -ing, -ed and -er forms fold together."""
    return _stemmer().stemWord(word)


def fold(text: str) -> str:
    """Lower case without accents, "&" spelt "and", possessives dropped."""
    text = unicodedata.normalize("NFKD", text[:MAX_TEXT_CHARS])
    text = _INFORMATION_TECHNOLOGY.sub(" infotech ", text)
    text = _AM_RADIO.sub(" amradio ", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = _SMALL_AMPERSAND.sub(r"\1\2", text).replace("&", " and ")
    text = _HYPHENATED.sub(_join_hyphenated, text)
    return _APOSTROPHE.sub("", _APOSTROPHE_S.sub("", text))


def _join_hyphenated(match: re.Match[str]) -> str:
    left, right = match.groups()
    if any(len(side) == 1 or side.isdigit() or side in STOP_WORDS for side in (left, right)):
        return left + right
    return f"{left} {right}"


def words(text: str) -> list[str]:
    """The folded words of a text, stop words, lone letters and bare numbers left out."""
    return [w for w in _WORD.findall(fold(text))
            if w not in STOP_WORDS and len(w) > 1 and not w.isdigit()]


def tokens(text: str) -> list[str]:
    """The stems of a text's words, in order: what the index and the title matching compare."""
    return [stem(w) for w in words(text)]


def weighted_tokens(text: str) -> list[tuple[str, float]]:
    """The stems of a description with the weight each carries: 1, or AUDIENCE_FACTOR for the
    words naming its customers."""
    found: list[tuple[str, float]] = []
    scope = 0
    for piece in _WORD_OR_BREAK.findall(fold(text)):
        if not piece[0].isalnum() or piece in SCOPE_BREAKERS:
            scope = 0
        if not piece[0].isalnum() or piece in STOP_WORDS or len(piece) < 2 or piece.isdigit():
            if piece in AUDIENCE_MARKERS:
                scope = AUDIENCE_SCOPE
            continue
        found.append((stem(piece), AUDIENCE_FACTOR if scope else 1.0))
        scope = AUDIENCE_SCOPE if piece in AUDIENCE_MARKERS else max(0, scope - 1)
    return found


def host_parts(website: str) -> list[str]:
    """The meaningful parts of a website's host name ("joes-plumbing" of https://www.joes-plumbing.com)."""
    host = fold(website).strip()
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", host).split("/")[0].split("@")[-1].split(":")[0]
    labels = [label for label in host.split(".") if label]
    if labels and labels[0] == "www":
        labels = labels[1:]
    if len(labels) > 1:
        labels = labels[:-1]  # the top-level domain says nothing about the trade
    return [part for label in labels for part in _WORD.findall(label)]
