"""The SMTP backend against a real aiosmtpd server, and the outbox and recording backends."""

from __future__ import annotations

import asyncio

from insureops.platform.email import (
    DeliveryResult,
    DeliveryStatus,
    EmailMessage,
    OutboxBackend,
    RecordingBackend,
    SmtpBackend,
)
from tests.platform.email.smtp_server import SmtpTestServer, free_port, running_smtp_server

MESSAGE = EmailMessage(to=("ada@example.com",), subject="Your code: 123456",
                       text="Your code is 123456.\n", html="<p>Your code is <b>123456</b>.</p>")


class ListStore:
    """An EmailStore keeping (message, result) pairs in memory."""

    def __init__(self) -> None:
        self.rows: list[tuple[EmailMessage, DeliveryResult]] = []

    async def __call__(self, message: EmailMessage, result: DeliveryResult) -> None:
        self.rows.append((message, result))


async def test_smtp_backend_delivers_text_and_html_when_server_is_plain(smtp_server):
    result = await SmtpBackend(smtp_server.options()).send(MESSAGE)

    assert result.ok and result.status is DeliveryStatus.SENT and result.backend == "smtp"
    [received] = smtp_server.wait_for(1)
    assert received.rcpt_tos == ("ada@example.com",)
    assert received.mail_from == "no-reply@insureops.test"
    assert received.message["Subject"] == "Your code: 123456"
    assert received.message["Message-ID"] == result.message_id
    assert "123456" in received.text_body()
    assert "<b>123456</b>" in received.html_body()
    assert not received.over_tls and received.authenticated_as is None


async def test_smtp_backend_uses_starttls_and_auth_when_server_requires_them(secure_smtp_server):
    result = await SmtpBackend(secure_smtp_server.options()).send(MESSAGE)

    assert result.ok, result
    [received] = secure_smtp_server.wait_for(1)
    assert received.over_tls
    assert received.authenticated_as == "mailer"
    assert "123456" in received.text_body()


async def test_smtp_backend_reports_auth_failure_when_password_is_wrong(secure_smtp_server):
    result = await SmtpBackend(secure_smtp_server.options(password="wrong")).send(MESSAGE)

    assert result.status is DeliveryStatus.FAILED
    assert result.error_code == "smtp_auth_failed"
    assert secure_smtp_server.messages == []


async def test_smtp_backend_refuses_certificate_when_ca_is_not_trusted(tmp_path):
    with running_smtp_server(secure_in=tmp_path, failed_handshakes=True) as server:
        result = await SmtpBackend(server.options(ca_file=None)).send(MESSAGE)

    assert result.status is DeliveryStatus.FAILED
    assert result.error_code == "smtp_tls_failed"
    assert server.messages == []


async def test_smtp_backend_reports_connect_failure_when_nothing_listens():
    options = SmtpTestServer("127.0.0.1", free_port(), handler=None).options(starttls=False)

    result = await SmtpBackend(options).send(MESSAGE)

    assert result.status is DeliveryStatus.FAILED
    assert result.error_code == "smtp_connect_failed"


async def test_smtp_backend_times_out_when_server_never_greets():
    connections: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    options = SmtpTestServer("127.0.0.1", port, handler=None).options(starttls=False, timeout=0.3)
    try:
        result = await SmtpBackend(options).send(MESSAGE)
    finally:
        for writer in connections:
            writer.close()
            await writer.wait_closed()
        server.close()
        await server.wait_closed()

    assert connections, "the client never connected"
    assert result.status is DeliveryStatus.FAILED
    assert result.error_code == "smtp_timeout"


async def test_outbox_backend_stores_and_prints_when_sending():
    store, printed = ListStore(), []
    backend = OutboxBackend(store, "insureops <no-reply@insureops.test>", echo=printed.append)

    result = await backend.send(MESSAGE)

    assert result.ok and result.status is DeliveryStatus.STORED and result.backend == "outbox"
    assert store.rows == [(MESSAGE, result)]
    assert "Your code is 123456." in printed[0]
    assert "To: ada@example.com" in printed[0]
    assert result.message_id.endswith("@insureops.test>")


async def test_outbox_backend_prints_to_stdout_when_no_echo_given(capsys):
    await OutboxBackend(ListStore(), "no-reply@insureops.test").send(MESSAGE)

    assert "Your code is 123456." in capsys.readouterr().out


async def test_recording_backend_stores_failures_too_when_smtp_is_down():
    store = ListStore()
    options = SmtpTestServer("127.0.0.1", free_port(), handler=None).options(starttls=False)

    result = await RecordingBackend(SmtpBackend(options), store).send(MESSAGE)

    assert store.rows == [(MESSAGE, result)]
    assert result.error_code == "smtp_connect_failed"
