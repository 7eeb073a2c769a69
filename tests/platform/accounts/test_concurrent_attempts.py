"""Attempt limits under concurrency (issue 28): verification codes and login passwords.

Every request here is sent at once (asyncio.gather through the real service on SQLite and
PostgreSQL). A try is counted by one conditional statement before the code or the password is
compared, so a burst gets exactly the limit's number of comparisons, and never a 5xx.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.platform.accounts.test_verify import error_code, other_code


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
