"""HTTP routes of the webhook settings, served by the settings area at /api/v2/settings/webhooks/.

Reading (endpoints, the catalogue, delivery logs) needs a membership in the active workspace;
every change (register, change, delete, rotate the secret, redeliver) needs the admin role.
"""

from __future__ import annotations

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, Owner, RouteTable
from insureops.platform.keys import CLOCK, JOBS, SECRET_KEYS
from insureops.platform.outbound.webhook_client import WebhookUrlRefusedError
from insureops.platform.settings.service import SettingsDeps
from insureops.platform.settings.webhooks import service
from insureops.platform.settings.webhooks.payloads import (
    CreatedWebhook,
    CreateWebhookRequest,
    DeliveryInfo,
    DeliveryPage,
    DeliveryPath,
    DeliveryQuery,
    EventTypeInfo,
    EventTypeList,
    UpdateWebhookRequest,
    WebhookInfo,
    WebhookList,
    WebhookPath,
    WebhookSecret,
)
from insureops.platform.webhooks.events import CATALOGUE, json_schema
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint

MEMBER = Auth.session(Role.MEMBER)
ADMIN = Auth.session(Role.ADMIN)
ID = "{webhook_id:[0-9A-Z]+}"  # the pattern keeps /webhooks/event-types/ from matching

routes = RouteTable("settings", "Webhook endpoints, their secrets and delivery logs.")
routes.map_error(service.WebhookNotFoundError, 404, "not_found")
routes.map_error(service.WebhookLimitReachedError, 409, "webhook_limit_reached")
routes.map_error(service.WebhookDisabledError, 409, "webhook_disabled")
routes.map_error(WebhookUrlRefusedError, 400, "webhook_url_refused",
                 details=lambda e: [{"field": "url", "message": e.reason}])
routes.map_error(service.DeliveryCursorInvalidError, 400, "validation_error", details=lambda e: [
    {"field": "cursor", "message": "is not a cursor this service issued; pass next_cursor of "
     "the previous page unchanged"}])

# Each redelivery connects out at once (when a worker picks it up): bounded per workspace.
REDELIVER_LIMIT = RateLimit("settings_webhook_redeliver", 60, 600, key=RateKey.WORKSPACE)


def _deps(call: Call) -> SettingsDeps:
    config = call.request.config_dict
    return SettingsDeps(call.settings, config[SECRET_KEYS].fernet, config[CLOCK])


def _info(row: WebhookEndpoint, model: type[WebhookInfo] = WebhookInfo, **extra) -> WebhookInfo:
    return model(id=row.id, url=row.url, description=row.description,
                 event_types=row.event_types, enabled=row.enabled,
                 disabled_reason=row.disabled_reason, disabled_at=row.disabled_at,
                 consecutive_failures=row.consecutive_failures, failing_since=row.failing_since,
                 last_success_at=row.last_success_at,
                 previous_secret_expires_at=row.previous_secret_expires_at,
                 created_at=row.created_at, updated_at=row.updated_at, **extra)


def _delivery(row: WebhookDelivery) -> DeliveryInfo:
    return DeliveryInfo(id=row.id, event_id=row.event_id, event_type=row.event_type,
                        status=row.status, attempts=row.attempts,
                        response_status=row.response_status, latency_ms=row.latency_ms,
                        error=row.error, next_attempt_at=row.next_attempt_at,
                        last_attempt_at=row.last_attempt_at, created_at=row.created_at)


@routes.get("/webhooks/event-types/", response=EventTypeList, auth=MEMBER,
            summary="The webhook event catalogue",
            description="Every event type with its description and the JSON Schema of `data`.")
async def list_event_types(call: Call[None, None]) -> EventTypeList:
    return EventTypeList(items=[
        EventTypeInfo(type=kind.type, description=kind.description, schema=json_schema(kind))
        for kind in CATALOGUE.values()])


@routes.post("/webhooks/", body=CreateWebhookRequest, response=CreatedWebhook, status=201,
             auth=ADMIN, errors=(400, 409), summary="Register a webhook endpoint",
             description="Answers the signing secret (`whsec_...`) once. https:// URLs on "
             "public addresses; private, loopback and link-local ones only inside "
             "INSUREOPS_WEBHOOK_ALLOWED_NETWORKS.")
async def create_webhook(call: Call[CreateWebhookRequest, None]) -> CreatedWebhook:
    body = call.body
    async with call.unit_of_work() as uow:
        created = await service.create(uow, _deps(call), call.principal.active_workspace_id,
                                       call.principal.user.id, body.url,
                                       list(body.event_types), body.description)
    return _info(created.row, CreatedWebhook, secret=created.secret)


@routes.get("/webhooks/", response=WebhookList, auth=MEMBER, summary="List webhook endpoints")
async def list_webhooks(call: Call[None, None]) -> WebhookList:
    async with call.unit_of_work() as uow:
        rows = await service.list_endpoints(uow, call.principal.active_workspace_id)
    return WebhookList(items=[_info(row) for row in rows])


@routes.get(f"/webhooks/{ID}/", path_model=WebhookPath, response=WebhookInfo, auth=MEMBER,
            owner=Owner.WORKSPACE, errors=(404,), summary="Get a webhook endpoint")
async def get_webhook(call: Call[None, None]) -> WebhookInfo:
    async with call.unit_of_work() as uow:
        row = await service.get(uow, call.principal.active_workspace_id, call.path.webhook_id)
    return _info(row)


@routes.patch(f"/webhooks/{ID}/", path_model=WebhookPath, body=UpdateWebhookRequest,
              response=WebhookInfo, auth=ADMIN, errors=(400, 404),
              summary="Change a webhook endpoint (switch it on or off)")
async def update_webhook(call: Call[UpdateWebhookRequest, None]) -> WebhookInfo:
    async with call.unit_of_work() as uow:
        row = await service.update(uow, _deps(call), call.principal.active_workspace_id,
                                   call.path.webhook_id, call.body.model_dump(exclude_unset=True))
    return _info(row)


@routes.delete(f"/webhooks/{ID}/", path_model=WebhookPath, response=None, status=204,
               auth=ADMIN, errors=(404,), summary="Delete a webhook endpoint",
               description="Its delivery log goes with it; pending deliveries are not sent.")
async def delete_webhook(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await service.delete(uow, call.principal.active_workspace_id, call.path.webhook_id)


@routes.post(f"/webhooks/{ID}/rotate-secret/", path_model=WebhookPath, response=WebhookSecret,
             auth=ADMIN, errors=(404,), summary="Rotate a webhook's signing secret",
             description="Answers the new secret once; for 24 hours deliveries carry the "
             "previous secret's signature too.")
async def rotate_webhook_secret(call: Call[None, None]) -> WebhookSecret:
    async with call.unit_of_work() as uow:
        secret, expires = await service.rotate_secret(
            uow, _deps(call), call.principal.active_workspace_id, call.path.webhook_id)
    return WebhookSecret(secret=secret, previous_secret_expires_at=expires)


@routes.get(f"/webhooks/{ID}/deliveries/", path_model=WebhookPath, query=DeliveryQuery,
            response=DeliveryPage, auth=MEMBER, owner=Owner.WORKSPACE, errors=(400, 404),
            summary="The endpoint's delivery log")
async def list_deliveries(call: Call[None, DeliveryQuery]) -> DeliveryPage:
    query = call.query
    async with call.unit_of_work() as uow:
        page = await service.deliveries(uow, call.principal.active_workspace_id,
                                        call.path.webhook_id, query.status, query.cursor,
                                        query.limit)
    return DeliveryPage(items=[_delivery(row) for row in page.rows],
                        next_cursor=page.next_cursor)


@routes.post(f"/webhooks/{ID}/deliveries/{{delivery_id:[0-9A-Z]+}}/redeliver/",
             path_model=DeliveryPath, response=DeliveryInfo, status=202, auth=ADMIN,
             rate_limit=REDELIVER_LIMIT, errors=(404, 409, 429),
             summary="Send a delivery's event again",
             description="A new delivery of the same event (same `webhook-id`), sent at once "
             "by the job engine (its attempts then follow the retry schedule).")
async def redeliver(call: Call[None, None]) -> DeliveryInfo:
    async with call.unit_of_work() as uow:
        row = await service.redeliver(uow, _deps(call), call.principal.active_workspace_id,
                                      call.path.webhook_id, call.path.delivery_id)
        await call.request.config_dict[JOBS].enqueue_in(uow, "webhooks.deliver",
                                                        delivery_id=row.id)
    return _delivery(row)
