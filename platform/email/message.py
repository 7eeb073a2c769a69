"""The e-mail message value and the result of one delivery attempt."""

from __future__ import annotations

import email.message  # noqa: PLW0406 - the standard library, not this module
import email.utils
import enum
from dataclasses import dataclass, replace


class DeliveryStatus(enum.StrEnum):
    """What became of a message: kept in the outbox, handed to an SMTP server, or failed."""

    STORED = "stored"
    SENT = "sent"
    FAILED = "failed"


@dataclass(frozen=True)
class EmailMessage:
    """One e-mail to send. `sender` falls back to the backend's configured from address.

    `template` names the template the body came from and `tenant_id` the workspace it is sent
    for; both only label the message in the e-mail log. `secrets` lists values (codes, tokens)
    that are delivered but never stored: `redacted()` masks them for the e-mail log.
    """

    to: tuple[str, ...]
    subject: str
    text: str
    html: str | None = None
    sender: str | None = None
    reply_to: str | None = None
    template: str | None = None
    tenant_id: str | None = None
    secrets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.to:
            raise ValueError("an e-mail needs at least one recipient")
        for address in (*self.to, self.subject, self.sender or "", self.reply_to or ""):
            if "\n" in address or "\r" in address:
                raise ValueError("line breaks are not allowed in addresses or the subject")

    def redacted(self) -> EmailMessage:
        """A copy with every secret replaced by [redacted] in the subject and bodies."""
        def mask(text: str) -> str:
            for secret in self.secrets:
                text = text.replace(secret, "[redacted]")
            return text
        return replace(self, subject=mask(self.subject), text=mask(self.text),
                       html=None if self.html is None else mask(self.html), secrets=())

    def to_mime(self, default_sender: str, message_id: str) -> email.message.EmailMessage:
        """Build the MIME message: plain text, plus an HTML alternative when there is one."""
        mime = email.message.EmailMessage()
        mime["From"] = self.sender or default_sender
        mime["To"] = ", ".join(self.to)
        mime["Subject"] = self.subject
        mime["Message-ID"] = message_id
        mime["Date"] = email.utils.formatdate(localtime=False, usegmt=True)
        if self.reply_to:
            mime["Reply-To"] = self.reply_to
        mime.set_content(self.text)
        if self.html is not None:
            mime.add_alternative(self.html, subtype="html")
        return mime


@dataclass(frozen=True)
class DeliveryResult:
    """The outcome of `EmailBackend.send`: failures are values with a stable code, not exceptions.

    Codes: `smtp_connect_failed`, `smtp_timeout`, `smtp_auth_failed`, `smtp_recipients_refused`,
    `smtp_tls_failed`, `smtp_error`.
    """

    status: DeliveryStatus
    backend: str
    message_id: str
    error_code: str | None = None
    error_message: str | None = None

    @property
    def ok(self) -> bool:
        """True when the message was stored in the outbox or accepted by the SMTP server."""
        return self.status is not DeliveryStatus.FAILED


def new_message_id(domain: str) -> str:
    """A fresh RFC 5322 Message-ID in the sender's domain."""
    return email.utils.make_msgid(domain=domain)
