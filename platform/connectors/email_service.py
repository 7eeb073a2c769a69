"""The e-mail use cases of the connectors area: send (checked recipients, a template or a body),
the built-in templates with their variables, and the workspace's e-mail log."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from insureops.platform.connectors import repository
from insureops.platform.connectors.repository import ConnectorsRepository
from insureops.platform.data.database import UnitOfWork
from insureops.platform.email import (
    DeliveryResult,
    EmailBackend,
    EmailMessage,
    TemplateRenderer,
)
from insureops.platform.email.log import EmailLogEntry
from insureops.platform.email.templates import TEMPLATE_DIRECTORY

# The built-in templates: the platform's own, and the team area's invitation, read by path
# (areas never import each other; the directory is the team area's published template folder).
BUILT_IN_DIRECTORIES = (TEMPLATE_DIRECTORY,
                        Path(__file__).resolve().parents[1] / "team" / "templates")
# A bare address, no display name, no comment: nothing a header could be smuggled in.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_ADDRESS = re.compile(rf"^[A-Za-z0-9.!#$%&'*+/=?^_`{{|}}~-]{{1,64}}@{_LABEL}(?:\.{_LABEL})+$")


class RecipientInvalidError(Exception):
    """A recipient is not a plain e-mail address."""

    def __init__(self, index: int, address: str) -> None:
        super().__init__(f"to[{index}] is not a plain e-mail address (name@domain.tld).")
        self.index = index


class SubjectInvalidError(Exception):
    """The subject holds a line break or another control character."""


class TemplateNotFoundError(Exception):
    """No built-in template has that name."""


class TemplateContextError(Exception):
    """The context does not fill the template (a variable is missing or unusable)."""


class TemplateNotSendableError(Exception):
    """The template is mail of the service's own flows: only those flows send it."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name!r} is the service's own mail (sign-up, team invitations): only "
                         "the service sends it, to the address its flow is for. Send a `body` "
                         "of your own instead.")


def check_recipients(addresses: list[str]) -> tuple[str, ...]:
    for index, address in enumerate(addresses):
        if len(address) > 254 or not _ADDRESS.fullmatch(address):
            raise RecipientInvalidError(index, address)
    return tuple(dict.fromkeys(address.lower() for address in addresses))


def check_subject(subject: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in subject):
        raise SubjectInvalidError("The subject may not contain line breaks or control "
                                  "characters.")
    return subject


@dataclass(frozen=True)
class BuiltInTemplates:
    """The renderers of the built-in template directories, by template name, and the names
    POST /email/send/ may send. Every built-in template is mail of the service's own flows (the
    sign-up code and notice, the team invitation): sent by a workspace admin to any address, with
    any link, it was the service vouching for a phishing mail (issue 28). So none is sendable; a
    template meant for workspaces would be listed in `sendable` (none exists yet)."""

    renderers: Mapping[str, TemplateRenderer]
    sendable: frozenset[str] = frozenset()

    @classmethod
    def load(cls, directories=BUILT_IN_DIRECTORIES) -> BuiltInTemplates:
        renderers: dict[str, TemplateRenderer] = {}
        for directory in directories:
            renderer = TemplateRenderer(directory)
            for name in renderer.names():
                renderers.setdefault(name, renderer)
        return cls(renderers)

    def catalogue(self) -> list[tuple[str, list[str], bool]]:
        """(name, variables, sendable through POST /email/send/) of every template, by name."""
        return [(name, self.renderers[name].variables(name), name in self.sendable)
                for name in sorted(self.renderers)]

    def render(self, name: str, context: Mapping[str, Any]):
        """Template `name` rendered with `context`, when this route may send it."""
        renderer = self.renderers.get(name)
        if renderer is None:
            raise TemplateNotFoundError(f"No built-in template is named {name!r}.")
        if name not in self.sendable:
            raise TemplateNotSendableError(name)
        try:
            return renderer.render(name, context)
        except TemplateError as exc:
            raise TemplateContextError(f"The context does not fill the template: {exc}") from None


def compose(templates: BuiltInTemplates, *, workspace_id: str, to: list[str],
            subject: str | None, body: str | None, template: str | None,
            context: Mapping[str, Any]) -> EmailMessage:
    """The message to send, or a refusal (recipients, subject, template, context)."""
    recipients = check_recipients(to)
    if template is not None:
        rendered = templates.render(template, context)
        return EmailMessage(to=recipients, subject=check_subject(subject or rendered.subject),
                            text=rendered.text, html=rendered.html, template=template,
                            tenant_id=workspace_id)
    return EmailMessage(to=recipients, subject=check_subject(subject or ""), text=body or "",
                        tenant_id=workspace_id)


async def send(templates: BuiltInTemplates, backend: EmailBackend,
               count_send: Callable[[], Awaitable[None]], *, workspace_id: str, to: list[str],
               subject: str | None, body: str | None, template: str | None,
               context: Mapping[str, Any]) -> DeliveryResult:
    """Compose the message, count it against the workspace's quota (`count_send` raises when it
    is spent), then hand it to the e-mail layer: a refused message leaves nothing and counts
    nothing; a failed delivery is a result (logged by the layer), not an error."""
    message = compose(templates, workspace_id=workspace_id, to=to, subject=subject, body=body,
                      template=template, context=context)
    await count_send()
    return await backend.send(message)


async def log_page(uow: UnitOfWork, workspace_id: str, status: str | None, page: int,
                   page_size: int, *, store: ConnectorsRepository = repository
                   ) -> tuple[list[EmailLogEntry], int]:
    """The workspace's e-mail log, newest first: page `page` (from 1) and the total."""
    return await store.log_page(uow.session, workspace_id, status, (page - 1) * page_size,
                                page_size)
