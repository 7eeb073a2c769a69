"""Identity rules: password hashing (on its own threads) and policy, tenant ids, e-mail form."""

from __future__ import annotations

import functools
import secrets
import unicodedata
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from ulid import ULID

from insureops.platform.compute.executors import BoundedExecutor

MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_LENGTH = 256  # argon2 accepts more; a cap keeps a huge body from costing CPU


@dataclass(frozen=True)
class PasswordProblem:
    """Why a password is refused, as a stable code and a message for the user."""

    code: str
    message: str


def _invisible(character: str) -> bool:
    """Whitespace, control and format characters (zero-width space, BOM, ...)."""
    return character.isspace() or unicodedata.category(character) in ("Cc", "Cf")


def check_password_policy(password: str, email: str) -> PasswordProblem | None:
    """None when `password` is acceptable: at least 10 characters besides leading and trailing
    whitespace, some of them visible, and not the e-mail address."""
    if all(_invisible(character) for character in password):
        return PasswordProblem("password_blank",
                               "The password must not be only spaces or invisible characters.")
    if len(password.strip()) < MIN_PASSWORD_LENGTH:
        return PasswordProblem("password_too_short",
                               f"Use at least {MIN_PASSWORD_LENGTH} characters.")
    if len(password) > MAX_PASSWORD_LENGTH:
        return PasswordProblem("password_too_long",
                               f"Use at most {MAX_PASSWORD_LENGTH} characters.")
    lowered = password.strip().casefold()
    if lowered in {email.casefold(), email.partition("@")[0].casefold()}:
        return PasswordProblem("password_is_email", "The password must not be your e-mail address.")
    return None


class Passwords:
    """argon2id hashing (argon2-cffi's RFC 9106 low-memory profile by default).

    The `*_off_loop` forms run on the passwords' own threads (at most `threads`), so logins
    never queue behind other kinds of work, nor they behind a burst of logins.
    """

    def __init__(self, hasher: PasswordHasher | None = None, threads: int = 2) -> None:
        self._hasher = hasher or PasswordHasher()
        self._executor = BoundedExecutor("passwords", threads)

    async def hash_off_loop(self, password: str) -> str:
        return await self._executor.run(self.hash, password)

    async def verify_off_loop(self, stored_hash: str | None, password: str) -> bool:
        return await self._executor.run(self.verify, stored_hash, password)

    def close(self) -> None:
        """Stop the hashing threads (the app that owns these passwords is closing)."""
        self._executor.close()

    @functools.cached_property
    def _decoy(self) -> str:
        """Verified against when the e-mail is unknown, so both answers take the same time."""
        return self._hasher.hash(secrets.token_urlsafe(16))

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, stored_hash: str | None, password: str) -> bool:
        """True when `password` matches; with no stored hash, spend the same time and say no."""
        try:
            return self._hasher.verify(stored_hash or self._decoy, password) and bool(stored_hash)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored_hash: str) -> bool:
        return self._hasher.check_needs_rehash(stored_hash)


def new_tenant_id(timestamp: float) -> str:
    """A ULID (26 characters, sortable by creation time) for a new workspace or user."""
    return str(ULID.from_timestamp(timestamp))


def normalise_email(email: str) -> str:
    """The stored form of an address: trimmed and lower-cased, so one mailbox is one account."""
    return email.strip().lower()
