"""Signing secrets and signatures, the Standard Webhooks way (the `standardwebhooks` library).

A secret is `whsec_` + base64 of 32 random bytes, shown once (create, rotate) and stored
Fernet-encrypted with the service's MultiFernet, like the other secrets at rest, because the
service must read it back to sign. A rotation keeps the previous secret for
`PREVIOUS_SECRET_SECONDS`, and deliveries meanwhile carry both signatures
(`webhook-signature: v1,<new> v1,<old>`), so a receiver can switch without losing events.
"""

from __future__ import annotations

import base64
import datetime
import secrets
from collections.abc import Iterable

from cryptography.fernet import InvalidToken, MultiFernet
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from insureops.platform.data.database import UnitOfWork
from insureops.platform.webhooks.models import WebhookEndpoint

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
PREVIOUS_SECRET_SECONDS = 24 * 3600


class WebhookSecretError(Exception):
    """A stored secret cannot be decrypted with any configured Fernet key."""


def new_secret() -> str:
    """A new signing secret: `whsec_` + base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def encrypt_secret(fernet: MultiFernet, secret: str) -> str:
    return fernet.encrypt(secret.encode()).decode()


def decrypt_secret(fernet: MultiFernet, token: str) -> str:
    """The secret of a stored token. Never log or return the result."""
    try:
        return fernet.decrypt(token.encode()).decode()
    except InvalidToken:
        raise WebhookSecretError("a webhook signing secret cannot be decrypted with the "
                                 "configured Fernet keys") from None


def signed_headers(signing_secrets: Iterable[str], message_id: str, at: datetime.datetime,
                   body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt: `webhook-id`, `webhook-timestamp` (the
    attempt's time, whole seconds) and `webhook-signature`, one `v1,` signature per secret."""
    at = at.astimezone(datetime.UTC)
    text = body.decode()
    signatures = " ".join(Webhook(secret).sign(message_id, at, text) for secret in signing_secrets)
    return {"webhook-id": message_id, "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": signatures}


async def rotate_webhook_secrets(uow: UnitOfWork, fernet: MultiFernet) -> tuple[int, int]:
    """Re-encrypt every stored secret (current and previous) with the newest Fernet key:
    (secrets, secrets changed). Raises WebhookSecretError, changing nothing, when one cannot be
    decrypted (`insureops rotate-keys`)."""
    rows = list((await uow.session.execute(select(WebhookEndpoint))).scalars())
    columns = ("secret_encrypted", "previous_secret_encrypted")
    tokens = [(row, column) for row in rows for column in columns if getattr(row, column)]
    for row, column in tokens:
        decrypt_secret(fernet, getattr(row, column))  # all readable, or nothing is rewritten
    changed = 0
    for row, column in tokens:
        rotated = fernet.rotate(getattr(row, column).encode()).decode()
        changed += rotated != getattr(row, column)
        setattr(row, column, rotated)
    return len(tokens), changed
