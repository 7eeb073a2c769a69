"""With no SMTP configured the code is printed for the newcomer and kept, masked, in the log."""

from __future__ import annotations

import re

from sqlalchemy import select

from insureops.platform.email.log import EmailLogEntry
from insureops.platform.keys import DATABASE
from tests.platform.accounts.conftest import PASSWORD


async def test_signup_prints_the_code_and_logs_it_masked_when_backend_is_outbox(
        make_client, settings, capsys):
    client = await make_client(settings)  # email_backend defaults to outbox
    capsys.readouterr()

    response = await client.post("/api/auth/signup/", json={
        "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})

    assert response.status == 202
    printed = capsys.readouterr().out
    assert "To: ann@example.com" in printed
    code = re.search(r"\b(\d{6})\b", printed).group(1)
    async with client.app[DATABASE].unit_of_work() as uow:
        [entry] = (await uow.session.execute(select(EmailLogEntry))).scalars().all()
    assert entry.backend == "outbox" and entry.status == "stored"
    assert entry.template == "verification_code" and entry.recipients == "ann@example.com"
    assert code not in entry.text_body and code not in entry.subject
    assert "[redacted]" in entry.text_body and "[redacted]" in entry.html_body
    verify = await client.post("/api/auth/verify/", json={"email": "ann@example.com",
                                                         "code": code})
    assert verify.status == 200
