"""Request and response shapes of the connectors area (e-mail and LLM provider keys)."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from insureops.platform.connectors.llm import Provider
from insureops.platform.http.bodies import UNKNOWN_FIELDS_REFUSED


class SendEmailRequest(BaseModel):
    """Either `body` (plain text) or `template` with its `context`."""

    model_config = UNKNOWN_FIELDS_REFUSED

    to: list[str] = Field(min_length=1, max_length=50, description="Recipients' addresses.")
    subject: str | None = Field(None, max_length=998, description="Required with `body`; "
                                "with a template, replaces the template's subject.")
    body: str | None = Field(None, max_length=100_000, description="Plain-text body.")
    template: str | None = Field(None, max_length=100, description="A template listed as "
                                 "`sendable` by GET /email/templates/.")
    context: dict[str, Any] = Field(default_factory=dict, description="The template's variables.")

    @model_validator(mode="after")
    def _body_or_template(self) -> SendEmailRequest:
        if (self.body is None) == (self.template is None):
            raise ValueError("give either `body` or `template`, not both and not neither")
        if self.body is not None and not self.subject:
            raise ValueError("`subject` is required with `body`")
        return self


class SentEmail(BaseModel):
    status: Literal["stored", "sent", "failed"] = Field(
        description="stored: kept in the outbox (no SMTP configured); sent: accepted by the "
        "SMTP server; failed: see `error`.")
    message_id: str
    error: str | None = None


class TemplateInfo(BaseModel):
    name: str
    variables: list[str] = Field(description="Variables the template's parts use.")
    sendable: bool = Field(description="Whether POST /email/send/ sends it: false for the "
                           "service's own mail (sign-up, invitations), which only its flows send.")


class TemplateList(BaseModel):
    templates: list[TemplateInfo]


class EmailLogQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    status: Literal["stored", "sent", "failed"] | None = None
    page: int = Field(1, ge=1, le=100_000)
    page_size: int = Field(50, ge=1, le=200)


class EmailLogItem(BaseModel):
    id: int
    to: list[str]
    subject: str
    template: str | None
    status: str
    error: str | None = Field(description="The error code and message of a failed delivery.")
    message_id: str
    created_at: datetime.datetime


class EmailLogPage(BaseModel):
    items: list[EmailLogItem]
    total: int
    page: int
    page_size: int


class SaveKeyRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    provider: Provider
    api_key: str = Field(min_length=8, max_length=500, pattern=r"^[\x21-\x7e]+$",
                         description="Stored encrypted; never returned.")
    base_url: str | None = Field(None, max_length=2048, description="An OpenAI-compatible "
                                 "server, or the provider's own API (the default).")
    model: str | None = Field(None, max_length=200, pattern=r"^[\x21-\x7e]+$")


class KeyStatus(BaseModel):
    provider: Provider
    configured: bool
    last_four: str | None = None
    model: str | None = None
    base_url: str | None = None
    last_test_ok: bool | None = None
    last_test_at: datetime.datetime | None = None
    last_test_error: str | None = None


class KeyStatusList(BaseModel):
    providers: list[KeyStatus]


class ProviderPath(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    provider: Provider


class ProviderTestRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    provider: Provider


class ProviderTestResult(BaseModel):
    ok: bool
    latency_ms: int
    error: str | None
