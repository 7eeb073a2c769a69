"""Attempt limits under concurrency (issue 28): verification codes and login passwords.

Every request here is sent at once (asyncio.gather through the real service on SQLite and
PostgreSQL). A try is counted by one conditional statement before the code or the password is
compared, so a burst gets exactly the limit's number of comparisons, and never a 5xx.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest

from insureops.platform.identity import Passwords
from tests.platform.accounts.conftest import (
    CHEAP_PASSWORDS,
    PASSWORD,
    START,
    Accounts,
    cheap_hashing_areas,
)
from tests.platform.accounts.test_verify import error_code, other_code

LOGIN_WINDOW = 15 * 60


class CountingPasswords(Passwords):
    """The real argon2id hasher (cheap parameters), counting the password verifications it
    runs; they run in worker threads, hence the lock."""

    def __init__(self) -> None:
        super().__init__(CHEAP_PASSWORDS)
        self._lock = threading.Lock()
        self.verified = 0
        self.refused = 0

    def verify(self, stored_hash: str | None, password: str) -> bool:
        matched = super().verify(stored_hash, password)
        with self._lock:
            self.verified += 1
            self.refused += not matched
        return matched


@pytest.fixture
def passwords() -> CountingPasswords:
    return CountingPasswords()


@pytest.fixture
async def counted(make_client, smtp_settings, clock, secure_smtp_server,
                  passwords) -> Accounts:
    """The whole service, its accounts area verifying passwords with `passwords`."""
    client = await make_client(smtp_settings, clock=clock, areas=cheap_hashing_areas(passwords))
    return Accounts(client, clock, secure_smtp_server)


async def at_once(*requests):
    return await asyncio.gather(*requests)


async def test_right_code_is_refused_when_forty_wrong_codes_came_at_once(accounts):
    """Issue 28: the tries were read, compared and written back unlocked, so 40 wrong codes at
    once counted fewer than five and the right code was accepted afterwards."""
    await accounts.sign_up("ann@example.com")
    code = accounts.last_code("ann@example.com")

    wrong = await at_once(*[accounts.verify("ann@example.com", other_code(code))
                            for _ in range(40)])

    assert Counter(r.status for r in wrong) == {400: 40}
    right = await accounts.verify("ann@example.com", code)
    assert (right.status, await error_code(right)) == (400, "invalid_code")
    assert (await accounts.login("ann@example.com")).status == 403
    await accounts.client.post("/api/auth/resend-code/", json={"email": "ann@example.com"})
    assert (await accounts.verify("ann@example.com", accounts.last_code(
        "ann@example.com"))).status == 200


async def test_no_verify_answer_is_5xx_when_a_hundred_codes_race(accounts):
    """Issue 28: a burst of 99 gave 500s (StaleDataError: the counted row had been deleted by
    the request with the right code)."""
    await accounts.sign_up("ann@example.com")
    code = accounts.last_code("ann@example.com")
    codes = [other_code(code)] * 100
    codes[50] = code

    answers = await at_once(*[accounts.verify("ann@example.com", c) for c in codes])

    statuses = Counter(r.status for r in answers)
    assert set(statuses) <= {200, 400}, statuses
    accepted = statuses[200] == 1  # only when the right code won one of the five tries
    assert (await accounts.verify("ann@example.com", code)).status == 400
    assert (await accounts.login("ann@example.com")).status == (200 if accepted else 403)


async def test_at_most_ten_passwords_are_verified_when_39_wrong_logins_come_at_once(
        counted, passwords):
    """Issue 28: the failure counter was read before and written after the hash check, so 39
    wrong passwords sent at once were all verified (the limit is 10 per 15 minutes)."""
    await counted.verified_user("ann@example.com")

    answers = await at_once(*[counted.login("ann@example.com", "wrong password!")
                              for _ in range(39)])

    assert Counter(r.status for r in answers) == {401: 10, 429: 29}
    assert (passwords.verified, passwords.refused) == (10, 10)
    reset = (int(START // LOGIN_WINDOW) + 1) * LOGIN_WINDOW
    for refused in (r for r in answers if r.status == 429):
        assert (await refused.json())["error"]["code"] == "rate_limited"
        assert refused.headers["Retry-After"] == str(int(reset - START))
        assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert (await counted.login("ann@example.com", PASSWORD)).status == 429
    assert passwords.verified == 10


async def test_no_login_answer_is_5xx_when_a_hundred_logins_race(counted, passwords):
    await counted.verified_user("ann@example.com")
    tries = [PASSWORD if i % 2 else "wrong password!" for i in range(100)]

    answers = await at_once(*[counted.login("ann@example.com", p) for p in tries])

    statuses = Counter(r.status for r in answers)
    assert set(statuses) <= {200, 401, 429}, statuses
    assert statuses[401] == passwords.refused <= 10
    assert statuses[200] == passwords.verified - passwords.refused


async def test_right_password_logs_in_when_ten_logins_of_one_address_come_at_once(
        counted, passwords):
    """A login holds one of the address's ten tries only while its password is checked; a
    success gives it back, so logins of one person never lock them out."""
    await counted.verified_user("ann@example.com")

    answers = await at_once(*[counted.login("ann@example.com") for _ in range(10)])

    assert [r.status for r in answers] == [200] * 10
    after = await counted.login("ann@example.com")
    assert (after.status, after.headers["X-RateLimit-Remaining"]) == (200, "10")
