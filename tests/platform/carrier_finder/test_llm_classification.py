"""LLM-assisted classification: POST /classify/ and POST /scan/ ask the workspace's provider (a
fake on 127.0.0.1 that checks the key) to choose among the offline candidates, and fall back to
the offline result, saying why, whenever the provider or its answer fails."""

from __future__ import annotations

import datetime
import json
import logging

import pytest
from cryptography.fernet import Fernet

from insureops.carrier_matching.classifier import classify
from insureops.platform.config import Settings
from insureops.platform.outbound.llm_providers import (
    CompletionError,
    Provider,
    ProviderKey,
    complete,
)
from insureops.platform.records.llm_keys import LlmProviderKey
from tests.platform.carrier_finder.conftest import BASE, start_finder
from tests.platform.carrier_finder.site import build_site
from tests.platform.connectors.fake_provider import FakeProvider

KEYS = "/api/v1/connectors/llm-adaptor/keys"
RIGHT_KEY = "sk-right-key-0123456789-WXYZ"
WRONG_KEY = "sk-wrong-key-9876543210-ABCD"
PLUMBER = "We fix leaky pipes, water heaters and drains: a family-owned plumbing contractor"
RESTAURANT = "We run a small Italian restaurant with a bar"


def local(settings: Settings, **overrides) -> Settings:
    """Providers and scanned sites on 127.0.0.1 allowed; a short provider timeout."""
    return settings.model_copy(
        update={
            "llm_allowed_networks": ("127.0.0.1/32",),
            "scan_allowed_networks": ("127.0.0.1/32",),
            "llm_timeout_seconds": 1.0,
            **overrides,
        }
    )


async def start_fake(aiohttp_server, provider: str = "openai", **options):
    fake = FakeProvider(provider, RIGHT_KEY, **options)
    server = await aiohttp_server(fake.app(), host="127.0.0.1")
    return fake, f"http://127.0.0.1:{server.port}"


async def finder_with_key(
    aiohttp_client, settings, base_url: str, provider: str = "openai", api_key: str = RIGHT_KEY
):
    finder = await start_finder(aiohttp_client, local(settings), market=False)
    saved = await finder.client.post(
        KEYS,
        headers=finder.member.headers,
        json={"provider": provider, "api_key": api_key, "base_url": base_url},
    )
    assert saved.status == 200, await saved.text()
    return finder


async def classify_as(finder, description: str, session: bool = True) -> dict:
    response = await finder.client.post(
        BASE + "/classify/",
        json={"description": description},
        headers=finder.member.headers if session else {},
    )
    assert response.status == 200, await response.text()
    return await response.json()


def offline_codes(description: str) -> list[str]:
    return [r.naics for r in classify(description)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_classify_uses_the_provider_when_the_workspace_key_is_right(
    aiohttp_client, aiohttp_server, settings, provider, caplog
):
    caplog.set_level(logging.DEBUG)
    fake, base_url = await start_fake(aiohttp_server, provider)
    finder = await finder_with_key(aiohttp_client, settings, base_url, provider)
    body = await classify_as(finder, PLUMBER)
    offline = offline_codes(PLUMBER)
    assert len(offline) >= 2
    assert body["method"] == "llm" and body["provider"] == provider
    assert body["fallback_reason"] is None
    # the fake chose the last offline candidate; the others follow in offline order
    assert [r["naics"] for r in body["results"]] == [offline[-1], *offline[:-1]]
    assert body["results"][0]["confidence"] == 0.9
    prompt = json.dumps(fake.prompts[-1])
    assert all(code in prompt for code in offline) and "leaky pipes" in prompt
    assert RIGHT_KEY not in prompt and RIGHT_KEY not in caplog.text


async def test_classify_stays_offline_when_no_session_or_no_key_is_given(
    aiohttp_client, aiohttp_server, settings
):
    fake, base_url = await start_fake(aiohttp_server)
    finder = await finder_with_key(aiohttp_client, settings, base_url)
    anonymous = await classify_as(finder, PLUMBER, session=False)
    assert anonymous["method"] == "offline" and anonymous["fallback_reason"] is None
    assert anonymous["provider"] is None and fake.prompts == []
    other = await finder.tenancy.owner("kim@other.test", "Other Agency")
    response = await finder.client.post(
        BASE + "/classify/", json={"description": PLUMBER}, headers=other.headers
    )
    body = await response.json()
    assert body["method"] == "offline" and body["provider"] is None and fake.prompts == []
    stale = await finder.client.post(
        BASE + "/classify/",
        json={"description": PLUMBER},
        headers={"Cookie": "sessionid=not-a-session"},
    )
    assert stale.status == 200 and (await stale.json())["method"] == "offline"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"answer": lambda prompt: "I think it is a plumber."}, "answer_invalid"),
        (
            {"answer": lambda prompt: '{"codes": [{"naics": "111110"}]}'},
            "answer_outside_candidates",
        ),
        ({"answer": lambda prompt: '{"codes": ["999999"]}'}, "answer_not_naics"),
        ({"answer": lambda prompt: '{"codes": []}'}, "answer_empty"),
        ({"status": 500}, "provider_error"),
        ({"delay": 3.0}, "provider_timeout"),
    ],
)
async def test_classify_falls_back_to_offline_when_the_provider_or_its_answer_fails(
    aiohttp_client, aiohttp_server, settings, options, reason
):
    _, base_url = await start_fake(aiohttp_server, **options)
    finder = await finder_with_key(aiohttp_client, settings, base_url)
    body = await classify_as(finder, PLUMBER)
    assert body["method"] == "offline" and body["fallback_reason"] == reason
    assert [r["naics"] for r in body["results"]] == offline_codes(PLUMBER)


async def test_classify_falls_back_when_the_key_is_wrong(aiohttp_client, aiohttp_server, settings):
    fake, base_url = await start_fake(aiohttp_server, "anthropic")
    finder = await finder_with_key(aiohttp_client, settings, base_url, "anthropic", WRONG_KEY)
    body = await classify_as(finder, PLUMBER)
    assert body["method"] == "offline" and body["fallback_reason"] == "provider_error"
    assert fake.received[-1]["x-api-key"] == WRONG_KEY and fake.prompts == []


async def test_classify_falls_back_when_the_provider_is_down(
    aiohttp_client, aiohttp_server, settings
):
    fake = FakeProvider("openai", RIGHT_KEY)
    server = await aiohttp_server(fake.app(), host="127.0.0.1")
    finder = await finder_with_key(aiohttp_client, settings, f"http://127.0.0.1:{server.port}")
    await server.close()
    body = await classify_as(finder, PLUMBER)
    assert body["method"] == "offline" and body["fallback_reason"] == "provider_unreachable"


async def test_classify_does_not_ask_when_the_offline_classifier_finds_nothing(
    aiohttp_client, aiohttp_server, settings
):
    fake, base_url = await start_fake(aiohttp_server)
    finder = await finder_with_key(aiohttp_client, settings, base_url)
    body = await classify_as(finder, "?!")
    assert body == {
        "results": [],
        "method": "offline",
        "fallback_reason": "no_candidates",
        "provider": "openai",
    }
    assert fake.prompts == []


async def test_scan_classifies_with_the_provider_when_the_workspace_has_a_key(
    aiohttp_client, aiohttp_server, settings
):
    _, base_url = await start_fake(aiohttp_server)
    site = await aiohttp_server(build_site(), host="127.0.0.1")
    finder = await finder_with_key(aiohttp_client, settings, base_url)
    response = await finder.post("/scan/", {"url": str(site.make_url("/pages/restaurant"))})
    body = await response.json()
    assert response.status == 200, body
    assert body["method"] == "llm" and body["fallback_reason"] is None
    assert body["naics"] == body["classification"][0]["naics"] == body["business"]["naics"]


async def test_complete_refuses_a_provider_address_the_policy_does_not_allow(aiohttp_server):
    _, base_url = await start_fake(aiohttp_server)
    key = ProviderKey(Provider.OPENAI, RIGHT_KEY, base_url, None)
    with pytest.raises(CompletionError) as refused:
        await complete(key, "system", "user", Settings(llm_timeout_seconds=1.0))
    assert refused.value.reason == "address_refused"
    named = ProviderKey(
        Provider.OPENAI, RIGHT_KEY, base_url.replace("127.0.0.1", "localhost"), None
    )
    with pytest.raises(CompletionError) as resolved:
        await complete(named, "system", "user", Settings(llm_timeout_seconds=1.0))
    assert resolved.value.reason == "address_refused"
    assert RIGHT_KEY not in repr(key)


async def test_classify_falls_back_when_the_stored_key_cannot_be_decrypted(
    aiohttp_client, settings
):
    finder = await start_finder(aiohttp_client, local(settings), market=False)
    foreign = Fernet(Fernet.generate_key())  # not among the service's keys
    async with finder.tenancy.database.unit_of_work() as uow:
        uow.session.add(
            LlmProviderKey(
                workspace_id=finder.member.workspace_id,
                provider="openai",
                key_encrypted=foreign.encrypt(RIGHT_KEY.encode()).decode(),
                key_last_four="WXYZ",
                saved_at=datetime.datetime.now(datetime.UTC),
            )
        )
    body = await classify_as(finder, PLUMBER)
    assert body["method"] == "offline" and body["fallback_reason"] == "key_unreadable"
    assert [r["naics"] for r in body["results"]] == offline_codes(PLUMBER)
