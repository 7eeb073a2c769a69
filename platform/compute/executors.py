"""A bounded thread executor for one kind of blocking work, awaited from the event loop.

Each kind of work (password hashing, carrier matching, a tenant's SQLite files) owns one, so a
burst of one kind queues behind itself and never takes the threads another kind needs (the
event loop's default executor is left to DNS look-ups and file reads).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class BoundedExecutor:
    """At most `threads` threads named `name`, started on first use; `close()` stops them."""

    def __init__(self, name: str, threads: int) -> None:
        self.name = name
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` on one of this executor's threads, with the caller's context
        variables (the request id of log lines), as `asyncio.to_thread` would."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix=self.name)
        context = contextvars.copy_context()
        call = functools.partial(context.run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    def close(self) -> None:
        """Stop the threads once their current work is done (queued work is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
