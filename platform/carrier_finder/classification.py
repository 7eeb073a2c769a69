"""Classification for /classify/ and /scan/: offline, or asked of the workspace's LLM provider.

With a workspace key (platform/records/llm_keys.py) the provider chooses among the offline
candidates (carrier_matching/llm_classification.py checks its answer); any failure keeps the offline result
and names why in `fallback_reason`, so a provider outage never fails a classification.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from insureops.carrier_matching.classifier import ClassifierResult, classify
from insureops.carrier_matching.llm_classification import (
    LlmAnswerError,
    build_prompt,
    read_answer,
)
from insureops.platform.auth.requirements import Auth
from insureops.platform.config import Settings
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import AUTHENTICATORS, DATABASE, SECRET_KEYS
from insureops.platform.outbound.llm_providers import CompletionError, ProviderKey, complete
from insureops.platform.records.llm_keys import LlmKeySecretError, workspace_key

logger = logging.getLogger("insureops.platform.carrier_finder")

OFFLINE, LLM = "offline", "llm"
Complete = Callable[[ProviderKey, str, str, Settings], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class Classified:
    """Ranked codes and how they were found; `fallback_reason` says why a configured provider's
    answer was not used; `provider` names the provider asked (None when none was)."""

    results: list[ClassifierResult]
    method: str = OFFLINE
    fallback_reason: str | None = None
    provider: str | None = None


@dataclass(frozen=True, slots=True)
class WorkspaceKey:
    """The workspace's provider key, or why there is none to use (`problem`)."""

    key: ProviderKey | None = None
    problem: str | None = None


NO_KEY = WorkspaceKey()


async def request_workspace(request: web.Request) -> str | None:
    """The active workspace of the request's session, if it carries a valid one (routes without
    auth use it when present; an absent or stale session is simply anonymous)."""
    try:
        principal = await request.config_dict[AUTHENTICATORS].authenticate(request, Auth.SESSION)
    except ApiError:
        return None
    return principal.active_workspace_id


async def workspace_llm_key(request: web.Request, workspace_id: str | None) -> WorkspaceKey:
    """The key the workspace's classifier uses; NO_KEY without a workspace or a key."""
    if workspace_id is None:
        return NO_KEY
    config = request.config_dict
    try:
        async with config[DATABASE].unit_of_work() as uow:
            key = await workspace_key(uow, config[SECRET_KEYS].fernet, workspace_id)
    except LlmKeySecretError:
        logger.warning("LLM key unreadable", extra={"workspace_id": workspace_id})
        return WorkspaceKey(problem="key_unreadable")
    return WorkspaceKey(key=key)


async def classify_text(
    description: str,
    *,
    name: str | None,
    website: str | None,
    key: WorkspaceKey,
    settings: Settings,
    ask: Complete = complete,
) -> Classified:
    """The offline candidates, reordered by the provider when the workspace has a key."""
    offline = classify(description, name=name, website=website)
    if key.key is None:
        return Classified(offline, fallback_reason=key.problem)
    provider = key.key.provider.value
    if not offline:  # nothing to choose among: the provider is not asked
        return Classified(offline, fallback_reason="no_candidates", provider=provider)
    prompt = build_prompt(description, offline, name=name, website=website)
    try:
        answer = await ask(key.key, prompt.system, prompt.user, settings)
        results = read_answer(answer, offline)
    except (CompletionError, LlmAnswerError) as exc:
        logger.info(
            "LLM classification fell back to offline",
            extra={"provider": provider, "reason": exc.reason},
        )
        return Classified(offline, fallback_reason=exc.reason, provider=provider)
    return Classified(results, method=LLM, provider=provider)


def page_classifier(key: WorkspaceKey, settings: Settings
                    ) -> Callable[[str, str | None, str | None], Awaitable[Classified]]:
    """`classify_text` with the workspace's key, as a scan classifies a page's words."""
    async def classify_page(description: str, name: str | None,
                            website: str | None) -> Classified:
        return await classify_text(description, name=name, website=website, key=key,
                                   settings=settings)
    return classify_page
