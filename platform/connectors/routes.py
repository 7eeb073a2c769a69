"""HTTP routes of the connectors area: e-mail (send, templates, log) and the workspace's
bring-your-own-key LLM provider keys. Session auth, the active workspace only; reads need a
membership, writes (sending, saving, deleting, testing) need admin (owners satisfy it)."""

from __future__ import annotations

import datetime

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.connectors import email_service, llm_service
from insureops.platform.connectors.llm import BaseUrlRefusedError, Provider
from insureops.platform.connectors.payloads import (
    EmailLogItem,
    EmailLogPage,
    EmailLogQuery,
    KeyStatus,
    KeyStatusList,
    ProviderPath,
    ProviderTestRequest,
    ProviderTestResult,
    SaveKeyRequest,
    SendEmailRequest,
    SentEmail,
    TemplateInfo,
    TemplateList,
)
from insureops.platform.http.errors import ApiError
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import (
    CLOCK,
    DATABASE,
    EMAIL_BACKEND,
    RATE_LIMIT_STATE,
    RATE_LIMITER,
    SECRET_KEYS,
)
from insureops.platform.records.llm_keys import LlmKeySecretError, LlmProviderKey

MEMBER, ADMIN = Auth.session(Role.MEMBER), Auth.session(Role.ADMIN)
TEMPLATES = email_service.BuiltInTemplates.load()

routes = RouteTable(
    "connectors",
    "E-mail sending, templates and logs; bring-your-own-key LLM providers.",
)
routes.map_error(email_service.RecipientInvalidError, 400, "invalid_recipient")
routes.map_error(email_service.SubjectInvalidError, 400, "invalid_subject")
routes.map_error(email_service.TemplateNotFoundError, 404, "template_not_found")
routes.map_error(email_service.TemplateContextError, 400, "template_context_invalid")
routes.map_error(email_service.TemplateNotSendableError, 400, "template_not_sendable")
routes.map_error(BaseUrlRefusedError, 400, "base_url_refused")
routes.map_error(llm_service.LlmKeyNotFoundError, 404, "llm_key_not_found",
                 message="No key is saved for this provider.")
routes.map_error(LlmKeySecretError, 500, "llm_key_unreadable")


def _now(call: Call) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), tz=datetime.UTC)


async def _count_send(call: Call) -> None:
    """The workspace's hourly quota (Settings.email_send_per_hour): 429 with the headers."""
    limit = RateLimit("connectors_email_send", call.settings.email_send_per_hour, 3600,
                      key=RateKey.WORKSPACE)
    state = await call.request.config_dict[RATE_LIMITER].hit(
        limit, call.principal.active_workspace_id)
    call.request[RATE_LIMIT_STATE] = state
    if state.exceeded:
        raise ApiError(429, "rate_limited", f"E-mail quota exceeded ({limit.describe()}); "
                       f"retry in {state.retry_after} s.")


@routes.post("/email/send/", body=SendEmailRequest, response=SentEmail, auth=ADMIN,
             errors=(400, 404, 429), summary="Send an e-mail",
             description="Plain text (`subject` + `body`) or a sendable `template` with its "
             "`context` (none of the built-in ones is: they are the service's own mail, 400 "
             "template_not_sendable), through the configured e-mail layer (SMTP, or the "
             "outbox). Recipients "
             "are bare addresses; line breaks in the subject are refused. Counts against the "
             "workspace's hourly quota (INSUREOPS_EMAIL_SEND_PER_HOUR); a failed delivery "
             "answers 200 with status `failed` and is in the log.")
async def send_email(call: Call[SendEmailRequest, None]) -> SentEmail:
    body = call.body
    result = await email_service.send(
        TEMPLATES, call.request.config_dict[EMAIL_BACKEND], lambda: _count_send(call),
        workspace_id=call.principal.active_workspace_id, to=body.to, subject=body.subject,
        body=body.body, template=body.template, context=body.context)
    error = f"{result.error_code}: {result.error_message}" if result.error_code else None
    return SentEmail(status=result.status.value, message_id=result.message_id, error=error)


@routes.get("/email/templates/", response=TemplateList, auth=MEMBER,
            summary="List e-mail templates",
            description="The built-in templates and the variables each uses.")
async def email_templates(call: Call[None, None]) -> TemplateList:
    return TemplateList(templates=[TemplateInfo(name=name, variables=variables, sendable=sendable)
                                   for name, variables, sendable in TEMPLATES.catalogue()])


@routes.get("/email/logs/", query=EmailLogQuery, response=EmailLogPage, auth=MEMBER,
            summary="Get e-mail logs",
            description="The workspace's messages, newest first; `status` filters.")
async def email_logs(call: Call[None, EmailLogQuery]) -> EmailLogPage:
    query = call.query
    async with call.unit_of_work() as uow:
        rows, total = await email_service.log_page(uow, call.principal.active_workspace_id,
                                           query.status, query.page, query.page_size)
    items = [EmailLogItem(
        id=row.id, to=row.recipients.split(", "), subject=row.subject, template=row.template,
        status=row.status, message_id=row.message_id, created_at=row.created_at,
        error=f"{row.error_code}: {row.error_message}" if row.error_code else None)
        for row in rows]
    return EmailLogPage(items=items, total=total, page=query.page, page_size=query.page_size)


def _status(provider: Provider, row: LlmProviderKey | None) -> KeyStatus:
    if row is None:
        return KeyStatus(provider=provider, configured=False)
    return KeyStatus(provider=provider, configured=True, last_four=row.key_last_four,
                     model=row.model, base_url=row.base_url, last_test_ok=row.last_test_ok,
                     last_test_at=row.last_test_at, last_test_error=row.last_test_error)


@routes.post("/llm-adaptor/keys", body=SaveKeyRequest, response=KeyStatus, auth=ADMIN,
             errors=(400,), summary="Save an LLM provider key",
             description="Stored encrypted; replaces the provider's previous key. The key is "
             "never returned: the status shows its last four characters.")
async def save_key(call: Call[SaveKeyRequest, None]) -> KeyStatus:
    body = call.body
    async with call.unit_of_work() as uow:
        row = await llm_service.save_key(
            uow, call.request.config_dict[SECRET_KEYS].fernet, call.settings,
            workspace_id=call.principal.active_workspace_id, user_id=call.principal.user.id,
            provider=body.provider, api_key=body.api_key, base_url=body.base_url,
            model=body.model, now=_now(call))
        return _status(body.provider, row)


@routes.get("/llm-adaptor/keys", response=KeyStatusList, auth=MEMBER, summary="Get key status",
            description="Per provider: configured, last four characters, model, base URL and "
            "the last test's outcome and time.")
async def key_status(call: Call[None, None]) -> KeyStatusList:
    async with call.unit_of_work() as uow:
        rows = await llm_service.list_keys(uow, call.principal.active_workspace_id)
    return KeyStatusList(providers=[_status(p, rows.get(p.value)) for p in Provider])


@routes.delete("/llm-adaptor/keys/{provider}", path_model=ProviderPath, response=None,
               status=204, auth=ADMIN, errors=(404,), summary="Delete the key of one provider")
async def delete_key(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await llm_service.delete_key(uow, call.principal.active_workspace_id, call.path.provider)


@routes.post("/llm-adaptor/test", body=ProviderTestRequest, response=ProviderTestResult,
             auth=ADMIN, errors=(404,), summary="Test the LLM connection",
             description="One model-list request to the provider with the saved key, within "
             "INSUREOPS_LLM_TIMEOUT_SECONDS; the outcome is recorded in the key status.")
async def test_key(call: Call[ProviderTestRequest, None]) -> ProviderTestResult:
    config = call.request.config_dict
    outcome = await llm_service.run_test(
        config[DATABASE].unit_of_work, config[SECRET_KEYS].fernet, call.settings,
        call.principal.active_workspace_id, call.body.provider, lambda: _now(call))
    return ProviderTestResult(ok=outcome.ok, latency_ms=outcome.latency_ms, error=outcome.error)


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
