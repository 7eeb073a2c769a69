"""Where derived artefacts of the code are cached on this machine, and what keys them: the user's
cache folder for insureops, and a fingerprint of the code that made an entry (the rules CLI's
checked rulesets, the market's checked appetites and compiled code). An entry made by other code
has another key, so a stale one is never read."""

from __future__ import annotations

import os
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path


@cache
def code_fingerprint(packages: tuple[str, ...]) -> str:
    """What identifies the code of `packages`: Python's version and every source file's name,
    size and modification time."""
    found: list = [sys.version]
    for package in packages:
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".lark", ".lalr")):
                        stat = os.stat(os.path.join(root, name))
                        found.append((root, name, stat.st_size, stat.st_mtime_ns))
    return repr(found)


@cache
def insureops_cache() -> Path:
    """The user's cache folder for insureops (platformdirs: $XDG_CACHE_HOME, else ~/.cache on
    Linux); each cache is a folder in it."""
    from platformdirs import user_cache_path

    return user_cache_path("insureops", appauthor=False)
