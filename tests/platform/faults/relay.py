"""A TCP relay the fault tests put between the service and a PostgreSQL server, and control.

`stop()` is the server going away (the port refuses, open connections are cut) and `start()`
its restart on the same port; `stall()` is a server that accepts and never answers (new
connections are held, open ones stop forwarding) until `resume()`; `hold_replies()` forwards
what clients send and holds what the server answers (a request that arrived and an answer
that never will); `drop()` cuts the open connections and keeps listening (a network blip, a
proxy restart). It runs in the test's event loop; the service is another process or, for a
pool under test, the test itself.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Self


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class TcpRelay:
    """127.0.0.1:`port` -> `target`, with the faults of the module docstring."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.accepted = 0
        self._server: asyncio.Server | None = None
        self._transports: set[asyncio.WriteTransport] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._replying = asyncio.Event()  # cleared: the server's answers are held
        self._replying.set()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.resume()
        await self.stop()

    async def start(self) -> None:
        """Listen (again) on `port` and forward."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def stop(self) -> None:
        """Refuse new connections and cut the open ones, as a stopped server does."""
        if self._server is not None:
            self._server.close()
            self._server = None
        await self.drop()

    async def drop(self) -> None:
        """Cut every open connection (RST); keep listening."""
        for transport in list(self._transports):
            transport.abort()
        self._transports.clear()
        tasks, self._tasks = list(self._tasks), set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stall(self) -> None:
        """Accept, never answer: nothing is forwarded in either direction until `resume`."""
        self._flowing.clear()

    def hold_replies(self) -> None:
        """Forward what clients send, hold what the server answers, until `resume` (or `drop`)."""
        self._replying.clear()

    def resume(self) -> None:
        self._flowing.set()
        self._replying.set()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._transports.add(writer.transport)
        self.accepted += 1
        upstream_writer = None
        try:
            # A connection accepted just before `stop` may start after it: it is cut too.
            if self._server is None:
                return
            await self._flowing.wait()
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
            self._transports.add(upstream_writer.transport)
            if self._server is None:
                return
            await asyncio.gather(self._pipe(reader, upstream_writer),
                                 self._pipe(upstream_reader, writer, self._replying))
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for end in (writer, upstream_writer):
                if end is not None:
                    self._transports.discard(end.transport)
                    end.transport.abort()
            self._tasks.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    *gates: asyncio.Event) -> None:
        while data := await reader.read(65536):
            await self._flowing.wait()
            for gate in gates:
                await gate.wait()
            writer.write(data)
            await writer.drain()
        writer.transport.abort()
