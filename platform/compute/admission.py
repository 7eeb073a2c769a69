"""Admission of heavy work (rule checks, simulations, executions, matches) per workspace.

A workspace holds at most `per_workspace` jobs at a time, running or waiting: the next is 429
with Retry-After. At most `capacity` jobs run at once; the others wait, served round-robin
across workspaces (not first come, first served), so a workspace that queued first cannot make
another wait behind all of its jobs. When `max_waiting` jobs already wait, a new one is 503.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

RETRY_AFTER_SECONDS = "5"


class WorkspaceBusyError(Exception):
    """The workspace already has its share of heavy work in progress (429)."""


class ServiceBusyError(Exception):
    """Too much heavy work waits already, from every workspace together (503)."""


class WorkGate:
    """Admits heavy work: `async with gate.admit(workspace_id): ...` runs the body in a slot."""

    def __init__(self, capacity: int, per_workspace: int, max_waiting: int) -> None:
        self.capacity = capacity
        self.per_workspace = per_workspace
        self.max_waiting = max_waiting
        self._running = 0
        self._held: dict[str, int] = {}  # per workspace: running + waiting
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}  # insertion order = turn

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._waiting.values())

    @asynccontextmanager
    async def admit(self, workspace_id: str) -> AsyncIterator[None]:
        """A slot for one job of `workspace_id`, held for the body of the `async with`."""
        held = self._held.get(workspace_id, 0)
        if held >= self.per_workspace:
            raise WorkspaceBusyError(
                f"This workspace already has {held} rule or matching jobs in progress, the most "
                f"it may run at once; retry when one has finished.")
        self._held[workspace_id] = held + 1
        try:
            await self._acquire(workspace_id)
            try:
                yield
            finally:
                self._release()
        finally:
            self._held[workspace_id] -= 1
            if not self._held[workspace_id]:
                del self._held[workspace_id]

    async def _acquire(self, workspace_id: str) -> None:
        if self._running < self.capacity and not self._waiting:
            self._running += 1
            return
        if self.waiting >= self.max_waiting:
            raise ServiceBusyError("The service is busy with other rule and matching jobs; "
                                   "retry shortly.")
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(workspace_id, deque()).append(turn)
        try:
            await turn  # _release counted this job as running before waking it
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # the slot was handed over as the request went away
            else:
                self._forget(workspace_id, turn)
            raise

    def _release(self) -> None:
        """Hand the slot to the next waiting workspace (round-robin), or free it."""
        while self._waiting:
            workspace_id, queue = next(iter(self._waiting.items()))
            turn = queue.popleft()
            del self._waiting[workspace_id]
            if queue:
                self._waiting[workspace_id] = queue  # to the back of the round
            if not turn.done():
                turn.set_result(None)
                return
        self._running -= 1

    def _forget(self, workspace_id: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(workspace_id)
        if queue is not None and turn in queue:
            queue.remove(turn)
            if not queue:
                del self._waiting[workspace_id]
