"""An aiohttp resolver that returns a name's addresses only when every one passes a check.

The connector connects to exactly what the resolver returns, so what was checked is what is
connected to: a name cannot resolve to an allowed address for the check and to a refused one
for the connection (DNS rebinding). Used by every outbound call to a user-given host.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from aiohttp.abc import AbstractResolver, ResolveResult


class CheckingResolver(AbstractResolver):
    """Resolves with the system resolver; `allowed(address)` must hold for every address, else
    `refused(host)` is raised (not an OSError, so aiohttp does not make it a connection error)."""

    def __init__(self, allowed: Callable[[str], bool],
                 refused: Callable[[str], Exception]) -> None:
        self._allowed = allowed
        self._refused = refused

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM, family=family)
        except (socket.gaierror, UnicodeError) as exc:
            raise OSError(f"cannot resolve {host}") from exc
        results: list[ResolveResult] = []
        for info_family, _, proto, _, sockaddr in infos:
            address = str(sockaddr[0])
            if not self._allowed(address):
                raise self._refused(host)
            results.append(ResolveResult(hostname=host, host=address, port=int(sockaddr[1]),
                                         family=info_family, proto=proto,
                                         flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV))
        if not results:
            raise OSError(f"{host} has no address")
        return results

    async def close(self) -> None:
        return None
