"""ApiKeyCache on its own: rows kept for the bound and no longer, bounded in size, none at 0."""

from __future__ import annotations

import asyncio

from insureops.platform.auth.api_key_cache import ApiKeyCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_row_is_remembered_for_the_bound_and_then_read_again() -> None:
    clock = Clock()
    cache = ApiKeyCache(1.0, clock=clock)
    cache.put("h", {"id": "k", "last_used_at": None})
    clock.now += 0.99
    assert cache.get("h") == {"id": "k", "last_used_at": None}
    cache.update("h", last_used_at="now")  # moves the value, not the bound
    assert cache.get("h") == {"id": "k", "last_used_at": "now"}
    clock.now += 0.01
    assert cache.get("h") is None
    cache.update("h", last_used_at="later")  # forgotten rows are not brought back
    assert cache.get("h") is None


def test_nothing_is_kept_at_zero_and_forget_all_forgets() -> None:
    off = ApiKeyCache(0)
    off.put("h", {"id": "k"})
    assert off.get("h") is None
    on = ApiKeyCache(5)
    on.put("a", {"id": "a"})
    on.put("b", {"id": "b"})
    on.forget_all()
    assert on.get("a") is None and on.get("b") is None


def test_the_cache_is_bounded() -> None:
    cache = ApiKeyCache(60, max_keys=3)
    for name in "abc":
        cache.put(name, {"id": name})
    cache.put("d", {"id": "d"})  # full: starts again rather than growing
    assert [cache.get(name) for name in "abcd"] == [None, None, None, {"id": "d"}]


async def test_concurrent_misses_of_one_key_share_one_read_when_rows_are_remembered() -> None:
    reads = 0
    release = asyncio.Event()

    async def read():
        nonlocal reads
        reads += 1
        await release.wait()
        return {"id": "k", "last_used_at": None}

    cache = ApiKeyCache(1.0, clock=Clock())
    waiting = [asyncio.create_task(cache.read_through("h", read)) for _ in range(5)]
    await asyncio.sleep(0)
    release.set()
    assert [await task for task in waiting] == [{"id": "k", "last_used_at": None}] * 5
    assert reads == 1 and cache.get("h") == {"id": "k", "last_used_at": None}
    assert await cache.read_through("h", read) == cache.get("h") and reads == 1


async def test_every_call_reads_and_nothing_is_kept_at_zero() -> None:
    reads = 0

    async def read():
        nonlocal reads
        reads += 1
        return {"id": "k"}

    cache = ApiKeyCache(0)
    await asyncio.gather(*(cache.read_through("h", read) for _ in range(3)))
    assert reads == 3 and cache.get("h") is None


async def test_a_failed_shared_read_reaches_every_caller_and_is_not_kept() -> None:
    async def read():
        await asyncio.sleep(0)
        raise OSError("down")

    cache = ApiKeyCache(1.0, clock=Clock())
    results = await asyncio.gather(*(cache.read_through("h", read) for _ in range(3)),
                                   return_exceptions=True)
    assert all(isinstance(result, OSError) for result in results)
    assert cache.get("h") is None and not cache._reading
