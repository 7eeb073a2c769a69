"""A market folder on disk: the texts of its manifests and appetites, for carrier_matching's loader
(`insureops market check|match|load`, and the example market the service loads on start)."""

from __future__ import annotations

from pathlib import Path

MARKET_SUFFIXES = (".toml", ".rules")


def read_market_folder(folder: Path) -> dict[str, str]:
    """The texts of a market folder's manifests and appetites, by path relative to the folder
    (with `/`); raises OSError or UnicodeDecodeError for a file that cannot be read."""
    texts: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in MARKET_SUFFIXES:
            texts[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
    return texts
