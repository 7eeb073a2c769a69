"""ApiKeyCache on its own: rows kept for the bound and no longer, bounded in size, none at 0."""

from __future__ import annotations

from insureops.platform.api_key_cache import ApiKeyCache


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
