"""LLM providers: their base URLs (checked against the shared address policy) and the
connection test, one model-list request over plain HTTP through a resolver that checks
every address it connects to."""

from __future__ import annotations

import time
from dataclasses import dataclass

import aiohttp
from yarl import URL

from insureops.platform.config import Settings
from insureops.platform.outbound.addresses import in_networks, is_metadata, parse_address
from insureops.platform.outbound.llm_providers import (
    DEFAULT_BASE_URLS,
    BaseUrlRefusedError,
    Provider,
    auth_headers,
    literal_refused,
    provider_session,
)
from insureops.platform.outbound.llm_providers import literal_address as _literal_address

__all__ = ["BaseUrlRefusedError", "ProbeOutcome", "Provider", "normalise_base_url",
           "probe_provider"]

MAX_ERROR_LENGTH = 300


@dataclass(frozen=True)
class ProbeOutcome:
    ok: bool
    latency_ms: int
    error: str | None


def normalise_base_url(raw: str, settings: Settings) -> str:
    """The base URL without a trailing slash or `/v1`, or BaseUrlRefusedError.

    The host must be named by `llm_allowed_hosts` or be an address inside
    `llm_allowed_networks`; plain http only for the latter.
    """
    raw = raw.strip()
    if not raw or len(raw) > 2048 or any(ch.isspace() or ord(ch) < 32 for ch in raw):
        raise BaseUrlRefusedError("The base URL is empty, too long or contains white space.")
    try:
        url = URL(raw)
        port = url.port
    except (ValueError, TypeError, UnicodeError):
        raise BaseUrlRefusedError("The base URL is malformed.") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise BaseUrlRefusedError("The base URL must be an http(s):// URL with a host.")
    if url.user is not None or url.password is not None or "@" in (url.raw_authority or ""):
        raise BaseUrlRefusedError("A base URL with a user name or password is refused.")
    if url.query_string or url.fragment or port is None or not 0 < port < 65536:
        raise BaseUrlRefusedError("The base URL takes no query or fragment and a valid port.")
    host = (url.raw_host or "").lower().rstrip(".")
    literal = _literal_address(host)
    in_allowed_network = literal is not None and not is_metadata(parse_address(literal)) and \
        in_networks(parse_address(literal), settings.llm_allowed_networks)
    if not in_allowed_network:
        if host not in settings.llm_allowed_hosts:
            raise BaseUrlRefusedError(f"The host {host} is not an allowed LLM provider host "
                                      "(INSUREOPS_LLM_ALLOWED_HOSTS).")
        if url.scheme != "https":
            raise BaseUrlRefusedError("The base URL must use https://.")
    path = url.path.rstrip("/")
    path = path.removesuffix("/v1")
    return str(url.with_path(path or "/")).rstrip("/")


def _provider_message(body: object) -> str | None:
    """`error.message` of both providers' error bodies (OpenAI's and Anthropic's)."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
    return None


def _model_ids(body: object) -> set[str]:
    data = body.get("data") if isinstance(body, dict) else None
    return {item["id"] for item in data or () if isinstance(item, dict)
            and isinstance(item.get("id"), str)}


def _scrub(text: str, api_key: str) -> str:
    text = text.replace(api_key, "[redacted]") if api_key else text
    return text[:MAX_ERROR_LENGTH]


async def probe_provider(provider: Provider, api_key: str, base_url: str | None,
                          model: str | None, settings: Settings,
                          clock=time.monotonic) -> ProbeOutcome:
    """One GET {base}/v1/models with the key; never raises, never returns the key."""
    base = base_url or DEFAULT_BASE_URLS[provider]
    url = f"{base}/v1/models"
    started = clock()

    def outcome(ok: bool, error: str | None) -> ProbeOutcome:
        latency = max(0, round((clock() - started) * 1000))
        return ProbeOutcome(ok, latency, None if error is None else _scrub(error, api_key))

    try:
        async with provider_session(settings, settings.llm_timeout_seconds) as session:
            if literal_refused(base, settings):
                return outcome(False, "The provider's address is not allowed.")
            async with session.get(url, headers=auth_headers(provider, api_key),
                                   allow_redirects=False) as response:
                try:
                    body = await response.json(content_type=None)
                except ValueError:
                    body = None
                if response.status != 200:
                    message = _provider_message(body) or response.reason or "no message"
                    return outcome(False, f"HTTP {response.status}: {message}")
    except BaseUrlRefusedError as exc:
        return outcome(False, str(exc))
    except TimeoutError:
        return outcome(False, f"No answer within {settings.llm_timeout_seconds:g} s.")
    except (aiohttp.ClientError, OSError) as exc:
        return outcome(False, f"Connection failed: {type(exc).__name__}")
    if model and model not in _model_ids(body):
        return outcome(False, f"The provider does not offer the model {model}.")
    return outcome(True, None)
