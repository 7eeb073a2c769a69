"""A real webhook receiver for the tests: an aiohttp server on 127.0.0.1 that records every
request and answers as the test scripts it (status, delay, an endless body, a redirect)."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field

from aiohttp import web


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int = 204
    delay: float = 0.0  # seconds before answering
    endless: bool = False  # a 200 whose body never ends
    location: str | None = None  # a redirect's target


@dataclass
class Receiver:
    """`script(...)` queues answers (the default after them: 204); `received` lists requests."""

    received: list[Received] = field(default_factory=list)
    answers: deque[Answer] = field(default_factory=deque)
    url: str = ""
    streamed_bytes: int = 0

    def script(self, *answers: Answer) -> None:
        self.answers.extend(answers)

    def at(self, path: str = "/hook") -> str:
        return self.url.rstrip("/") + path

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.received.append(Received(request.path, dict(request.headers), await request.read()))
        answer = self.answers.popleft() if self.answers else Answer()
        if answer.delay:
            await asyncio.sleep(answer.delay)
        if answer.location is not None:
            raise web.HTTPFound(answer.location)
        if answer.endless:
            response = web.StreamResponse(status=200)
            await response.prepare(request)
            chunk = b"x" * 65536
            while True:  # until the client goes away
                await response.write(chunk)
                self.streamed_bytes += len(chunk)
        return web.Response(status=answer.status, text="ok")

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app
