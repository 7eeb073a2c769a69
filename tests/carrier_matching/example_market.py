"""The example market (examples/market/), loaded once per test process, and its test date.

Its checked appetites stay in `CHECKED`, an in-memory cache of the process: the platform tests
read the same appetites through the service's cache (tests/platform/conftest.py), so a test
process checks each appetite of the example market once, not once per service it starts.
"""

from __future__ import annotations

import tomllib
from datetime import date
from functools import cache
from pathlib import Path

from insureops.carrier_matching import Market, load_market
from insureops.carrier_matching.compiled import CheckedAppetite

ROOT = Path(__file__).resolve().parents[2]
MARKET_FOLDER = ROOT / "examples" / "market"
AS_OF = date(2026, 3, 1)


def read_texts(folder: Path = MARKET_FOLDER) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*")) if path.suffix in {".toml", ".rules"}}


class MemoryCache:
    """carrier_matching.compiled's AppetiteCache port in memory, by source and path."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], CheckedAppetite] = {}

    def get(self, source: str, path: str) -> CheckedAppetite | None:
        return self.entries.get((source, path))

    def put(self, source: str, appetite: CheckedAppetite) -> None:
        self.entries[(source, appetite.ruleset.filename)] = appetite


CHECKED = MemoryCache()


@cache
def example_market() -> Market:
    return load_market(read_texts(), as_of=AS_OF, cache=CHECKED)


@cache
def product_count() -> int:
    """How many products the example market's manifests list (read without compiling)."""
    return sum(len(tomllib.loads(path.read_text(encoding="utf-8")).get("products", []))
               for path in MARKET_FOLDER.glob("*/carrier.toml"))


def carrier_count() -> int:
    """How many carriers the example market has (its folders with a manifest)."""
    return len(list(MARKET_FOLDER.glob("*/carrier.toml")))
