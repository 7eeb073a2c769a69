"""A fake LLM provider on 127.0.0.1: the model-list endpoint of OpenAI's and Anthropic's HTTP
APIs, answering as they do for a right and a wrong key, and recording what it received."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from aiohttp import web

MODELS = {"openai": ["gpt-4o-mini", "gpt-4o"], "anthropic": ["claude-3-5-haiku-20241022"]}
OPENAI_WRONG_KEY = "Incorrect API key provided. You can find your API key in your dashboard."
ANTHROPIC_WRONG_KEY = "invalid x-api-key"


@dataclass
class FakeProvider:
    provider: str
    right_key: str
    delay: float = 0.0
    received: list[dict[str, str]] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/models", self.models)
        return app

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
