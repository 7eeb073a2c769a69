"""E-mail delivery: the message value, the backends (outbox, SMTP) and the sandboxed templates."""

from insureops.platform.email.backends import (
    EmailBackend,
    EmailStore,
    OutboxBackend,
    RecordingBackend,
    SmtpBackend,
    SmtpOptions,
)
from insureops.platform.email.message import DeliveryResult, DeliveryStatus, EmailMessage
from insureops.platform.email.templates import RenderedEmail, TemplateRenderer

__all__ = [
    "DeliveryResult",
    "DeliveryStatus",
    "EmailBackend",
    "EmailMessage",
    "EmailStore",
    "OutboxBackend",
    "RecordingBackend",
    "RenderedEmail",
    "SmtpBackend",
    "SmtpOptions",
    "TemplateRenderer",
]
