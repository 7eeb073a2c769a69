"""LLM providers over plain HTTP: who they are, how they authenticate, and one chat completion.

Platform-level because two areas call providers (connectors tests keys, the carrier finder's
classifier asks for completions). Every call connects through a CheckingResolver under the
shared outbound address policy (platform/outbound/addresses.py), never follows a redirect, has the
settings' timeout, and never returns or logs the key.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass

import aiohttp
from yarl import URL

from insureops.platform.config import Settings
from insureops.platform.outbound.addresses import literal_address, outbound_address_allowed
from insureops.platform.outbound.checked_resolver import CheckingResolver


class Provider(enum.StrEnum):
    """`openai` also covers OpenAI-compatible servers (a base_url of theirs)."""

    OPENAI = "openai"
    ANTHROPIC = "anthropic"


DEFAULT_BASE_URLS = {
    Provider.OPENAI: "https://api.openai.com",
    Provider.ANTHROPIC: "https://api.anthropic.com",
}
# The model asked when the stored key names none: each provider's small, cheap one.
DEFAULT_MODELS = {Provider.OPENAI: "gpt-4o-mini", Provider.ANTHROPIC: "claude-3-5-haiku-latest"}
ANTHROPIC_VERSION = "2023-06-01"
MAX_ANSWER_BYTES = 256 * 1024


class BaseUrlRefusedError(Exception):
    """The base_url is malformed, names a host the settings do not allow, or a refused address."""


class CompletionError(Exception):
    """A completion that did not come back; `reason` is a stable word (docs/classifier.md)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ProviderKey:
    """A workspace's decrypted key for one provider. Never log or return `api_key`."""

    provider: Provider
    api_key: str
    base_url: str | None
    model: str | None

    def __repr__(self) -> str:  # keeps the key out of tracebacks and logs
        return f"ProviderKey(provider={self.provider.value!r}, base_url={self.base_url!r})"


def provider_resolver(allowed_networks: Iterable[str]) -> CheckingResolver:
    """Every address a provider's host resolves to must pass the shared address policy."""
    allowed = tuple(allowed_networks)
    return CheckingResolver(
        lambda address: outbound_address_allowed(address, allowed),
        lambda host: BaseUrlRefusedError(f"The address of {host} is not allowed."),
    )


def literal_refused(base: str, settings: Settings) -> bool:
    """A base URL naming an IP address the policy refuses (the resolver never sees those)."""
    literal = literal_address(URL(base).raw_host or "")
    return literal is not None and not outbound_address_allowed(
        literal, settings.llm_allowed_networks
    )


def auth_headers(provider: Provider, api_key: str) -> dict[str, str]:
    """The provider's authentication headers for `api_key`."""
    if provider is Provider.ANTHROPIC:
        return {"x-api-key": api_key, "anthropic-version": ANTHROPIC_VERSION}
    return {"Authorization": f"Bearer {api_key}"}


def provider_session(settings: Settings, timeout: float) -> aiohttp.ClientSession:
    """A client session for provider calls: checked resolver, no proxy, no cookies."""
    connector = aiohttp.TCPConnector(
        resolver=provider_resolver(settings.llm_allowed_networks), use_dns_cache=False, limit=2
    )
    return aiohttp.ClientSession(
        connector=connector,
        trust_env=False,
        timeout=aiohttp.ClientTimeout(total=timeout),
        cookie_jar=aiohttp.DummyCookieJar(),
    )


def _request(key: ProviderKey, system: str, user: str, max_tokens: int) -> tuple[str, dict]:
    base = key.base_url or DEFAULT_BASE_URLS[key.provider]
    model = key.model or DEFAULT_MODELS[key.provider]
    if key.provider is Provider.ANTHROPIC:
        return f"{base}/v1/messages", {
            "model": model,
            "max_tokens": max_tokens,
            "temperature": 0,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        }
    return f"{base}/v1/chat/completions", {
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }


def _answer_text(provider: Provider, body: object) -> str | None:
    """The assistant's text in an OpenAI chat completion or an Anthropic message."""
    if not isinstance(body, dict):
        return None
    if provider is Provider.ANTHROPIC:
        parts = body.get("content")
        texts = (
            [
                part.get("text")
                for part in parts
                if isinstance(part, dict)
                and part.get("type") == "text"
                and isinstance(part.get("text"), str)
            ]
            if isinstance(parts, list)
            else []
        )
        return "".join(texts) or None
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


async def complete(
    key: ProviderKey,
    system: str,
    user: str,
    settings: Settings,
    *,
    max_tokens: int = 300,
    timeout: float | None = None,
) -> str:
    """One chat completion's text; raises CompletionError (reason `address_refused`,
    `provider_timeout`, `provider_unreachable`, `provider_error` or `answer_invalid`)."""
    url, payload = _request(key, system, user, max_tokens)
    if literal_refused(url, settings):
        raise CompletionError("address_refused", "The provider's address is not allowed.")
    limit = settings.llm_timeout_seconds if timeout is None else timeout
    try:
        async with (
            provider_session(settings, limit) as session,
            session.post(
                url,
                json=payload,
                headers=auth_headers(key.provider, key.api_key),
                allow_redirects=False,
            ) as response,
        ):
            raw = await response.content.read(MAX_ANSWER_BYTES + 1)
            status = response.status
    except BaseUrlRefusedError:
        raise CompletionError("address_refused", "The provider's address is not allowed.") from None
    except TimeoutError:
        raise CompletionError("provider_timeout", f"No answer within {limit:g} s.") from None
    except (aiohttp.ClientError, OSError) as exc:
        raise CompletionError(
            "provider_unreachable", f"Connection failed: {type(exc).__name__}"
        ) from None
    if status != 200:
        raise CompletionError("provider_error", f"The provider answered HTTP {status}.")
    if len(raw) > MAX_ANSWER_BYTES:
        raise CompletionError("answer_invalid", "The provider's answer is too large.")
    try:
        text = _answer_text(key.provider, json.loads(raw))
    except ValueError:
        text = None
    if text is None:
        raise CompletionError("answer_invalid", "The provider's answer holds no text.")
    return text
