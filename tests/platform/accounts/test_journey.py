"""The whole journey over HTTP: sign up, read the code from the SMTP mailbox, verify, log in,
profile, log out; then the cookie (even a copied one) is worthless."""

from __future__ import annotations

from argon2 import PasswordHasher
from sqlalchemy import text

from insureops.platform.keys import DATABASE
from tests.platform.accounts.conftest import PASSWORD


async def test_journey_from_signup_to_logout_when_everything_is_right(accounts_as_deployed):
    accounts = accounts_as_deployed
    client = accounts.client
    signup = await accounts.sign_up("Ann@Example.com", name="Ann Lee")
    assert signup.status == 202
    assert (await signup.json())["email"] == "Ann@Example.com"

    [mail] = accounts.smtp.messages
    assert mail.over_tls and mail.authenticated_as == "mailer"
    assert mail.rcpt_tos == ("ann@example.com",)
    code = accounts.last_code("ann@example.com")
    assert code in mail.html_body()

    async with client.app[DATABASE].engine.connect() as connection:
        stored = (await connection.execute(text("SELECT password_hash FROM users"))).scalar_one()
    default = PasswordHasher()  # the production parameters are argon2-cffi's defaults
    assert stored.startswith(f"$argon2id$v=19$m={default.memory_cost},t={default.time_cost},"
                             f"p={default.parallelism}$")

    verify = await accounts.verify("ann@example.com", code)
    assert verify.status == 200
    assert await verify.json() == {"email": "ann@example.com", "email_verified": True}

    login = await accounts.login("ANN@example.com", PASSWORD)
    assert login.status == 200
    cookie = login.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]
    assert cookie["max-age"] == str(14 * 24 * 3600) and cookie["path"] == "/"
    session_id = cookie.value
    assert len(session_id) == 43

    profile = await client.get("/api/auth/profile/")
    assert profile.status == 200
    body = await profile.json()
    assert body["user"]["email"] == "ann@example.com" and body["user"]["name"] == "Ann Lee"
    assert body["user"]["email_verified"] is True
    [workspace] = body["workspaces"]
    assert workspace["role"] == "owner" and workspace["name"] == "Ann Lee's workspace"
    assert len(workspace["id"]) == 26  # a ULID
    assert body["active_workspace"] == workspace
    assert await login.json() == body

    logout = await client.post("/api/auth/logout/")
    assert logout.status == 204
    assert logout.cookies["sessionid"].value == ""

    after = await client.get("/api/auth/profile/")
    assert after.status == 401
    assert (await after.json())["error"]["code"] == "not_authenticated"

    client.session.cookie_jar.clear()
    stolen = await client.get("/api/auth/profile/", cookies={"sessionid": session_id})
    assert stolen.status == 401
    assert (await stolen.json())["error"]["code"] == "not_authenticated"
