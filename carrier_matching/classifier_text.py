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
    "at", "be", "been", "being", "both", "but", "by", "can", "co", "company", "corp",
    "corporation", "could", "did", "do", "does", "doing", "each", "etc", "every", "few",
    "for", "from", "get", "got", "had", "has", "have", "he", "her", "here", "hers", "him",
    "his", "how", "i", "im", "inc", "incorporated", "into", "is", "it", "its", "ive", "just",
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
_SMALL_AMPERSAND = re.compile(r"\b([a-z])\s*&\s*([a-z])\b")  # r&d, b&b, p&c: one token
_APOSTROPHE_S = re.compile(r"['\u2019]s\b")
_APOSTROPHE = re.compile(r"['\u2019]")
_WORD = re.compile(r"[a-z0-9]+")


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
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = _SMALL_AMPERSAND.sub(r"\1\2", text).replace("&", " and ")
    return _APOSTROPHE.sub("", _APOSTROPHE_S.sub("", text))


def words(text: str) -> list[str]:
    """The folded words of a text, stop words, lone letters and bare numbers left out."""
    return [w for w in _WORD.findall(fold(text))
            if w not in STOP_WORDS and len(w) > 1 and not w.isdigit()]


def tokens(text: str) -> list[str]:
    """The stems of a text's words, in order: what the index and the title matching compare."""
    return [stem(w) for w in words(text)]


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
