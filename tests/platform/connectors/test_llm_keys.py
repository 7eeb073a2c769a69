"""Bring-your-own-key LLM providers: saving, status, deleting and the connection test against a
fake provider on 127.0.0.1 that checks the key it receives."""

from __future__ import annotations

import logging

import pytest

from tests.platform.connectors.conftest import BASE, service
from tests.platform.connectors.fake_provider import (
    ANTHROPIC_WRONG_KEY,
    OPENAI_WRONG_KEY,
    FakeProvider,
)
from tests.platform.team.test_secrets_at_rest import postgres_dump, sqlite_dump

KEYS, TEST = f"{BASE}/llm-adaptor/keys", f"{BASE}/llm-adaptor/test"
RIGHT_KEY = "sk-right-key-0123456789-WXYZ"
WRONG_KEY = "sk-wrong-key-9876543210-ABCD"


def local(settings, **overrides):
    """Settings letting a base_url be on 127.0.0.1 (the fake provider)."""
    return settings.model_copy(update={"llm_allowed_networks": ("127.0.0.1/32",),
                                       "llm_timeout_seconds": 5.0, **overrides})


async def start_fake(aiohttp_server, provider: str, **options) -> tuple[FakeProvider, str]:
    fake = FakeProvider(provider, RIGHT_KEY, **options)
    server = await aiohttp_server(fake.app(), host="127.0.0.1")
    return fake, f"http://127.0.0.1:{server.port}"


async def save(tenancy, member, **body):
    return await tenancy.client.post(KEYS, json=body, headers=member.headers)


async def statuses(tenancy, member) -> dict[str, dict]:
    response = await tenancy.client.get(KEYS, headers=member.headers)
    assert response.status == 200
    return {item["provider"]: item for item in (await response.json())["providers"]}


async def run_test(tenancy, member, provider: str) -> dict:
    response = await tenancy.client.post(TEST, json={"provider": provider},
                                         headers=member.headers)
    assert response.status == 200, await response.text()
    return await response.json()


@pytest.mark.parametrize("provider, wrong_message", [
    ("openai", OPENAI_WRONG_KEY), ("anthropic", ANTHROPIC_WRONG_KEY)])
async def test_connection_test_reports_the_providers_message_when_the_key_is_wrong(
        aiohttp_client, aiohttp_server, settings, provider, wrong_message):
    fake, base_url = await start_fake(aiohttp_server, provider)
    tenancy = await service(aiohttp_client, local(settings))
    ann = await tenancy.owner("ann@example.com")
    saved = await save(tenancy, ann, provider=provider, api_key=RIGHT_KEY, base_url=base_url)
    assert saved.status == 200, await saved.text()
    passed = await run_test(tenancy, ann, provider)
    assert passed["ok"] is True and passed["error"] is None and passed["latency_ms"] >= 0
    headers = fake.received[-1]
    if provider == "openai":
        assert headers["Authorization"] == f"Bearer {RIGHT_KEY}"
    else:
        assert headers["x-api-key"] == RIGHT_KEY and headers["anthropic-version"]
    status = (await statuses(tenancy, ann))[provider]
    assert status["last_test_ok"] is True and status["last_test_at"]

    await save(tenancy, ann, provider=provider, api_key=WRONG_KEY, base_url=base_url)
    failed = await run_test(tenancy, ann, provider)
    assert failed["ok"] is False
    assert failed["error"] == f"HTTP 401: {wrong_message}"
    status = (await statuses(tenancy, ann))[provider]
    assert status["last_test_ok"] is False and status["last_test_error"] == failed["error"]
    assert status["last_four"] == "ABCD"


async def test_status_lists_every_provider_with_only_safe_fields_when_one_is_saved(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    saved = await save(tenancy, ann, provider="openai", api_key=RIGHT_KEY, model="gpt-4o-mini")
    assert saved.status == 200
    found = await statuses(tenancy, ann)
    assert found["anthropic"]["configured"] is False
    openai = found["openai"]
    assert openai == {"provider": "openai", "configured": True, "last_four": "WXYZ",
                      "model": "gpt-4o-mini", "base_url": None, "last_test_ok": None,
                      "last_test_at": None, "last_test_error": None}
    zed = await tenancy.owner("zed@example.com", "Other Agency")
    assert (await statuses(tenancy, zed))["openai"]["configured"] is False


async def test_delete_removes_the_key_and_answers_404_when_there_is_none(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    await save(tenancy, ann, provider="anthropic", api_key=RIGHT_KEY)
    deleted = await tenancy.client.delete(f"{KEYS}/anthropic", headers=ann.headers)
    assert deleted.status == 204
    assert (await statuses(tenancy, ann))["anthropic"]["configured"] is False
    again = await tenancy.client.delete(f"{KEYS}/anthropic", headers=ann.headers)
    assert again.status == 404 and (await again.json())["error"]["code"] == "llm_key_not_found"
    untested = await tenancy.client.post(TEST, json={"provider": "anthropic"},
                                         headers=ann.headers)
    assert untested.status == 404
    unknown = await tenancy.client.delete(f"{KEYS}/mistral", headers=ann.headers)
    assert unknown.status == 404


async def test_member_may_read_the_status_but_not_change_keys_when_not_admin(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.member(ann, "bob@example.com")
    assert (await save(tenancy, bob, provider="openai", api_key=RIGHT_KEY)).status == 403
    assert (await tenancy.client.delete(f"{KEYS}/openai", headers=bob.headers)).status == 403
    assert (await statuses(tenancy, bob))["openai"]["configured"] is False
    assert (await tenancy.client.get(KEYS)).status == 401


# Every refused base URL, the metadata address and the normalised form are the fast tier's
# (test_service.py); here one refusal through the route: 400, nothing saved.
async def test_base_url_is_refused_when_the_address_policy_forbids_it(aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    refused = await save(tenancy, ann, provider="openai", api_key=RIGHT_KEY,
                         base_url="https://169.254.169.254")
    assert refused.status == 400, await refused.text()
    assert (await refused.json())["error"]["code"] == "base_url_refused"
    assert (await statuses(tenancy, ann))["openai"]["configured"] is False


async def test_connection_test_refuses_to_connect_when_an_allowed_name_resolves_to_loopback(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings.model_copy(
        update={"llm_allowed_hosts": ("localhost",)}))
    ann = await tenancy.owner("ann@example.com")
    saved = await save(tenancy, ann, provider="openai", api_key=RIGHT_KEY,
                       base_url="https://localhost:9")
    assert saved.status == 200
    result = await run_test(tenancy, ann, "openai")
    assert result["ok"] is False and "not allowed" in result["error"]


async def test_connection_test_fails_when_the_provider_does_not_answer_in_time(
        aiohttp_client, aiohttp_server, settings):
    _, base_url = await start_fake(aiohttp_server, "openai", delay=3.0)
    tenancy = await service(aiohttp_client, local(settings, llm_timeout_seconds=0.3))
    ann = await tenancy.owner("ann@example.com")
    await save(tenancy, ann, provider="openai", api_key=RIGHT_KEY, base_url=base_url)
    result = await run_test(tenancy, ann, "openai")
    assert result["ok"] is False and result["error"] == "No answer within 0.3 s."


async def test_connection_test_fails_when_the_saved_model_is_not_offered(
        aiohttp_client, aiohttp_server, settings):
    _, base_url = await start_fake(aiohttp_server, "anthropic")
    tenancy = await service(aiohttp_client, local(settings))
    ann = await tenancy.owner("ann@example.com")
    await save(tenancy, ann, provider="anthropic", api_key=RIGHT_KEY, base_url=base_url,
               model="claude-9")
    result = await run_test(tenancy, ann, "anthropic")
    assert result == {"ok": False, "latency_ms": result["latency_ms"],
                      "error": "The provider does not offer the model claude-9."}


async def test_keys_are_absent_from_responses_and_log_lines_when_saved_and_tested(
        aiohttp_client, aiohttp_server, settings, caplog):
    caplog.set_level(logging.DEBUG)
    _, base_url = await start_fake(aiohttp_server, "openai")
    tenancy = await service(aiohttp_client, local(settings))
    ann = await tenancy.owner("ann@example.com")
    bodies = []
    for key in (WRONG_KEY, RIGHT_KEY):
        response = await save(tenancy, ann, provider="openai", api_key=key, base_url=base_url)
        bodies.append(await response.text())
        response = await tenancy.client.post(TEST, json={"provider": "openai"},
                                             headers=ann.headers)
        bodies.append(await response.text())
    response = await tenancy.client.get(KEYS, headers=ann.headers)
    bodies.append(await response.text())
    logged = "\n".join(f"{record.getMessage()} {record.__dict__}" for record in caplog.records)
    assert "LLM key saved" in logged and "LLM connection tested" in logged
    for key in (WRONG_KEY, RIGHT_KEY):
        assert all(key not in body for body in bodies)
        assert key not in logged


async def test_database_dump_holds_no_llm_key_in_clear_when_keys_are_saved(
        aiohttp_client, settings, backend):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    for provider, key in (("openai", RIGHT_KEY), ("anthropic", WRONG_KEY)):
        assert (await save(tenancy, ann, provider=provider, api_key=key)).status == 200
    await tenancy.database.engine.dispose()  # everything written and closed
    if backend == "sqlite":
        dump = sqlite_dump(settings.database_url)
    else:
        dump = await postgres_dump(settings.database_url)
    assert "llm_provider_keys" in dump and "WXYZ" in dump  # the rows are in the dump
    for key in (RIGHT_KEY, WRONG_KEY):
        assert key not in dump and key[3:-4] not in dump
