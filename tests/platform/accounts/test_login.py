"""Login and sessions: refusals, rotation, the sliding 14-day lifetime, logout."""

from __future__ import annotations

from insureops.platform.config import Settings
from tests.platform.accounts.conftest import Accounts, cheap_hashing_areas

DAY = 24 * 3600


async def test_login_is_refused_when_password_is_wrong(accounts):
    await accounts.verified_user("ann@example.com")

    response = await accounts.login("ann@example.com", "wrong password!")

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_credentials"
    assert "sessionid" not in response.cookies


async def test_login_answers_alike_when_address_is_unknown(accounts):
    await accounts.verified_user("ann@example.com")
    wrong = await (await accounts.login("ann@example.com", "wrong password!")).json()

    unknown = await accounts.login("nobody@example.com", "wrong password!")

    assert unknown.status == 401
    assert await unknown.json() == wrong


async def test_login_is_403_when_email_is_not_verified(accounts):
    await accounts.sign_up("ann@example.com")

    response = await accounts.login("ann@example.com")

    assert response.status == 403
    assert (await response.json())["error"]["code"] == "email_not_verified"
    assert "sessionid" not in response.cookies


async def test_login_rotates_the_session_id_when_a_session_cookie_is_presented(accounts):
    await accounts.verified_user("ann@example.com")
    first = (await accounts.login("ann@example.com")).cookies["sessionid"].value

    second = (await accounts.login("ann@example.com")).cookies["sessionid"].value

    assert second != first
    accounts.client.session.cookie_jar.clear()
    old = await accounts.client.get("/api/auth/profile/", cookies={"sessionid": first})
    new = await accounts.client.get("/api/auth/profile/", cookies={"sessionid": second})
    assert old.status == 401 and new.status == 200


async def test_session_slides_forward_when_used_within_14_days(accounts):
    await accounts.verified_user("ann@example.com")
    await accounts.login("ann@example.com")

    for _ in range(3):  # 39 days in all, never 14 days idle
        accounts.clock.advance(13 * DAY)
        response = await accounts.client.get("/api/auth/profile/")
        assert response.status == 200
        assert response.cookies["sessionid"]["max-age"] == str(14 * DAY)


async def test_session_expires_when_idle_for_14_days(accounts):
    await accounts.verified_user("ann@example.com")
    await accounts.login("ann@example.com")
    accounts.clock.advance(14 * DAY)

    response = await accounts.client.get("/api/auth/profile/")

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_cookie_is_secure_when_configured(make_client, smtp_settings, clock,
                                                secure_smtp_server):
    settings = Settings(**{**smtp_settings.model_dump(), "secure_cookies": True})
    client = await make_client(settings, clock=clock, areas=cheap_hashing_areas())
    accounts = Accounts(client, clock, secure_smtp_server)
    await accounts.verified_user("ann@example.com")

    response = await accounts.login("ann@example.com")

    assert response.cookies["sessionid"]["secure"] is True


async def test_logout_is_401_when_there_is_no_session(accounts):
    response = await accounts.client.post("/api/auth/logout/")

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_profile_is_401_when_cookie_is_forged(accounts):
    response = await accounts.client.get("/api/auth/profile/",
                                         cookies={"sessionid": "A" * 43})

    assert response.status == 401
