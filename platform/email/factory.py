"""Builds the configured e-mail backend (outbox or SMTP) for one app from its settings."""

from __future__ import annotations

from collections.abc import Callable

from insureops.platform.config import Settings
from insureops.platform.data.database import Database
from insureops.platform.email.backends import (
    EmailBackend,
    OutboxBackend,
    RecordingBackend,
    SmtpBackend,
    SmtpOptions,
)
from insureops.platform.email.log import database_store


def smtp_options(settings: Settings) -> SmtpOptions:
    """The SMTP connection described by the `INSUREOPS_SMTP_*` settings."""
    if not settings.smtp_host:
        raise ValueError("INSUREOPS_SMTP_HOST is required when INSUREOPS_EMAIL_BACKEND=smtp")
    password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
    return SmtpOptions(
        host=settings.smtp_host, port=settings.smtp_port, username=settings.smtp_username,
        password=password, starttls=settings.smtp_starttls,
        implicit_tls=settings.smtp_implicit_tls, timeout=settings.smtp_timeout_seconds,
        from_address=settings.email_from, ca_file=settings.smtp_ca_file)


def build_email_backend(settings: Settings, database: Database,
                        clock: Callable[[], float]) -> EmailBackend:
    """The outbox (default) or SMTP; either way every message lands in the e-mail log."""
    store = database_store(database, clock)
    if settings.email_backend == "smtp":
        return RecordingBackend(SmtpBackend(smtp_options(settings)), store)
    return OutboxBackend(store, settings.email_from)
