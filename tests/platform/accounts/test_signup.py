"""Sign-up: the password policy, the taken-address answer, the deprecated alias, the limit."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from insureops.platform.accounts.payloads import SignupRequest
from insureops.platform.keys import DATABASE
from tests.platform.accounts.conftest import PASSWORD


async def test_signup_is_refused_with_field_details_when_password_is_short(accounts):
    response = await accounts.sign_up("ann@example.com", password="short")

    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "validation_error"
    assert error["details"] == [{"field": "password", "message": "Use at least 10 characters."}]
    assert accounts.smtp.messages == []


async def test_signup_is_refused_when_password_is_the_email(accounts):
    response = await accounts.sign_up("ann.lee@example.com", password="Ann.Lee@Example.com")

    assert response.status == 400
    [detail] = (await response.json())["error"]["details"]
    assert detail["field"] == "password" and "e-mail" in detail["message"]


async def test_signup_is_refused_when_email_is_malformed(accounts):
    response = await accounts.sign_up("not-an-address")

    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "email"


async def test_taken_address_gets_the_same_answer_and_a_notice_when_already_verified(accounts):
    await accounts.verified_user("ann@example.com")
    fresh = await accounts.sign_up("bob@example.com", name="Bob")

    taken = await accounts.sign_up("ann@example.com", password="another password 1", name="Eve")

    assert taken.status == fresh.status == 202
    assert (await taken.json())["message"] == (await fresh.json())["message"]
    notice = accounts.smtp.messages[-1]
    assert notice.rcpt_tos == ("ann@example.com",)
    assert notice.message["Subject"] == "Someone tried to sign up to insureops with your address"
    assert "Hello Ann Lee" in notice.text_body()
    assert len(accounts.codes_for("ann@example.com")) == 1  # no new code
    assert (await accounts.login("ann@example.com", PASSWORD)).status == 200
    assert (await accounts.login("ann@example.com", "another password 1")).status == 401


async def test_unverified_signup_is_replaced_when_the_address_signs_up_again(accounts):
    await accounts.sign_up("ann@example.com", password="attacker password", name="Mallory")
    first_code = accounts.last_code("ann@example.com")

    again = await accounts.sign_up("ann@example.com", password=PASSWORD, name="Ann Lee")

    assert again.status == 202
    second_code = accounts.last_code("ann@example.com")
    if second_code != first_code:  # one in a million they coincide
        assert (await accounts.verify("ann@example.com", first_code)).status == 400
    assert (await accounts.verify("ann@example.com", second_code)).status == 200
    assert (await accounts.login("ann@example.com", "attacker password")).status == 401
    login = await accounts.login("ann@example.com", PASSWORD)
    assert (await login.json())["user"]["name"] == "Ann Lee"


async def test_register_alias_behaves_as_signup_and_says_it_is_deprecated(accounts):
    response = await accounts.client.post("/api/auth/register/", json={
        "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})

    assert response.status == 202
    assert response.headers["Deprecation"] == "true"
    assert response.headers["Link"] == '</api/auth/signup/>; rel="successor-version"'
    assert (await accounts.verify("ann@example.com",
                                  accounts.last_code("ann@example.com"))).status == 200


async def test_register_alias_marks_errors_deprecated_too_when_body_is_invalid(accounts):
    response = await accounts.client.post("/api/auth/register/", json={"email": "x"})

    assert response.status == 400
    assert response.headers["Deprecation"] == "true"


async def test_signup_is_not_deprecated_when_called_by_its_own_path(accounts):
    response = await accounts.sign_up("ann@example.com")

    assert "Deprecation" not in response.headers


async def test_signup_stores_no_secret_in_clear_when_a_code_is_sent(accounts):
    await accounts.verified_user("ann@example.com")
    code = accounts.codes_for("ann@example.com")[0]
    session_id = (await accounts.login("ann@example.com")).cookies["sessionid"].value
    await accounts.sign_up("bob@example.com", name="Bob")
    pending = accounts.last_code("bob@example.com")

    async with accounts.client.app[DATABASE].engine.connect() as connection:
        dump = []
        for table in ("users", "sessions", "verification_codes", "email_log"):
            rows = (await connection.execute(text(f"SELECT * FROM {table}"))).all()
            dump.append(repr(rows))
    everything = "\n".join(dump)
    for secret in (code, pending, session_id, PASSWORD):
        assert secret not in everything
    assert "[redacted]" in everything and "argon2id" in everything


async def test_concurrent_signups_of_one_address_make_one_account_when_they_race(accounts):
    answers = await asyncio.gather(*(accounts.sign_up("ann@example.com") for _ in range(3)))

    assert [r.status for r in answers] == [202] * 3
    async with accounts.client.app[DATABASE].engine.connect() as connection:
        users = (await connection.execute(text("SELECT count(*) FROM users"))).scalar_one()
        owners = (await connection.execute(text("SELECT count(*) FROM memberships"))).scalar_one()
    assert users == owners == 1
    # Mails may arrive in another order than their codes were stored: one of them is live.
    statuses = [(await accounts.verify("ann@example.com", code)).status
                for code in reversed(accounts.codes_for("ann@example.com"))]
    assert 200 in statuses


def test_signup_document_states_the_password_minimum_when_the_service_enforces_it():
    # Found by schemathesis: the document allowed a 1-character password the service refuses.
    assert SignupRequest.model_json_schema()["properties"]["password"]["minLength"] == 10


async def test_signup_names_the_workspace_within_its_column_when_the_name_is_200_characters(
        accounts):
    # Found by schemathesis on PostgreSQL: "<200 characters>'s workspace" overflowed
    # workspaces.name VARCHAR(200) and the sign-up answered 500.
    response = await accounts.sign_up("ann@example.com", name="N" * 200)

    assert response.status == 202
    async with accounts.client.app[DATABASE].engine.connect() as connection:
        [name] = (await connection.execute(text("SELECT name FROM workspaces"))).scalars().all()
    assert len(name) == 200 and name.endswith("'s workspace")


async def test_signup_is_refused_with_400_when_the_name_contains_nul(accounts):
    # Found by schemathesis on PostgreSQL: text fields cannot hold NUL; this was a 500.
    response = await accounts.sign_up("ann@example.com", name="Ann\x00Lee")

    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "name"
