"""The e-mail log row and the backend chosen from the settings."""

from __future__ import annotations

import datetime

import pytest
from cryptography.fernet import Fernet

from insureops.platform.config import Settings
from insureops.platform.data.database import Database
from insureops.platform.email import (
    DeliveryResult,
    DeliveryStatus,
    EmailMessage,
    OutboxBackend,
    RecordingBackend,
)
from insureops.platform.email.factory import build_email_backend
from insureops.platform.email.log import entry_for

NOW = datetime.datetime(2027, 1, 15, tzinfo=datetime.UTC)


def test_log_entry_masks_secrets_when_message_carries_them():
    message = EmailMessage(to=("a@x.test",), subject="Code 123456", text="Use 123456.",
                           html="<b>123456</b>", template="verification_code",
                           tenant_id="01J0000000000000000000000A", secrets=("123456",))
    result = DeliveryResult(DeliveryStatus.FAILED, "smtp", "<m@x.test>", "smtp_timeout", "slow")

    entry = entry_for(message, result, NOW)

    assert (entry.subject, entry.text_body, entry.html_body) == (
        "Code [redacted]", "Use [redacted].", "<b>[redacted]</b>")
    assert entry.status == "failed" and entry.error_code == "smtp_timeout"
    assert entry.tenant_id == "01J0000000000000000000000A"


def settings_with(tmp_path, **values) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/db.sqlite3",
                    secret_key="k", fernet_keys=(Fernet.generate_key().decode(),), **values)


async def test_backend_is_outbox_when_nothing_is_configured(tmp_path):
    database = Database.connect(settings_with(tmp_path).database_url)
    try:
        assert isinstance(build_email_backend(settings_with(tmp_path), database, lambda: 0.0),
                          OutboxBackend)
        smtp = settings_with(tmp_path, email_backend="smtp", smtp_host="127.0.0.1")
        backend = build_email_backend(smtp, database, lambda: 0.0)
        assert isinstance(backend, RecordingBackend) and backend.name == "smtp"
        with pytest.raises(ValueError, match="SMTP_HOST"):
            build_email_backend(settings_with(tmp_path, email_backend="smtp"), database, lambda: 0.0)
    finally:
        await database.dispose()
