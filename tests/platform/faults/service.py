"""The service as the fault tests run it: `insureops serve` subprocesses, and a writing load.

A `ServiceProcess` is a real process on a free port, its log in a file (a pipe nobody reads
would fill and block it). `write_clients` is the load: workers creating clients through the
tenant API until told to stop, every answer recorded with its latency, and the uuid of every
acknowledged (201) create kept, so a test can look for each one in the tenant database.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import psycopg

from tests.databases import plain_conninfo
from tests.platform.faults.relay import free_port
from tests.platform.test_serve_command import insureops_command


class ServiceProcess:
    """`insureops serve` with `environment` (INSUREOPS_* variables) on a port of its own."""

    def __init__(self, environment: dict[str, str], log_path: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._environment = environment
        self._process: subprocess.Popen | None = None

    async def start(self, timeout: float = 60.0) -> ServiceProcess:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
        environment.update(self._environment)
        with self.log_path.open("ab") as log:
            self._process = await asyncio.to_thread(
                subprocess.Popen, [insureops_command(), "serve", "--port", str(self.port)],
                env=environment, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    raise AssertionError(f"the service exited early:\n{self.log()}")
                try:
                    async with session.get(f"{self.base}/api/health/") as response:
                        if response.status == 200:
                            return self
                except (aiohttp.ClientError, TimeoutError):
                    pass
                await asyncio.sleep(0.1)
        raise AssertionError(f"the service did not start within {timeout} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL: no cleanup, connections cut mid-request."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(10)

    def stop(self) -> None:
        """SIGINT (a graceful stop), then SIGKILL if it takes over 10 s."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.send_signal(signal.SIGINT)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@dataclass(frozen=True)
class Answer:
    """One request of the load: when it started (monotonic), its outcome and latency."""

    started: float
    base: str
    status: int  # 0: no HTTP answer (connection refused or cut, client timeout)
    seconds: float
    code: str | None = None
    retry_after: str | None = None


@dataclass
class Load:
    answers: list[Answer] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)

    def statuses(self, base: str | None = None, after: float = 0.0) -> Counter[int]:
        return Counter(a.status for a in self.answers
                       if (base is None or a.base == base) and a.started >= after)

    def errors(self) -> list[Answer]:
        """Answers that are neither a create nor a well-formed 503."""
        return [a for a in self.answers if a.status != 201 and not (
            a.status == 503 and a.retry_after and a.code in (
                "tenant_database_unavailable", "service_unavailable"))]


async def write_clients(bases: list[str], key: str, stop: asyncio.Event, *, workers: int = 6,
                        timeout: float = 10.0, failover: bool = False) -> Load:
    """Create clients from `workers` concurrent workers until `stop` is set. Worker i writes to
    `bases[i % len(bases)]`; with `failover`, a worker whose instance does not answer moves to
    the next one (as a load balancer would)."""
    load, names = Load(), itertools.count()
    headers = {"Authorization": f"Bearer {key}"}

    async def worker(index: int, session: aiohttp.ClientSession) -> None:
        base = bases[index % len(bases)]
        while not stop.is_set():
            started = time.monotonic()
            try:
                async with session.post(f"{base}/api/v2/mcp/clients/", headers=headers,
                                        json={"name": f"load-{next(names)}"}) as response:
                    body = await response.json(content_type=None)
                    status = response.status
                    retry_after = response.headers.get("Retry-After")
            except (aiohttp.ClientError, TimeoutError):
                load.answers.append(Answer(started, base, 0, time.monotonic() - started))
                if failover:
                    base = bases[(bases.index(base) + 1) % len(bases)]
                await asyncio.sleep(0.05)
                continue
            seconds = time.monotonic() - started
            code = body.get("error", {}).get("code") if isinstance(body, dict) else None
            load.answers.append(Answer(started, base, status, seconds, code, retry_after))
            if status == 201:
                load.acknowledged.append(body["uuid"])
            elif status == 503:
                await asyncio.sleep(0.05)  # a client honouring Retry-After would wait longer

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        await asyncio.gather(*(worker(index, session) for index in range(workers)))
    return load


def missing_clients(tenant_url: str, uuids: list[str]) -> set[str]:
    """The acknowledged creates that are not in the tenant database (read directly, no relay)."""
    with psycopg.connect(plain_conninfo(tenant_url)) as connection:
        found = {str(row[0]) for row in connection.execute(
            "SELECT uuid FROM clients WHERE uuid = ANY(%s::uuid[])", (uuids,))}
    return set(uuids) - found
