"""Credentials of the accounts area as pure functions: verification codes and session ids."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

CODE_DIGITS = 6
SESSION_ID_BYTES = 32
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # token_urlsafe(SESSION_ID_BYTES)


def new_code() -> str:
    """A 6-digit verification code from the OS's CSPRNG, leading zeros kept."""
    return f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"


def hash_code(secret_key: bytes, user_id: str, code: str) -> str:
    """HMAC-SHA256 of the code, keyed with the server secret and bound to the user.

    A plain SHA-256 would not protect a 6-digit code: a dump of the table could be reversed by
    trying all 10^6 values in a second. With the key outside the database, the dump alone is not
    enough; binding the user id makes equal codes of different users hash differently.
    """
    return hmac.new(secret_key, f"{user_id}:{code}".encode(), hashlib.sha256).hexdigest()


def codes_match(expected_hash: str, secret_key: bytes, user_id: str, code: str) -> bool:
    """Constant-time comparison of a submitted code with the stored hash."""
    return hmac.compare_digest(expected_hash, hash_code(secret_key, user_id, code))


def new_session_id() -> str:
    """The cookie value: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(SESSION_ID_BYTES)


def is_session_id(value: str) -> bool:
    """`value` has the form of an id new_session_id makes. Anything else is no session, and
    is not hashed: bytes that were not UTF-8 reach here as lone surrogates, which encode()
    refused (a 500 on every session route, issue 28)."""
    return _SESSION_ID.fullmatch(value) is not None


def hash_session_id(session_id: str) -> str:
    """What the database keeps: SHA-256 hex. The id has 256 bits of entropy, so no key or
    stretching is needed, and a lookup stays one indexed equality."""
    return hashlib.sha256(session_id.encode()).hexdigest()
