"""A mail server that is down does not lose the sign-up: the answer is the same, the failure is
in the e-mail log, and resend-code works once the server is back."""

from __future__ import annotations

from sqlalchemy import select

from insureops.platform.config import Settings
from insureops.platform.email.log import EmailLogEntry
from insureops.platform.keys import DATABASE
from tests.platform.accounts.conftest import PASSWORD, cheap_hashing_areas
from tests.platform.email.smtp_server import free_port, running_smtp_server


async def test_signup_answers_202_and_logs_the_failure_when_smtp_is_down(
        make_client, settings, caplog):
    down = Settings(**{**settings.model_dump(), "email_backend": "smtp",
                       "smtp_host": "127.0.0.1", "smtp_port": free_port(),
                       "smtp_starttls": False, "smtp_timeout_seconds": 10.0})  # refused at once
    client = await make_client(down, areas=cheap_hashing_areas())

    response = await client.post("/api/auth/signup/", json={
        "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})

    assert response.status == 202
    async with client.app[DATABASE].unit_of_work() as uow:
        [entry] = (await uow.session.execute(select(EmailLogEntry))).scalars().all()
    assert (entry.backend, entry.status, entry.error_code) == (
        "smtp", "failed", "smtp_connect_failed")
    assert "[redacted]" in entry.text_body
    assert "verification_code" in caplog.text and "smtp_connect_failed" in caplog.text
    login = await client.post("/api/auth/login/", json={"email": "ann@example.com",
                                                        "password": PASSWORD})
    assert login.status == 403  # the account exists, waiting for a code


async def test_resend_delivers_a_working_code_when_smtp_is_back(make_client, settings):
    def with_port(port: int) -> Settings:
        return Settings(**{**settings.model_dump(), "email_backend": "smtp",
                           "smtp_host": "127.0.0.1", "smtp_port": port,
                           "smtp_starttls": False, "smtp_timeout_seconds": 10.0})  # refused at once

    first = await make_client(with_port(free_port()), areas=cheap_hashing_areas())
    await first.post("/api/auth/signup/", json={
        "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})
    with running_smtp_server() as smtp_server:
        second = await make_client(with_port(smtp_server.port), areas=cheap_hashing_areas())
        resend = await second.post("/api/auth/resend-code/", json={"email": "ann@example.com"})
        [mail] = smtp_server.wait_for(1)

    assert resend.status == 202
    code = mail.message["Subject"].rsplit(" ", 1)[1]
    verify = await second.post("/api/auth/verify/", json={"email": "ann@example.com",
                                                         "code": code})
    assert verify.status == 200
