"""Invitation tokens and the e-mail carrying them: pure functions and the delivery step.

A token is 32 random bytes, URL-safe (43 characters), e-mailed in a link and stored only as its
SHA-256: with 256 bits of entropy, a plain digest is enough and a lookup stays one equality.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from insureops.platform.email import EmailBackend, EmailMessage, TemplateRenderer

logger = logging.getLogger("insureops.platform.team")

INVITATION_LIFETIME = datetime.timedelta(days=7)
TOKEN_BYTES = 32
TEMPLATE = "team_invitation"
TEMPLATE_DIRECTORY = Path(__file__).resolve().parent / "templates"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(stored_hash: str, token: str) -> bool:
    """Constant-time comparison of a presented token with the stored digest."""
    return hmac.compare_digest(stored_hash, hash_token(token))


def accept_link(public_url: str, invitation_id: str, token: str) -> str:
    """The web app's page for accepting; it POSTs the token to the accept route."""
    return (f"{public_url.rstrip('/')}/invitations/{quote(invitation_id)}/accept"
            f"?token={quote(token)}")


@dataclass(frozen=True)
class InvitationMail:
    """What the invitation e-mail says, and to whom."""

    to: str
    workspace_id: str
    workspace_name: str
    inviter_name: str
    role: str
    link: str
    token: str


async def send_invitation(mailer: EmailBackend, templates: TemplateRenderer,
                          mail: InvitationMail) -> bool:
    """E-mail the invitation; True when delivered (or kept in the outbox). The token is marked
    secret, so the e-mail log keeps [redacted] in its place."""
    rendered = templates.render(TEMPLATE, {
        "inviter": mail.inviter_name, "workspace": mail.workspace_name, "role": mail.role,
        "link": mail.link, "days": INVITATION_LIFETIME.days})
    result = await mailer.send(EmailMessage(
        to=(mail.to,), subject=rendered.subject, text=rendered.text, html=rendered.html,
        template=TEMPLATE, tenant_id=mail.workspace_id, secrets=(mail.token,)))
    if not result.ok:
        logger.warning("invitation e-mail for workspace %s failed: %s", mail.workspace_id,
                       result.error_code)
    return result.ok
