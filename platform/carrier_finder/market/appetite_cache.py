"""The compiled market kept between runs, by content: checked appetites (data only, read back by
building IR nodes and prefix sets), the code objects of their generated Python, and whole
compiled appetites (engine.evaluation.frozen: restored without reading IR or generating code),
shared by `insureops serve` and the CLI of the same user, in `insureops/market/` of its cache.

A stale entry is never used: any change to the source, the generated text or the code that reads
them is another key. A tampered or corrupt entry is never used either: each file starts with an
HMAC-SHA256 of the rest under a random key kept in the folder (0600), checked before anything is
decoded, and marshal or pickle data is loaded only after that check. A file not owned by the
user, a key others can read, or any error is a miss. `market match --no-cache` turns it off;
PYTHONDONTWRITEBYTECODE does not. Layout and decisions: docs/carrier-finder.md, "The compiled
market cache".
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import hmac
import io
import marshal
import multiprocessing
import os
import pickle
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from functools import cache
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING

import msgspec

from insureops.carrier_matching.compiled import (
    CheckedAppetite,
    LazyRuleset,
    boxes_from_data,
    boxes_to_data,
)
from insureops.carrier_matching.market import Appetite
from insureops.carrier_matching.pruning import CandidateIndex
from insureops.engine.ir.data import ruleset_from_data, ruleset_to_data
from insureops.platform.data.code_cache import code_fingerprint, insureops_cache

if TYPE_CHECKING:
    from insureops.engine.evaluation.compiler import CompiledRuleset

FORMAT = "insureops-market-cache/2"
PACKAGES = ("insureops.dsl", "insureops.engine", "insureops.schema", "insureops.carrier_matching")
DIGEST = 32  # bytes of HMAC-SHA256
# The folder's bound: past it, a process's first write removes the least recently used files
# (reads touch theirs) down to three quarters of it. Entries of old code versions go first.
MAX_BYTES = 1 << 30
ENTRY_FOLDERS = ("appetites", "code", "compiled", "indexes")


class _Appetite(msgspec.Struct, forbid_unknown_fields=True, array_like=True):
    key: str
    name: str
    title: str | None
    inputs: list[tuple[str, str]]
    tested: bool
    line: int | None
    column: int | None
    max_limit: str | None
    boxes: list
    kinds: dict[str, list[str]]
    ir: msgspec.Raw


def default_folder() -> Path:
    """`insureops/market/` of the user's cache folder (beside the CLI's `rules/`)."""
    return insureops_cache() / "market"


class AppetiteCache:
    """Checked appetites and compiled code in `folder` (carrier_matching.compiled's
    AppetiteCache port and the engine's code cache port). Counts hits and misses."""

    def __init__(self, folder: Path | None = None, *, write: bool = True,
                 max_bytes: int = MAX_BYTES) -> None:
        self.folder = folder if folder is not None else default_folder()
        self.write = write
        self.max_bytes = max_bytes
        self.hits = self.misses = 0
        self._key: bytes | None = None
        self._swept = False

    # --- the HMAC key and signed files ----------------------------------------------------

    def _secret(self) -> bytes | None:
        if self._key is None:
            self._key = _read_or_make_key(self.folder / "key", create=self.write)
        return self._key

    def _read(self, where: Path) -> bytes | None:
        secret = self._secret()
        if secret is None:
            return None
        try:
            with open(where, "rb") as handle:
                if hasattr(os, "getuid") and os.fstat(handle.fileno()).st_uid != os.getuid():
                    return None
                data = handle.read()
        except OSError:
            return None
        body = data[DIGEST:]
        if len(data) < DIGEST or not hmac.compare_digest(
                data[:DIGEST], hmac.new(secret, body, hashlib.sha256).digest()):
            return None
        if self.write:
            with contextlib.suppress(OSError):
                os.utime(where)  # recently used: the sweep keeps it
        return body

    def _write(self, where: Path, body: bytes) -> None:
        if not self.write:
            return
        secret = self._secret()
        if secret is None:
            return
        if not self._swept:
            self._swept = True
            self.sweep()
        temporary = where.with_name(f"{where.name}.{os.getpid()}.tmp")
        try:
            _private_folder(where.parent, self.folder)
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(descriptor, "wb") as handle:
                handle.write(hmac.new(secret, body, hashlib.sha256).digest() + body)
            os.replace(temporary, where)  # readers see the old file or the whole new one
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)

    def sweep(self) -> int:
        """Keep the folder within `max_bytes`: when its entries exceed it, remove the least
        recently used down to three quarters of it; how many files were removed."""
        entries = []
        for name in ENTRY_FOLDERS:
            with contextlib.suppress(OSError), os.scandir(self.folder / name) as found:
                for entry in found:
                    with contextlib.suppress(OSError):
                        info = entry.stat(follow_symlinks=False)
                        entries.append((info.st_mtime, info.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        removed = 0
        if total <= self.max_bytes:
            return removed
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 3 // 4:
                break
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size
                removed += 1
        return removed

    # --- checked appetites (carrier_matching.compiled.AppetiteCache) ----------------------

    def _appetite_key(self, source: str) -> str:
        digest = hashlib.sha256(f"{FORMAT}\0{code_fingerprint(PACKAGES)}\0".encode())
        digest.update(source.encode())
        return digest.hexdigest()

    def get(self, source: str, path: str) -> CheckedAppetite | None:
        key = self._appetite_key(source)
        body = self._read(self.folder / "appetites" / f"{key}.bin")
        found = None
        if body is not None:
            with contextlib.suppress(ValueError, TypeError, ArithmeticError, RecursionError,
                                     msgspec.DecodeError):
                found = _appetite(msgspec.msgpack.decode(body, type=_Appetite), key, source,
                                  path, self.code_cache())
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, source: str, appetite: CheckedAppetite) -> None:
        ruleset = appetite.ruleset
        ruleset.code_cache = self.code_cache()  # its compiled code is kept too
        ruleset.kept = self  # and, once compiled, the whole compiled ruleset
        if not self.write:
            return
        key = self._appetite_key(source)
        try:
            body = msgspec.msgpack.encode(_Appetite(
                key, appetite.name, appetite.title, [tuple(i) for i in appetite.inputs],
                appetite.tested, appetite.line, appetite.column,
                None if appetite.max_limit is None else str(appetite.max_limit),
                boxes_to_data(ruleset.accepting_boxes()),
                {name: list(kinds) for name, kinds in ruleset.rule_kinds().items()},
                msgspec.Raw(msgspec.msgpack.encode(ruleset_to_data(ruleset.ir)))))
        except (ValueError, TypeError, RecursionError):
            return
        self._write(self.folder / "appetites" / f"{key}.bin", body)

    def prime(self, sources: Mapping[str, str], *, workers: int | None = None) -> int:
        """Check the appetites (path -> source) the cache does not know yet in `workers`
        processes (default: the CPUs, at most 8), each storing its entries, so a cold market
        load takes the time of its share; how many were missing. Worth it only for many: a
        worker costs its imports."""
        if not self.write or self._secret() is None:
            return 0
        missing = {path: source for path, source in sources.items()
                   if not (self.folder / "appetites" / f"{self._appetite_key(source)}.bin")
                   .exists()}
        workers = min(workers or os.cpu_count() or 1, 8, len(missing) // PRIME_CHUNK)
        if workers < 2:
            return len(missing)
        items = sorted(missing.items())
        shares = [dict(items[start::workers]) for start in range(workers)]
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        with contextlib.suppress(OSError, RuntimeError, concurrent.futures.BrokenExecutor), \
                concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            list(pool.map(_prime_share, [self.folder] * workers, shares))
        return len(missing)

    # --- candidate indexes (carrier_matching.pruning), by the market's appetites -----------

    def index(self, appetites: Sequence[Appetite],
              build: Callable[[Sequence[Appetite]], CandidateIndex]) -> CandidateIndex:
        """The candidate index of `appetites`: read back when `build` indexed these names and
        sources before (under this code), else `build`'s, kept for the next start."""
        builder = f"{getattr(build, '__module__', '')}.{getattr(build, '__qualname__', '')}"
        digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0{code_fingerprint(PACKAGES)}\0"
                                f"{builder}\0".encode())
        for appetite in appetites:
            digest.update(f"{len(appetite.name)}:{appetite.name}".encode())
            digest.update(hashlib.sha256(appetite.source.encode()).digest())
        where = self.folder / "indexes" / f"{digest.hexdigest()}.bin"
        body = self._read(where)
        if body is not None:
            with contextlib.suppress(pickle.UnpicklingError, EOFError, ValueError, TypeError,
                                     AttributeError, ImportError, IndexError, KeyError,
                                     RecursionError):
                found = _IndexUnpickler(io.BytesIO(body)).load()
                if isinstance(found, CandidateIndex):
                    return found
        built = build(appetites)
        if self.write and type(built) is CandidateIndex:
            with contextlib.suppress(pickle.PicklingError, TypeError, RecursionError):
                self._write(where, pickle.dumps(built, protocol=5))
        return built

    # --- whole compiled rulesets (carrier_matching.compiled.CompiledStore) ----------------

    def _compiled_path(self, source: str) -> Path:
        from insureops.engine.evaluation import frozen

        digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0{frozen.FORMAT}\0".encode())
        digest.update(self._appetite_key(source).encode())
        return self.folder / "compiled" / f"{digest.hexdigest()}.bin"

    def restore(self, ruleset: LazyRuleset) -> CompiledRuleset | None:
        """The compiled ruleset kept for `ruleset`'s source (its generated code and constants,
        no IR read), or None."""
        from insureops.engine.evaluation import frozen

        body = self._read(self._compiled_path(ruleset.source))
        if body is None:
            return None
        try:
            return frozen.thaw(body, ruleset._compile_now, ruleset.source)
        except (ValueError, RecursionError, MemoryError):
            return None

    def keep(self, ruleset: LazyRuleset, compiled: CompiledRuleset) -> None:
        from insureops.engine.evaluation import frozen

        if self.write:
            body = frozen.freeze(compiled)
            if body is not None:
                self._write(self._compiled_path(ruleset.source), body)

    # --- compiled code (engine.evaluation.generator.CodeCache) ----------------------------

    def _code_path(self, text: str, filename: str) -> Path:
        digest = hashlib.sha256(f"{FORMAT}\0{sys.version}\0{filename}\0".encode())
        digest.update(text.encode())
        return self.folder / "code" / f"{digest.hexdigest()}.bin"

    def get_code(self, text: str, filename: str) -> CodeType | None:
        body = self._read(self._code_path(text, filename))
        if body is None:
            return None
        try:
            code = marshal.loads(body)  # noqa: S302 - only a file this user's key signed
        except (ValueError, EOFError, TypeError):
            return None
        return code if isinstance(code, CodeType) else None

    def put_code(self, text: str, filename: str, code: CodeType) -> None:
        if self.write:
            self._write(self._code_path(text, filename), marshal.dumps(code))

    def code_cache(self) -> _CodeCache:
        """This cache as the engine's code cache port."""
        return _CodeCache(self)


class _IndexUnpickler(pickle.Unpickler):
    """Only the pruning index's own classes (the file is signed: this is a second fence)."""

    def find_class(self, module: str, name: str):
        if module.startswith("insureops.carrier_matching.") or (
                module == "builtins" and name in ("frozenset", "set", "dict", "tuple", "list")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a candidate index")


class _CodeCache:
    def __init__(self, owner: AppetiteCache) -> None:
        self.owner = owner

    def get(self, text: str, filename: str) -> CodeType | None:
        return self.owner.get_code(text, filename)

    def put(self, text: str, filename: str, code: CodeType) -> None:
        self.owner.put_code(text, filename, code)


PRIME_CHUNK = 12  # appetites per worker below which checking in this process is as quick


def _prime_share(folder: Path, sources: dict[str, str]) -> None:
    """In a worker: check each source and store its entry (what `get` then reads)."""
    from insureops.carrier_matching.checking import check_appetite

    cache = AppetiteCache(folder)
    for path, source in sources.items():
        checked, _ = check_appetite(path, source)
        if checked is not None:
            cache.put(source, checked)


def _appetite(entry: _Appetite, key: str, source: str, path: str,
              code: _CodeCache) -> CheckedAppetite | None:
    if entry.key != key:
        return None
    raw = bytes(entry.ir)
    boxes = boxes_from_data(entry.boxes)

    def load_ir():
        return ruleset_from_data(msgspec.msgpack.decode(raw))

    ruleset = LazyRuleset(entry.name, load_ir, source=source, filename=path, boxes=boxes,
                          code_cache=code, kept=code.owner,
                          kinds={name: tuple(kinds) for name, kinds in entry.kinds.items()})
    limit = None if entry.max_limit is None else Decimal(entry.max_limit)
    return CheckedAppetite(entry.name, entry.title, tuple(tuple(i) for i in entry.inputs),
                           entry.tested, entry.line, entry.column, limit, ruleset)


def _read_or_make_key(where: Path, *, create: bool) -> bytes | None:
    """The folder's HMAC key: read when it is the user's own and private, made when absent
    (and `create`); None otherwise (the cache is then not used)."""
    try:
        with open(where, "rb") as handle:
            info = os.fstat(handle.fileno())
            if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
                return None
            key = handle.read()
        return key if len(key) == 32 else None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if not create:
        return None
    key = secrets.token_bytes(32)
    try:
        _private_folder(where.parent, where.parent)
        descriptor = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "wb") as handle:
            handle.write(key)
        return key
    except FileExistsError:  # another process made it first: read theirs
        return _read_or_make_key(where, create=False)
    except OSError:
        return None


def _private_folder(folder: Path, root: Path) -> None:
    """`folder` (under `root`, the market cache folder) made 0700 where created here."""
    root.parent.mkdir(parents=True, exist_ok=True)
    for level in (root, folder) if folder != root else (root,):
        with contextlib.suppress(FileExistsError):
            level.mkdir(mode=0o700)


@cache
def shared_cache() -> AppetiteCache:
    """The process's cache in the user's cache folder (the CLI and the service use this one)."""
    return AppetiteCache()

