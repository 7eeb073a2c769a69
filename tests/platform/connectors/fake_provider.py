"""A fake LLM provider on 127.0.0.1: the model-list and completion endpoints of OpenAI's and
Anthropic's HTTP APIs (`/v1/models`, `/v1/chat/completions`, `/v1/messages`), answering as they
do for a right and a wrong key, and recording what it received.

Completions answer `answer(prompt)`; by default the classifier's JSON choosing the last
candidate code the prompt lists (so a test can tell the provider's ranking from the offline
one). `status` makes every completion fail with that HTTP status.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

MODELS = {"openai": ["gpt-4o-mini", "gpt-4o"], "anthropic": ["claude-3-5-haiku-20241022"]}
OPENAI_WRONG_KEY = "Incorrect API key provided. You can find your API key in your dashboard."
ANTHROPIC_WRONG_KEY = "invalid x-api-key"


def choose_last_candidate(prompt: str) -> str:
    """The classifier's answer naming the last candidate code listed in the prompt."""
    codes = re.findall(r"^- (\d{6}):", prompt, flags=re.MULTILINE)
    return json.dumps({"codes": [{"naics": code, "confidence": 0.9} for code in codes[-1:]]})


@dataclass
class FakeProvider:
    provider: str
    right_key: str
    delay: float = 0.0
    received: list[dict[str, str]] = field(default_factory=list)
    answer: Callable[[str], str] = choose_last_candidate
    status: int = 200
    prompts: list[dict] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/models", self.models)
        app.router.add_post("/v1/chat/completions", self.chat_completions)
        app.router.add_post("/v1/messages", self.messages)
        return app

    async def _refusal(self, request: web.Request) -> web.Response | None:
        """The provider's refusal of a wrong key or a failing provider, else None."""
        self.received.append(dict(request.headers))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.provider == "anthropic":
            refused = self._anthropic_key(request)
        else:
            refused = self._openai_key(request)
        if refused is None and self.status != 200:
            return web.json_response({"error": {"message": "overloaded", "type": "server_error"}},
                                     status=self.status)
        return refused

    async def chat_completions(self, request: web.Request) -> web.Response:
        refused = await self._refusal(request)
        if refused is not None:
            return refused
        body = await request.json()
        self.prompts.append(body)
        prompt = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
        return web.json_response({
            "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": self.answer(prompt)}}]})

    async def messages(self, request: web.Request) -> web.Response:
        refused = await self._refusal(request)
        if refused is not None:
            return refused
        body = await request.json()
        self.prompts.append(body)
        prompt = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
        return web.json_response({
            "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
            "stop_reason": "end_turn",
            "content": [{"type": "text", "text": self.answer(prompt)}]})

    def _openai_key(self, request: web.Request) -> web.Response | None:
        if request.headers.get("Authorization") != f"Bearer {self.right_key}":
            return web.json_response({"error": {
                "message": OPENAI_WRONG_KEY, "type": "invalid_request_error", "param": None,
                "code": "invalid_api_key"}}, status=401)
        return None

    def _anthropic_key(self, request: web.Request) -> web.Response | None:
        if not request.headers.get("anthropic-version"):
            return web.json_response({"type": "error", "error": {
                "type": "invalid_request_error",
                "message": "anthropic-version: header is required"}}, status=400)
        if request.headers.get("x-api-key") != self.right_key:
            return web.json_response({"type": "error", "error": {
                "type": "authentication_error", "message": ANTHROPIC_WRONG_KEY}}, status=401)
        return None

    async def models(self, request: web.Request) -> web.Response:
        self.received.append(dict(request.headers))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.provider == "anthropic":
            return self._anthropic(request)
        return self._openai(request)

    def _openai(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {self.right_key}":
            return web.json_response({"error": {
                "message": OPENAI_WRONG_KEY, "type": "invalid_request_error", "param": None,
                "code": "invalid_api_key"}}, status=401)
        return web.json_response({"object": "list", "data": [
            {"id": model, "object": "model", "owned_by": "system"}
            for model in MODELS["openai"]]})

    def _anthropic(self, request: web.Request) -> web.Response:
        if not request.headers.get("anthropic-version"):
            return web.json_response({"type": "error", "error": {
                "type": "invalid_request_error",
                "message": "anthropic-version: header is required"}}, status=400)
        if request.headers.get("x-api-key") != self.right_key:
            return web.json_response({"type": "error", "error": {
                "type": "authentication_error", "message": ANTHROPIC_WRONG_KEY}}, status=401)
        return web.json_response({"data": [
            {"id": model, "type": "model", "display_name": model}
            for model in MODELS["anthropic"]], "has_more": False})
