"""The compiled market cache (appetite_cache.py): a warm load answers as a cold one, a changed
source or a tampered, foreign or unsigned file is never used, and compiled code is reused."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from insureops.carrier_matching import load_market
from insureops.carrier_matching.matching import match
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.carrier_finder.market.appetite_cache import AppetiteCache
from tests.carrier_matching.market_texts import market_texts

ELECTRICIAN = {"naics": "238210", "state": "CA", "annual_revenue": 1_750_000,
               "description": "Electrical service", "years_in_business": 15}
AS_OF = date(2026, 3, 1)


def answers(market) -> list[tuple]:
    report = match(ELECTRICIAN, market, as_of=AS_OF, index=index_market_appetites(
        market.appetites))
    return [(r.product.id, r.decision, r.score, r.reasons, r.tags) for r in report.results]


def entries(folder: Path, kind: str) -> list[Path]:
    return sorted((folder / kind).glob("*.bin"))


def test_a_warm_load_reads_every_appetite_from_the_cache_and_answers_as_a_cold_one(
        tmp_path: Path):
    cold_cache = AppetiteCache(tmp_path)
    cold = load_market(market_texts(), cache=cold_cache)
    expected = answers(cold)
    assert cold_cache.misses == 1 and entries(tmp_path, "appetites")
    assert entries(tmp_path, "code")  # the evaluated appetite's compiled code was kept
    warm_cache = AppetiteCache(tmp_path)
    warm = load_market(market_texts(), cache=warm_cache)
    assert warm_cache.hits == 1 and warm_cache.misses == 0
    assert not warm.appetites[0].ruleset.is_compiled  # compiled on first evaluation only
    assert answers(warm) == expected == answers(load_market(market_texts()))
    assert warm.appetites[0].title == cold.appetites[0].title


def test_a_changed_source_is_another_entry_and_never_the_stale_one(tmp_path: Path):
    load_market(market_texts(), cache=AppetiteCache(tmp_path))
    texts = market_texts()
    texts["alpha/electricians.rules"] = texts["alpha/electricians.rules"].replace(
        '"Alpha: electricians"', '"Alpha: electricians, renamed"')
    cache = AppetiteCache(tmp_path)
    changed = load_market(texts, cache=cache)
    assert cache.misses == 1 and changed.appetites[0].title == "Alpha: electricians, renamed"
    assert len(entries(tmp_path, "appetites")) == 2


def test_a_tampered_entry_is_a_miss_and_the_source_is_checked_again(tmp_path: Path):
    expected = answers(load_market(market_texts(), cache=AppetiteCache(tmp_path)))
    for kind in ("appetites", "code"):
        for entry in entries(tmp_path, kind):
            data = bytearray(entry.read_bytes())
            data[-5] ^= 0xFF  # a change the signature does not cover
            entry.write_bytes(bytes(data))
    cache = AppetiteCache(tmp_path)
    assert answers(load_market(market_texts(), cache=cache)) == expected
    assert cache.hits == 0 and cache.misses == 1


def test_an_unsigned_entry_such_as_a_pickle_is_never_decoded(tmp_path: Path):
    load_market(market_texts(), cache=AppetiteCache(tmp_path))
    import pickle

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "ran"),))

    for entry in entries(tmp_path, "appetites") + entries(tmp_path, "code"):
        entry.write_bytes(b"\0" * 32 + pickle.dumps(Boom()))
    cache = AppetiteCache(tmp_path)
    answers(load_market(market_texts(), cache=cache))
    assert cache.misses == 1 and not (tmp_path / "ran").exists()


def test_a_key_others_can_read_turns_the_cache_off(tmp_path: Path):
    load_market(market_texts(), cache=AppetiteCache(tmp_path))
    (tmp_path / "key").chmod(0o644)
    cache = AppetiteCache(tmp_path)
    load_market(market_texts(), cache=cache)
    assert cache.hits == 0


def test_files_are_private_to_the_user(tmp_path: Path):
    folder = tmp_path / "market"
    load_market(market_texts(), cache=AppetiteCache(folder))
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / "key").stat().st_mode & 0o777 == 0o600
    assert all(entry.stat().st_mode & 0o777 == 0o600
               for entry in entries(folder, "appetites") + entries(folder, "code"))
