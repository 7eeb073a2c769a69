"""The fast tier of the settings use cases: in-memory fakes of their stores and of the connection
test (fakes.py) and a fixed clock; no database, no HTTP. Here are the rules: API key scopes,
expiry and revocation, the tenant database connection (what saving forgets, which test is
recorded), webhook endpoints (limit, changes, secrets, the delivery log's cursor, redelivery)
and the request bodies' bounds. The stores' SQL, the routes and the real connection test are
the database tier's (test_api_keys.py, test_database.py, test_webhooks.py)."""

from __future__ import annotations

import datetime

import pytest
from cryptography.fernet import Fernet, MultiFernet
from pydantic import ValidationError

from insureops.platform.auth.requirements import Scope
from insureops.platform.config import Settings
from insureops.platform.outbound.webhook_client import WebhookUrlRefusedError
from insureops.platform.records.api_keys import hash_api_key
from insureops.platform.settings import service
from insureops.platform.settings.errors import (
    ApiKeyNotFoundError,
    DatabaseNotConfiguredError,
    DatabaseUrlRefusedError,
    InvalidExpiryError,
)
from insureops.platform.settings.payloads import CreateApiKeyRequest
from insureops.platform.settings.tester import ConnectionReport
from insureops.platform.settings.webhooks import service as webhooks
from insureops.platform.settings.webhooks.payloads import CreateWebhookRequest
from insureops.platform.tenancy.databases import decrypt_url
from insureops.platform.webhooks.models import WebhookDelivery
from insureops.platform.webhooks.signing import PREVIOUS_SECRET_SECONDS, decrypt_secret
from tests.platform.accounts.conftest import FakeClock
from tests.platform.fakes import FakeUnitOfWork
from tests.platform.settings.fakes import (
    Connections,
    FakeSettings,
    FakeWebhooks,
)

ANN, BOB, USER = "ws-ann", "ws-bob", "user-ann"
SECRET = "s3cret-Wd9"  # long enough that no ciphertext holds it by chance (two letters did)
URL = f"postgresql://app:{SECRET}@127.0.0.1:5432/agency"
HOOK = "http://127.0.0.1:9/hook"
OK = ConnectionReport(ok=True, latency_ms=3, schema_version="2.2.0", error=None)
FAILED = ConnectionReport(ok=False, latency_ms=None, schema_version=None,
                          error="connection_failed")


def _settings(**changes) -> Settings:
    return Settings(database_url="sqlite+aiosqlite:///never-opened.sqlite3",
                    secret_key="test-secret-key", fernet_keys=(Fernet.generate_key().decode(),),
                    load_example_market=False,
                    tenant_database_allowed_networks=("127.0.0.1/32",),
                    webhook_allowed_networks=("127.0.0.1/32",), webhooks_per_workspace=2,
                    **changes)


class Area:
    """One workspace's settings on fake stores, with its clock."""

    def __init__(self) -> None:
        settings = _settings()
        self.clock = FakeClock()
        self.deps = service.SettingsDeps(settings, MultiFernet([Fernet(settings.fernet_keys[0].get_secret_value())]),
                                         self.clock)
        self.store, self.hooks, self.uow = FakeSettings(), FakeWebhooks(), FakeUnitOfWork()

    async def key(self, workspace: str = ANN, scopes=(Scope.READ, Scope.WRITE),
                  expires_at=None) -> service.CreatedKey:
        return await service.create_api_key(self.uow, self.deps, workspace, USER,
                                            service.NewKey(" Claude ", tuple(scopes), expires_at),
                                            store=self.store)

    async def save(self, url: str = URL, workspace: str = ANN):
        return await service.save_database(self.uow, self.deps, workspace, USER, url,
                                           store=self.store)

    async def test(self, tester: Connections, url: str | None = None, workspace: str = ANN):
        return await service.run_database_test(self.uow, self.deps, workspace, url,
                                               store=self.store, tester=tester)

    async def hook(self, workspace: str = ANN, url: str = HOOK, types=("decision.made",),
                   description: str | None = "CRM") -> webhooks.Created:
        return await webhooks.create(self.uow, self.deps, workspace, USER, url, list(types),
                                     description, store=self.hooks)

    async def change(self, endpoint_id: str, workspace: str = ANN, **changes):
        return await webhooks.update(self.uow, self.deps, workspace, endpoint_id, changes,
                                     store=self.hooks)


@pytest.fixture
def area() -> Area:
    return Area()


# API keys


@pytest.mark.parametrize(("scopes", "stored"), [((Scope.READ,), {"read"}),
                                                ((Scope.READ, Scope.WRITE), {"read", "write"}),
                                                ((Scope.WRITE,), {"read", "write"})])
async def test_scopes_are_kept_with_write_implying_read_when_chosen(area, scopes, stored):
    created = await area.key(scopes=scopes)
    assert {str(scope) for scope in created.row.scope_set} == stored


async def test_new_key_is_answered_once_and_stored_as_its_digest_with_a_trimmed_name(area):
    created = await area.key()
    assert created.row.key_hash == hash_api_key(created.key) != created.key
    assert created.row.display_prefix == created.key[:11] and created.row.name == "Claude"
    assert created.row.created_at == area.deps.now() and created.row.created_by == USER


async def test_key_expiring_now_or_before_is_refused_and_nothing_is_stored(area):
    for expires in (area.deps.now(), area.deps.now() - datetime.timedelta(days=1)):
        with pytest.raises(InvalidExpiryError):
            await area.key(expires_at=expires)
    assert area.store.keys == []
    later = area.deps.now() + datetime.timedelta(seconds=1)
    assert (await area.key(expires_at=later)).row.expires_at == later


async def test_keys_are_listed_newest_first_without_the_revoked_or_another_workspaces(area):
    first = await area.key()
    area.clock.advance(1)
    second = await area.key()
    await area.key(workspace=BOB)
    assert [r.id for r in await service.list_api_keys(area.uow, ANN, store=area.store)] == [
        second.row.id, first.row.id]
    await service.revoke_api_key(area.uow, area.deps, ANN, first.row.id, store=area.store)
    assert [r.id for r in await service.list_api_keys(area.uow, ANN, store=area.store)] == [
        second.row.id]


async def test_revoking_twice_or_another_workspaces_key_is_not_found(area):
    created = await area.key()
    with pytest.raises(ApiKeyNotFoundError):
        await service.revoke_api_key(area.uow, area.deps, BOB, created.row.id, store=area.store)
    await service.revoke_api_key(area.uow, area.deps, ANN, created.row.id, store=area.store)
    revoked_at = created.row.revoked_at
    area.clock.advance(60)
    with pytest.raises(ApiKeyNotFoundError):
        await service.revoke_api_key(area.uow, area.deps, ANN, created.row.id, store=area.store)
    assert created.row.revoked_at == revoked_at == area.deps.now() - datetime.timedelta(
        seconds=60)


@pytest.mark.parametrize("body", [{"scopes": []}, {"scopes": ["admin"]}, {"name": ""},
                                  {"expires_at": "2030-01-01T00:00:00"}, {"expires_at": 0},
                                  {"scopes": ["read", "write", "read"]}])
def test_key_request_is_refused_when_the_body_is_out_of_bounds(body):
    with pytest.raises(ValidationError):
        CreateApiKeyRequest.model_validate({"name": "Claude", **body})


# The tenant database connection


async def test_saved_url_is_stored_encrypted_with_its_parts_and_no_test_result(area):
    row = await area.save()
    assert SECRET not in row.url_encrypted
    assert decrypt_url(area.deps.fernet, row.url_encrypted).startswith("postgresql")
    assert (row.backend, row.host, row.port, row.database, row.username) == (
        "postgresql", "127.0.0.1", 5432, "agency", "app")
    assert row.last_test_at is None and row.saved_by == USER
    assert await service.get_database(area.uow, ANN, store=area.store) is row
    assert await service.get_database(area.uow, BOB, store=area.store) is None


async def test_saving_a_new_url_forgets_the_previous_test(area):
    await area.save()
    await area.test(Connections(OK))
    assert area.store.databases[ANN].last_test_ok is True
    again = await area.save(URL.replace("agency", "brokers"))
    assert (again.last_test_at, again.last_test_ok, again.schema_version) == (None, None, None)


@pytest.mark.parametrize("url", ["mysql://app:pw@127.0.0.1/agency", "not a url",
                                 "postgresql://app:pw@10.0.0.1/agency"])
async def test_refused_url_is_neither_saved_nor_connected_to(area, url):
    connections = Connections()
    with pytest.raises(DatabaseUrlRefusedError) as refused:
        await area.save(url)
    with pytest.raises(DatabaseUrlRefusedError):
        await area.test(connections, url)
    assert "pw" not in str(refused.value) and refused.value.refusal_code
    assert area.store.databases == {} and connections.tested == []


async def test_testing_without_a_url_needs_a_saved_connection(area):
    with pytest.raises(DatabaseNotConfiguredError):
        await area.test(Connections(OK))


async def test_test_of_the_saved_connection_is_recorded_and_commits_before_connecting(area):
    await area.save()
    async def committed_first() -> None:
        assert area.uow.commits == 1  # no transaction held over the outbound connection
    report = await area.test(Connections(OK, during=committed_first))
    row = area.store.databases[ANN]
    assert report == OK and (row.last_test_ok, row.last_test_latency_ms) == (True, 3)
    assert row.schema_version == "2.2.0" and row.last_test_at == area.deps.now()


async def test_failed_test_keeps_the_schema_version_found_before(area):
    await area.save()
    await area.test(Connections(OK))
    area.clock.advance(5)
    await area.test(Connections(FAILED))
    row = area.store.databases[ANN]
    assert (row.last_test_ok, row.last_test_error) == (False, "connection_failed")
    assert row.schema_version == "2.2.0" and row.last_test_at == area.deps.now()


async def test_test_of_a_given_url_connects_to_it_and_records_nothing(area):
    await area.save()
    connections = Connections(OK)
    report = await area.test(connections, url=URL.replace("agency", "other"))
    assert report.ok and connections.tested[0][0].database == "other"
    assert connections.tested[0][1] == area.deps.settings.tenant_database_timeout_seconds
    assert area.store.databases[ANN].last_test_at is None


async def test_connection_saved_during_the_test_keeps_none_of_its_outcome(area):
    await area.save()
    async def saved_meanwhile() -> None:
        await area.save(URL.replace("agency", "brokers"))
    await area.test(Connections(OK, during=saved_meanwhile))
    row = area.store.databases[ANN]
    assert row.database == "brokers" and row.last_test_at is None


# Webhook endpoints


async def test_endpoint_is_registered_enabled_with_its_types_sorted_once_and_a_secret(area):
    created = await area.hook(types=["run.failed", "decision.made", "run.failed"])
    row = created.row
    assert row.event_types == ["decision.made", "run.failed"] and row.enabled
    assert decrypt_secret(area.deps.fernet, row.secret_encrypted) == created.secret
    assert created.secret not in row.secret_encrypted and area.hooks.held == [ANN]


async def test_registration_is_refused_at_the_limit_counting_the_workspaces_own(area):
    for _ in range(2):
        await area.hook()
    with pytest.raises(webhooks.WebhookLimitReachedError):
        await area.hook()
    assert len(await webhooks.list_endpoints(area.uow, ANN, store=area.hooks)) == 2
    assert (await area.hook(workspace=BOB)).row.workspace_id == BOB


@pytest.mark.parametrize(("url", "reason"), [("http://10.0.0.1/hook", "address_refused"),
                                             ("http://8.8.8.8/hook", "https_required")])
async def test_registration_is_refused_when_the_url_fails_the_address_policy(area, url,
                                                                             reason):
    with pytest.raises(WebhookUrlRefusedError) as refused:
        await area.hook(url=url)
    assert refused.value.reason == reason and area.hooks.endpoints_ == {}


async def test_switching_off_is_manual_and_on_again_forgets_the_failures(area):
    row = (await area.hook()).row
    row.consecutive_failures, row.failing_since = 7, area.deps.now()
    area.clock.advance(10)
    off = await area.change(row.id, enabled=False)
    assert (off.enabled, off.disabled_reason, off.disabled_at) == (False, "manual",
                                                                   area.deps.now())
    area.clock.advance(10)
    again = await area.change(row.id, enabled=False)  # off already: its reason is kept
    assert again.disabled_at == area.deps.now() - datetime.timedelta(seconds=10)
    on = await area.change(row.id, enabled=True)
    assert (on.enabled, on.disabled_reason, on.consecutive_failures, on.failing_since) == (
        True, None, 0, None)


async def test_change_keeps_what_it_was_not_given_and_checks_a_new_url(area):
    row = (await area.hook()).row
    changed = await area.change(row.id, event_types=["task.opened", "task.opened"],
                                url="http://127.0.0.1:10/new")
    assert (changed.event_types, changed.url, changed.description) == (
        ["task.opened"], "http://127.0.0.1:10/new", "CRM")
    assert (await area.change(row.id, description=None)).description is None
    with pytest.raises(WebhookUrlRefusedError):
        await area.change(row.id, url="http://10.0.0.1/")
    assert row.url == "http://127.0.0.1:10/new"


async def test_another_workspaces_endpoint_is_not_found_for_every_use_case(area):
    row = (await area.hook()).row
    uow, deps, store = area.uow, area.deps, area.hooks
    for attempt in (webhooks.get(uow, BOB, row.id, store=store),
                    webhooks.update(uow, deps, BOB, row.id, {"enabled": False}, store=store),
                    webhooks.delete(uow, BOB, row.id, store=store),
                    webhooks.rotate_secret(uow, deps, BOB, row.id, store=store),
                    webhooks.deliveries(uow, BOB, row.id, None, None, 10, store=store),
                    webhooks.redeliver(uow, deps, BOB, row.id, "01J0", store=store)):
        with pytest.raises(webhooks.WebhookNotFoundError):
            await attempt
    assert row.enabled


async def test_rotation_keeps_the_current_secret_as_the_previous_one_for_a_while(area):
    created = await area.hook()
    secret, expires = await webhooks.rotate_secret(area.uow, area.deps, ANN, created.row.id,
                                                   store=area.hooks)
    row = created.row
    assert secret != created.secret
    assert decrypt_secret(area.deps.fernet, row.secret_encrypted) == secret
    assert decrypt_secret(area.deps.fernet, row.previous_secret_encrypted) == created.secret
    assert expires == row.previous_secret_expires_at == area.deps.now() + datetime.timedelta(
        seconds=PREVIOUS_SECRET_SECONDS)
    third, _ = await webhooks.rotate_secret(area.uow, area.deps, ANN, row.id, store=area.hooks)
    assert decrypt_secret(area.deps.fernet, row.previous_secret_encrypted) == secret != third


async def test_rotation_drops_a_secret_no_configured_key_decrypts(area):
    row = (await area.hook()).row
    row.secret_encrypted = Fernet(Fernet.generate_key()).encrypt(b"lost").decode()
    _, expires = await webhooks.rotate_secret(area.uow, area.deps, ANN, row.id,
                                              store=area.hooks)
    assert expires is None and row.previous_secret_encrypted is None


async def test_deleting_an_endpoint_deletes_its_delivery_log(area):
    row = (await area.hook()).row
    await _deliveries(area, row.id, 2)
    await webhooks.delete(area.uow, ANN, row.id, store=area.hooks)
    assert area.hooks.endpoints_ == {} and area.hooks.deliveries_ == {}


async def _deliveries(area: Area, endpoint_id: str, count: int,
                      status: str = "delivered") -> list[WebhookDelivery]:
    rows = []
    for index in range(count):
        area.clock.advance(1)
        row = WebhookDelivery(id=f"01J{index:023d}", workspace_id=ANN, endpoint_id=endpoint_id,
                              event_id=f"evt-{index}", event_type="run.completed", status=status,
                              attempts=1, next_attempt_at=None, created_at=area.deps.now())
        await area.hooks.add(None, row)
        rows.append(row)
    return rows


async def test_delivery_log_pages_newest_first_and_refuses_another_listings_cursor(area):
    row = (await area.hook()).row
    made = await _deliveries(area, row.id, 5)
    seen, cursor = [], None
    while True:
        page = await webhooks.deliveries(area.uow, ANN, row.id, None, cursor, 2,
                                         store=area.hooks)
        seen += page.rows
        if (cursor := page.next_cursor) is None:
            break
    assert [d.id for d in seen] == [d.id for d in reversed(made)]
    first = await webhooks.deliveries(area.uow, ANN, row.id, None, None, 2, store=area.hooks)
    for foreign in (first.next_cursor, "not-a-cursor"):
        with pytest.raises(webhooks.DeliveryCursorInvalidError):
            await webhooks.deliveries(area.uow, ANN, row.id, "delivered", foreign, 2,
                                      store=area.hooks)


async def test_redelivery_sends_the_same_event_again_now_unless_switched_off(area):
    row = (await area.hook()).row
    [original] = await _deliveries(area, row.id, 1, status="failed")
    area.clock.advance(30)
    again = await webhooks.redeliver(area.uow, area.deps, ANN, row.id, original.id,
                                     store=area.hooks)
    assert (again.event_id, again.status, again.attempts) == (original.event_id, "pending", 0)
    assert again.next_attempt_at == area.deps.now() and again.id != original.id
    with pytest.raises(webhooks.WebhookNotFoundError):
        await webhooks.redeliver(area.uow, area.deps, ANN, row.id, "01J9", store=area.hooks)
    await area.change(row.id, enabled=False)
    with pytest.raises(webhooks.WebhookDisabledError):
        await webhooks.redeliver(area.uow, area.deps, ANN, row.id, original.id,
                                 store=area.hooks)


@pytest.mark.parametrize("body", [{"event_types": []}, {"event_types": ["decision.made.x"]},
                                  {"url": ""}, {"description": "x" * 201}, {"secret": "mine"}])
def test_webhook_request_is_refused_when_the_body_is_out_of_bounds(body):
    with pytest.raises(ValidationError):
        CreateWebhookRequest.model_validate({"url": HOOK, "event_types": ["decision.made"],
                                             **body})
