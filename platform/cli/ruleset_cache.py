"""The checked form of a rules file, kept beside it so that a later `rules` command skips the parser.

Parsing and checking a ruleset (lark's tables, the checker) is most of what `rules simulate`
costs before its first case. As Python keeps a module's bytecode, the CLI keeps the file's
`CheckedRuleset` in `__pycache__/NAME.insureops.pickle` beside it, under a key made of the
source, the path and the language's own code (the size and modification time of every file of
the dsl, engine and schema packages, and the Python version), so an edit or an upgrade misses.
A miss, an unreadable or foreign file, or any error reading it means a normal check; nothing is
written when Python is told not to write bytecode (`-B`, PYTHONDONTWRITEBYTECODE) or the folder
is not writable. The file is trusted as Python trusts bytecode in the same folder, and read only
when the current user owns it. docs/rules-language.md, "The CLI's cache".
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from insureops.dsl.compiling import CheckedRuleset, compile_checked

_PACKAGES = ("insureops.dsl", "insureops.engine", "insureops.schema")
_SUFFIX = ".insureops.pickle"


@cache
def _code_fingerprint() -> tuple:
    """What identifies the language's code: Python's version and every source file's name,
    size and modification time."""
    found: list = [sys.version]
    for package in _PACKAGES:
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".lark", ".lalr")):
                        stat = os.stat(os.path.join(root, name))
                        found.append((root, name, stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def cache_path(path: str) -> Path:
    """Where the checked form of the rules file `path` is kept."""
    rules = Path(path)
    return rules.parent / "__pycache__" / (rules.name + _SUFFIX)


def _key(path: str, source: str) -> tuple:
    """The entry's key, compared whole (no digest: a hash collision could not run the wrong
    ruleset)."""
    return (_code_fingerprint(), path, source)


def _load(where: Path, key: tuple) -> CheckedRuleset | None:
    try:
        with open(where, "rb") as handle:
            if hasattr(os, "getuid") and os.fstat(handle.fileno()).st_uid != os.getuid():
                return None
            found_key, checked = pickle.load(handle)  # a file of ours: see the docstring
    except Exception:  # noqa: BLE001 - any unreadable cache is a miss
        return None
    if found_key != key or type(checked) is not CheckedRuleset:
        return None
    return checked


def _store(where: Path, key: tuple, checked: CheckedRuleset) -> None:
    if sys.dont_write_bytecode:
        return
    temporary = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    try:
        where.parent.mkdir(exist_ok=True)
        with open(temporary, "wb") as handle:
            pickle.dump((key, checked), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, where)  # readers see the old file or the whole new one
    except (OSError, pickle.PicklingError, RecursionError):
        with contextlib.suppress(OSError):  # nothing written, or a folder we cannot use
            temporary.unlink(missing_ok=True)


def compile_rules_file(path: str, source: str):
    """The compiled ruleset of the rules file `path` holding `source`, checked from the cache
    when its entry is current; raises RulesetInvalidError as `compile_ruleset` does."""
    where, key = cache_path(path), _key(path, source)
    checked = _load(where, key)
    if checked is None:
        from insureops.dsl.api import check_for_compile  # the parser, only on a miss

        checked = check_for_compile(source, filename=path)
        _store(where, key, checked)
    return compile_checked(checked, source=source, filename=path)
