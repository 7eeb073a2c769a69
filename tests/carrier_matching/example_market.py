"""The example market (examples/market/), loaded once per test process, and its test date."""

from __future__ import annotations

import tomllib
from datetime import date
from functools import cache
from pathlib import Path

from insureops.carrier_matching import Market, load_market

ROOT = Path(__file__).resolve().parents[2]
MARKET_FOLDER = ROOT / "examples" / "market"
AS_OF = date(2026, 3, 1)


def read_texts(folder: Path = MARKET_FOLDER) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*")) if path.suffix in {".toml", ".rules"}}


@cache
def example_market() -> Market:
    return load_market(read_texts(), as_of=AS_OF)


@cache
def product_count() -> int:
    """How many products the example market's manifests list (read without compiling)."""
    return sum(len(tomllib.loads(path.read_text(encoding="utf-8")).get("products", []))
               for path in MARKET_FOLDER.glob("*/carrier.toml"))


def carrier_count() -> int:
    """How many carriers the example market has (its folders with a manifest)."""
    return len(list(MARKET_FOLDER.glob("*/carrier.toml")))
