"""The compiled market cache (appetite_cache.py): a warm load answers as a cold one, a changed
source or a tampered, foreign or unsigned file is never used, compiled code is reused, and a
compiled appetite and a candidate index are read back whole."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from insureops.carrier_matching import load_market
from insureops.carrier_matching.matching import match
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.carrier_finder.market.appetite_cache import ENTRY_FOLDERS, AppetiteCache
from tests.carrier_matching.market_texts import market_texts

ELECTRICIAN = {"naics": "238210", "state": "CA", "annual_revenue": 1_750_000,
               "description": "Electrical service", "years_in_business": 15}
AS_OF = date(2026, 3, 1)
KINDS = ENTRY_FOLDERS


def answers(market) -> list[tuple]:
    report = match(ELECTRICIAN, market, as_of=AS_OF, index=index_market_appetites(
        market.appetites))
    return [(r.product.id, r.decision, r.score, r.reasons, r.tags) for r in report.results]


BUILT: list[int] = []


def counted_index(appetites):
    """index_market_appetites, counting its builds (a cached index is read back instead)."""
    BUILT.append(1)
    return index_market_appetites(appetites)


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


def test_an_evaluated_appetite_is_restored_whole_and_the_index_read_back(tmp_path: Path):
    cold = load_market(market_texts(), cache=AppetiteCache(tmp_path))
    expected = answers(cold)
    explained = match(ELECTRICIAN, cold, as_of=AS_OF, explain=True).results[0].trace
    assert entries(tmp_path, "compiled")  # kept once compiled
    BUILT.clear()
    index = AppetiteCache(tmp_path).index(cold.appetites, counted_index)
    assert entries(tmp_path, "indexes") and BUILT == [1]
    warm = load_market(market_texts(), cache=AppetiteCache(tmp_path))
    ruleset = warm.appetites[0].ruleset
    assert answers(warm) == expected
    assert ruleset.is_compiled and ruleset._ir is None  # no IR read, no code generated
    assert match(ELECTRICIAN, warm, as_of=AS_OF, explain=True).results[0].trace == explained
    again = AppetiteCache(tmp_path).index(warm.appetites, counted_index)
    assert BUILT == [1] and again is not index and again.names == index.names
    assert again.candidates(ELECTRICIAN) == index.candidates(ELECTRICIAN)


def test_an_index_of_other_appetites_is_never_the_stale_one(tmp_path: Path):
    market = load_market(market_texts(), cache=AppetiteCache(tmp_path))
    BUILT.clear()
    AppetiteCache(tmp_path).index(market.appetites, counted_index)
    texts = market_texts()
    texts["alpha/electricians.rules"] = texts["alpha/electricians.rules"].replace(
        '"Alpha: electricians"', '"Alpha: electricians, renamed"')
    changed = load_market(texts, cache=AppetiteCache(tmp_path))
    AppetiteCache(tmp_path).index(changed.appetites, counted_index)
    assert BUILT == [1, 1] and len(entries(tmp_path, "indexes")) == 2


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
    market = load_market(market_texts(), cache=AppetiteCache(tmp_path))
    expected = answers(market)
    BUILT.clear()
    AppetiteCache(tmp_path).index(market.appetites, counted_index)
    for kind in KINDS:
        for entry in entries(tmp_path, kind):
            data = bytearray(entry.read_bytes())
            data[-5] ^= 0xFF  # a change the signature does not cover
            entry.write_bytes(bytes(data))
    cache = AppetiteCache(tmp_path)
    tampered = load_market(market_texts(), cache=cache)
    assert answers(tampered) == expected
    assert cache.hits == 0 and cache.misses == 1
    cache.index(tampered.appetites, counted_index)
    assert BUILT == [1, 1]


def test_an_unsigned_entry_such_as_a_pickle_is_never_decoded(tmp_path: Path):
    market = load_market(market_texts(), cache=AppetiteCache(tmp_path))
    answers(market)
    AppetiteCache(tmp_path).index(market.appetites, index_market_appetites)
    import pickle

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "ran"),))

    for kind in KINDS:
        for entry in entries(tmp_path, kind):
            entry.write_bytes(b"\0" * 32 + pickle.dumps(Boom()))
    cache = AppetiteCache(tmp_path)
    unsigned = load_market(market_texts(), cache=cache)
    answers(unsigned)
    cache.index(unsigned.appetites, index_market_appetites)
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
    answers(load_market(market_texts(), cache=AppetiteCache(folder)))
    assert all(entry.stat().st_mode & 0o777 == 0o600
               for kind in KINDS for entry in entries(folder, kind))
    assert entries(folder, "compiled")


def folder_files(folder: Path) -> set[Path]:
    return {path for kind in KINDS for path in (folder / kind).glob("*")}


def test_the_folder_stays_within_its_bound_keeping_the_recently_used(tmp_path: Path):
    load_market(market_texts(), cache=AppetiteCache(tmp_path))  # its appetite entry
    current = folder_files(tmp_path)
    size = sum(path.stat().st_size for path in current)
    old = tmp_path / "appetites" / "old.bin"
    old.write_bytes(b"x" * (2 * size))  # an entry of an older code version, never read again
    os.utime(old, (1, 1))
    assert AppetiteCache(tmp_path, max_bytes=3 * size).sweep() == 0  # within the bound
    cache = AppetiteCache(tmp_path, max_bytes=3 * size - 1)
    assert load_market(market_texts(), cache=cache).appetites
    assert cache.sweep() == 1
    assert folder_files(tmp_path) == current  # the least recently used went, nothing else
