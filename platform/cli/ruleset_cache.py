"""The checked form of each rules file, kept as data in the user's cache so a later `rules` command
skips the parser.

Parsing and checking a ruleset (lark's tables, the checker) is most of what `rules simulate`
costs before its first case. The CLI keeps the file's checked IR and input schemas as JSON
(`engine/ir/data.py`: reading it builds IR nodes and nothing else, so no file can run code) in
the user's cache folder, `insureops/rules/` of platformdirs' user cache (`$XDG_CACHE_HOME`, else
`~/.cache`, on Linux), made private (0700, files 0600). An entry is named and checked by a
SHA-256 of the source and the language's own code; it is read only when the current user owns
it. A miss or any unreadable entry means a normal check; `-B` or PYTHONDONTWRITEBYTECODE write
nothing. The pickle kept beside the file before issue 28 is deleted unread.
docs/rules-language.md, "The CLI's cache".
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from functools import cache
from pathlib import Path

import msgspec

from insureops.dsl.compiling import CheckedRuleset, compile_checked
from insureops.engine.ir.data import ruleset_from_data, ruleset_to_data
from insureops.platform.data.code_cache import code_fingerprint, insureops_cache

_PACKAGES = ("insureops.dsl", "insureops.engine", "insureops.schema")
FORMAT = "insureops-checked-ruleset/1"  # in the key: a new layout misses the old entries
_OLD_SUFFIX = ".insureops.pickle"  # the format before issue 28, beside the rules file


def _code_fingerprint() -> str:
    """What identifies the language's code (see `code_fingerprint`)."""
    return code_fingerprint(_PACKAGES)


@cache
def cache_folder() -> Path:
    """The folder of the entries: `rules/` in the user's cache folder for insureops."""
    return insureops_cache() / "rules"


def _key(source: str) -> str:
    """The entry's name and key: the source and the code that checks it. The path is not in
    it: a check does not depend on where the file is (diagnostics do, but errors are not kept)."""
    digest = hashlib.sha256(f"{FORMAT}\0{_code_fingerprint()}\0".encode())
    digest.update(source.encode())
    return digest.hexdigest()


def cache_path(source: str) -> Path:
    """Where the checked form of a rules file holding `source` is kept."""
    return cache_folder() / f"{_key(source)}.json"


def old_cache_path(path: str) -> Path:
    """Where the CLI kept a pickle of the rules file `path` before issue 28."""
    rules = Path(path)
    return rules.parent / "__pycache__" / (rules.name + _OLD_SUFFIX)


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    key: str
    ruleset: list
    schemas: dict


def _load(where: Path, key: str) -> CheckedRuleset | None:
    try:
        with open(where, "rb") as handle:
            if hasattr(os, "getuid") and os.fstat(handle.fileno()).st_uid != os.getuid():
                return None
            entry = msgspec.json.decode(handle.read(), type=_Entry)
        if entry.key != key:
            return None
        return CheckedRuleset(ruleset_from_data(entry.ruleset), entry.schemas)
    except (OSError, ValueError, RecursionError, msgspec.DecodeError):  # any unusable entry
        return None


def _store(where: Path, key: str, checked: CheckedRuleset) -> None:
    if sys.dont_write_bytecode:
        return
    temporary = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    try:
        data = msgspec.json.encode(_Entry(key, ruleset_to_data(checked.ruleset), checked.schemas))
        _private_folder(where.parent)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, where)  # readers see the old file or the whole new one
    except (OSError, ValueError, TypeError, RecursionError):
        with contextlib.suppress(OSError):  # nothing written, or a folder we cannot use
            temporary.unlink(missing_ok=True)


def _private_folder(folder: Path) -> None:
    """`folder` and its parent (insureops' cache folder), made 0700 when created here; the
    user's cache folder above them with the usual permissions."""
    folder.parent.parent.mkdir(parents=True, exist_ok=True)
    for level in (folder.parent, folder):
        with contextlib.suppress(FileExistsError):
            level.mkdir(mode=0o700)


def _forget_old_cache(path: str) -> None:
    """Delete the pickle that an earlier version kept beside the file, without reading it, and
    its `__pycache__` folder if nothing else is in it."""
    old = old_cache_path(path)
    with contextlib.suppress(OSError):
        old.unlink()
    with contextlib.suppress(OSError):
        old.parent.rmdir()


def compile_rules_file(path: str, source: str):
    """The compiled ruleset of the rules file `path` holding `source`, checked from the cache
    when its entry is current; raises RulesetInvalidError as `compile_ruleset` does."""
    _forget_old_cache(path)
    key = _key(source)
    where = cache_folder() / f"{key}.json"
    checked = _load(where, key)
    if checked is not None:
        with contextlib.suppress(Exception):  # an entry that does not compile: check again
            return compile_checked(checked, source=source, filename=path)
    from insureops.dsl.api import check_for_compile  # the parser, only on a miss

    checked = check_for_compile(source, filename=path)
    compiled = compile_checked(checked, source=source, filename=path)
    _store(where, key, checked)
    return compiled
