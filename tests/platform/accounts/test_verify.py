"""Verification codes: wrong, expired, five wrong tries, resend replaces the code."""

from __future__ import annotations


async def error_code(response) -> str:
    return (await response.json())["error"]["code"]


def other_code(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


async def test_verify_is_refused_when_code_is_wrong(accounts):
    await accounts.sign_up("ann@example.com")
    code = accounts.last_code("ann@example.com")

    response = await accounts.verify("ann@example.com", other_code(code))

    assert response.status == 400
    assert await error_code(response) == "invalid_code"
    assert (await accounts.login("ann@example.com")).status == 403


async def test_verify_is_refused_when_code_is_older_than_15_minutes(accounts):
    await accounts.sign_up("ann@example.com")
    code = accounts.last_code("ann@example.com")
    accounts.clock.advance(15 * 60)

    response = await accounts.verify("ann@example.com", code)

    assert response.status == 400
    assert await error_code(response) == "invalid_code"


async def test_verify_accepts_code_when_just_inside_15_minutes(accounts):
    await accounts.sign_up("ann@example.com")
    accounts.clock.advance(15 * 60 - 1)

    response = await accounts.verify("ann@example.com", accounts.last_code("ann@example.com"))

    assert response.status == 200


async def test_right_code_is_refused_when_five_wrong_tries_came_first(accounts):
    await accounts.sign_up("ann@example.com")
    code = accounts.last_code("ann@example.com")
    answers = [await error_code(await accounts.verify("ann@example.com", other_code(code)))
               for _ in range(5)]

    assert answers == ["invalid_code"] * 5
    response = await accounts.verify("ann@example.com", code)
    assert response.status == 400
    assert await error_code(response) == "invalid_code"


async def test_new_code_works_and_old_one_does_not_when_resent_after_exhaustion(accounts):
    await accounts.sign_up("ann@example.com")
    old = accounts.last_code("ann@example.com")
    for _ in range(5):
        await accounts.verify("ann@example.com", other_code(old))

    resend = await accounts.client.post("/api/auth/resend-code/",
                                        json={"email": "ann@example.com"})

    assert resend.status == 202
    new = accounts.last_code("ann@example.com")
    assert len(accounts.codes_for("ann@example.com")) == 2
    if new != old:
        assert await error_code(await accounts.verify("ann@example.com", old)) == "invalid_code"
    assert (await accounts.verify("ann@example.com", new)).status == 200
    assert (await accounts.login("ann@example.com")).status == 200


async def test_resend_answers_alike_and_sends_nothing_when_address_is_unknown(accounts):
    await accounts.sign_up("ann@example.com")
    known = await accounts.client.post("/api/auth/resend-code/", json={"email": "ann@example.com"})
    unknown = await accounts.client.post("/api/auth/resend-code/", json={"email": "x@example.com"})

    assert known.status == unknown.status == 202
    assert [m.rcpt_tos for m in accounts.smtp.messages] == [("ann@example.com",)] * 2


async def test_verify_is_refused_alike_when_address_is_unknown_or_already_verified(accounts):
    await accounts.verified_user("ann@example.com")
    code = accounts.last_code("ann@example.com")

    for email in ("ann@example.com", "nobody@example.com"):
        response = await accounts.verify(email, code)
        assert response.status == 400
        assert await error_code(response) == "invalid_code"


async def test_verify_answers_alike_when_wrong_code_is_for_a_pending_sign_up_or_unknown_address(
        accounts):
    """Issue 17: a wrong code answered "(4 tries left)" only for an address with a pending
    sign-up, which told pending sign-ups apart."""
    await accounts.sign_up("ann@example.com")
    wrong = other_code(accounts.last_code("ann@example.com"))

    for attempt in range(6):  # wrong tries, then exhausted; also expired below
        pending = await accounts.verify("ann@example.com", wrong)
        unknown = await accounts.verify("nobody@example.com", wrong)
        assert (pending.status, await pending.json()) == (unknown.status, await unknown.json()), \
            attempt
    accounts.clock.advance(16 * 60)
    expired = await accounts.verify("ann@example.com", accounts.last_code("ann@example.com"))
    unknown = await accounts.verify("nobody@example.com", wrong)
    assert (expired.status, await expired.json()) == (unknown.status, await unknown.json())
