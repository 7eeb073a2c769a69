"""Normal forms the prospects area matches on: domains, e-mail addresses, phone digits, names."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_LEGAL_SUFFIXES = {"inc", "incorporated", "llc", "ltd", "limited", "co", "corp", "corporation",
                   "company", "lp", "llp", "plc", "pllc"}
_HOST = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")


def normalise_domain(website: str | None) -> str | None:
    """`https://WWW.Example.com:443/x` -> `example.com`; None when there is no host name."""
    if not website or not website.strip():
        return None
    text = website.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    try:
        host = host.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError:
        return None
    host = host.removeprefix("www.")
    return host if _HOST.match(host) else None


def normalise_email(email: str | None) -> str | None:
    return email.strip().lower() if email and email.strip() else None


def phone_digits(phone: str | None) -> str | None:
    digits = re.sub(r"\D", "", phone or "")
    return digits or None


def normalise_name(name: str) -> str:
    """Lower case, punctuation dropped, legal suffixes (Inc, LLC, ...) removed."""
    words = re.sub(r"[^\w\s]", " ", name.lower()).split()
    while len(words) > 1 and words[-1] in _LEGAL_SUFFIXES:
        words.pop()
    return " ".join(words)
