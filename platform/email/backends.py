"""E-mail backends: the interface, the outbox (store + console) and SMTP through aiosmtplib."""

from __future__ import annotations

import ssl
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import aiosmtplib

from insureops.platform.email.message import (
    DeliveryResult,
    DeliveryStatus,
    EmailMessage,
    new_message_id,
)

# Persists one message with its delivery result, e.g. as an e-mail log row. The backend does not
# know about databases: the composition root hands it a callable that opens its own unit of work.
EmailStore = Callable[[EmailMessage, DeliveryResult], Awaitable[None]]


class EmailBackend(Protocol):
    """Delivers one message. Never raises for a delivery failure: the result carries its code."""

    name: str

    async def send(self, message: EmailMessage) -> DeliveryResult: ...


def _domain_of(address: str) -> str:
    return address.rpartition("@")[2].strip("> ") or "localhost"


def _print_to_stdout(text: str) -> None:
    print(text, file=sys.stdout, flush=True)


class OutboxBackend:
    """The zero-configuration backend: keeps each message in the store and prints it.

    Printing is the point: a newcomer running `insureops serve` without SMTP reads the
    verification code in the terminal.
    """

    name = "outbox"

    def __init__(self, store: EmailStore, from_address: str,
                 echo: Callable[[str], None] = _print_to_stdout) -> None:
        self._store = store
        self._from_address = from_address
        self._echo = echo

    async def send(self, message: EmailMessage) -> DeliveryResult:
        """Store the message, then print it with a banner so it stands out in the log."""
        result = DeliveryResult(DeliveryStatus.STORED, self.name,
                                new_message_id(_domain_of(self._from_address)))
        await self._store(message, result)
        self._echo(self._render(message, result))
        return result

    def _render(self, message: EmailMessage, result: DeliveryResult) -> str:
        rule = "-" * 72
        return "\n".join([
            rule,
            "E-mail kept in the outbox (no SMTP configured; set INSUREOPS_EMAIL_BACKEND=smtp)",
            f"From: {message.sender or self._from_address}",
            f"To: {', '.join(message.to)}",
            f"Subject: {message.subject}",
            f"Message-ID: {result.message_id}",
            "",
            message.text.rstrip(),
            rule,
        ])


@dataclass(frozen=True)
class SmtpOptions:
    """How to reach the SMTP server. `ca_file` trusts an extra CA (e.g. a test's self-signed one).

    `starttls` upgrades a plain connection (port 587); `implicit_tls` connects over TLS from the
    start (port 465). Every connection has a timeout, in seconds.
    """

    host: str
    port: int = 587
    username: str | None = None
    password: str | None = None
    starttls: bool = True
    implicit_tls: bool = False
    timeout: float = 10.0
    from_address: str = "insureops <no-reply@localhost>"
    ca_file: str | None = None


class SmtpBackend:
    """Sends through an SMTP server with aiosmtplib: STARTTLS or implicit TLS, AUTH, timeout."""

    name = "smtp"

    def __init__(self, options: SmtpOptions) -> None:
        if options.starttls and options.implicit_tls:
            raise ValueError("choose STARTTLS or implicit TLS, not both")
        self._options = options

    async def send(self, message: EmailMessage) -> DeliveryResult:
        """Send one message; map every SMTP or network failure to a coded result."""
        options = self._options
        message_id = new_message_id(_domain_of(message.sender or options.from_address))
        mime = message.to_mime(options.from_address, message_id)
        try:
            await aiosmtplib.send(
                mime,
                hostname=options.host,
                port=options.port,
                username=options.username,
                password=options.password,
                start_tls=options.starttls,
                use_tls=options.implicit_tls,
                timeout=options.timeout,
                tls_context=self._tls_context(),
            )
        except Exception as error:  # noqa: BLE001 - every failure becomes a coded value
            code, text = _classify(error)
            return DeliveryResult(DeliveryStatus.FAILED, self.name, message_id, code, text)
        return DeliveryResult(DeliveryStatus.SENT, self.name, message_id)

    def _tls_context(self) -> ssl.SSLContext | None:
        if not (self._options.starttls or self._options.implicit_tls):
            return None
        return ssl.create_default_context(cafile=self._options.ca_file)


def _classify(error: Exception) -> tuple[str, str]:
    """A stable code and a message for a failed send; order matters (subclasses first)."""
    table: list[tuple[type[BaseException], str]] = [
        (aiosmtplib.SMTPTimeoutError, "smtp_timeout"),
        (aiosmtplib.SMTPAuthenticationError, "smtp_auth_failed"),
        (aiosmtplib.SMTPRecipientsRefused, "smtp_recipients_refused"),
        (aiosmtplib.SMTPConnectError, "smtp_connect_failed"),
        (ssl.SSLError, "smtp_tls_failed"),
        (TimeoutError, "smtp_timeout"),
        (OSError, "smtp_connect_failed"),
    ]
    for kind, code in table:
        if isinstance(error, kind):
            return code, f"{type(error).__name__}: {error}"
    return "smtp_error", f"{type(error).__name__}: {error}"


class RecordingBackend:
    """Wraps a backend and stores every message with its result (the e-mail log for SMTP)."""

    def __init__(self, inner: EmailBackend, store: EmailStore) -> None:
        self._inner = inner
        self._store = store
        self.name = inner.name

    async def send(self, message: EmailMessage) -> DeliveryResult:
        """Deliver through the wrapped backend, then record the outcome, failed or not."""
        result = await self._inner.send(message)
        await self._store(message, result)
        return result
