"""Rate limits of the accounts area: signup and resend per address, resend and login failures
per e-mail; headers on every answer, 429 with Retry-After and the JSON body."""

from __future__ import annotations

from tests.platform.accounts.conftest import PASSWORD, START

HOUR = 3600


def assert_limited(response, limit: int, window: int, body: dict) -> None:
    assert response.status == 429
    assert body["error"]["code"] == "rate_limited"
    reset = (int(START // window) + 1) * window
    assert response.headers["X-RateLimit-Limit"] == str(limit)
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert response.headers["X-RateLimit-Reset"] == str(reset)
    assert response.headers["Retry-After"] == str(int(reset - START))


async def test_signup_is_429_when_one_address_signs_up_a_sixth_time_in_an_hour(accounts):
    answers = [await accounts.sign_up(f"user{i}@example.com") for i in range(5)]
    assert [r.status for r in answers] == [202] * 5
    assert [r.headers["X-RateLimit-Remaining"] for r in answers] == ["4", "3", "2", "1", "0"]

    sixth = await accounts.sign_up("user5@example.com")

    assert_limited(sixth, 5, HOUR, await sixth.json())
    assert len(accounts.smtp.messages) == 5
    accounts.clock.advance(HOUR)
    assert (await accounts.sign_up("user5@example.com")).status == 202


async def test_register_alias_shares_the_signup_limit(accounts):
    for i in range(5):
        await accounts.sign_up(f"user{i}@example.com")

    response = await accounts.client.post("/api/auth/register/", json={
        "email": "late@example.com", "password": PASSWORD, "name": "Late"})

    assert response.status == 429
    assert response.headers["Deprecation"] == "true"


async def test_resend_is_429_when_one_email_asks_a_fourth_time_in_an_hour(accounts):
    await accounts.sign_up("ann@example.com")
    answers = [await accounts.client.post("/api/auth/resend-code/",
                                          json={"email": "ann@example.com"}) for _ in range(4)]

    assert [r.status for r in answers] == [202, 202, 202, 429]
    assert_limited(answers[-1], 3, HOUR, await answers[-1].json())
    assert len(accounts.codes_for("ann@example.com")) == 4  # signup + 3 resends


async def test_resend_is_429_when_one_address_asks_for_a_fourth_email(accounts):
    answers = [await accounts.client.post("/api/auth/resend-code/",
                                          json={"email": f"u{i}@example.com"}) for i in range(4)]

    assert [r.status for r in answers] == [202, 202, 202, 429]
    assert_limited(answers[-1], 3, HOUR, await answers[-1].json())


async def test_login_is_429_even_with_the_right_password_after_ten_failures(accounts):
    await accounts.verified_user("ann@example.com")
    failures = [await accounts.login("ann@example.com", "wrong password!") for _ in range(10)]
    assert [r.status for r in failures] == [401] * 10
    assert failures[0].headers["X-RateLimit-Remaining"] == "9"
    assert failures[-1].headers["X-RateLimit-Remaining"] == "0"

    blocked = await accounts.login("ann@example.com", PASSWORD)

    assert_limited(blocked, 10, 15 * 60, await blocked.json())
    assert "sessionid" not in blocked.cookies
    other = await accounts.login("bob@example.com", "wrong password!")
    assert other.status == 401  # counted per e-mail
    accounts.clock.advance(15 * 60)
    assert (await accounts.login("ann@example.com", PASSWORD)).status == 200


async def test_successful_logins_are_not_counted_as_failures(accounts):
    await accounts.verified_user("ann@example.com")

    answers = [await accounts.login("ann@example.com") for _ in range(12)]

    assert {r.status for r in answers} == {200}
    assert answers[-1].headers["X-RateLimit-Remaining"] == "10"
