"""The dsl's public entry points: check_source, parse_ruleset (checked IR), compile_ruleset.

compile_ruleset caches compiled rulesets by sha256 of (source, filename) and the registry's
identity, in a bounded LRU (RulesetCache); callers that want their own cache make one.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from threading import Lock
from typing import TYPE_CHECKING

from insureops.dsl.checker import check_ruleset
from insureops.dsl.compiling import CheckedRuleset, compile_checked
from insureops.dsl.diagnostics import Diagnostic, error, sort_diagnostics
from insureops.dsl.errors import RulesetInvalidError
from insureops.dsl.parser import parse_file
from insureops.dsl.transform import build_ruleset
from insureops.engine import ir
from insureops.schema.registry import TypeRegistry, default_registry

if TYPE_CHECKING:
    from lark import Tree

    from insureops.engine.evaluation.compiler import CompiledRuleset

DEFAULT_CACHE_SIZE = 256


@dataclass(frozen=True)
class CheckReport:
    """The outcome of checking one source: the IR (None after syntax errors) and diagnostics."""

    ruleset: ir.Ruleset | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors


def check_source(source: str, *, filename: str = "<string>",
                 registry: TypeRegistry | None = None) -> CheckReport:
    """Parse, build and type-check `source`; never raises for any input text."""
    return check_parsed(source, registry=registry)[1]


def check_parsed(source: str, *, registry: TypeRegistry | None = None
                 ) -> tuple[Tree | None, CheckReport]:
    """check_source's report with the parse tree it was built from (None after syntax errors
    or when too deep): the language analysis (dsl/analysis.py) reads both, so that the editor
    shows exactly the diagnostics `rules check` and the studio report."""
    registry = registry if registry is not None else default_registry()
    try:
        tree, diagnostics = parse_file(source)
        if tree is None:
            return None, CheckReport(None, tuple(diagnostics))
        ruleset, built = build_ruleset(tree, source)
        found = built + (check_ruleset(ruleset, registry) if ruleset is not None else [])
        return tree, CheckReport(ruleset, tuple(sort_diagnostics(found)))
    except RecursionError:
        too_deep = error("E007", None, "the ruleset is nested too deeply to check",
                         "split deeply nested expressions with consts or helper rules")
        return None, CheckReport(None, (too_deep,))


def parse_ruleset(source: str, *, filename: str = "<string>",
                  registry: TypeRegistry | None = None) -> ir.Ruleset:
    """The checked IR of `source` (warnings allowed); raises RulesetInvalidError on any error."""
    report = check_source(source, filename=filename, registry=registry)
    if report.errors or report.ruleset is None:
        raise RulesetInvalidError(report.diagnostics, source, filename)
    return report.ruleset


class RulesetCache:
    """A bounded LRU of compiled rulesets keyed by source digest, filename and registry."""

    def __init__(self, size: int = DEFAULT_CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple, tuple[TypeRegistry, CompiledRuleset]] = OrderedDict()
        self._lock = Lock()

    def get(self, source: str, *, filename: str = "<string>",
            registry: TypeRegistry | None = None) -> CompiledRuleset | None:
        """The compiled ruleset when this source was compiled before, else None (a caller on
        an event loop compiles elsewhere only on a miss)."""
        registry = registry if registry is not None else default_registry()
        return self._lookup(self._key(source, filename, registry), registry)

    def compile(self, source: str, *, filename: str = "<string>",
                registry: TypeRegistry | None = None) -> CompiledRuleset:
        """The compiled ruleset, from the cache when this source was compiled before."""
        registry = registry if registry is not None else default_registry()
        key = self._key(source, filename, registry)
        found = self._lookup(key, registry)
        if found is not None:
            return found
        compiled = _compile(source, filename, registry)
        with self._lock:
            self._entries[key] = (registry, compiled)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return compiled

    @staticmethod
    def _key(source: str, filename: str, registry: TypeRegistry) -> tuple:
        digest = hashlib.sha256(f"{len(filename)}:{filename}\0{source}".encode()).hexdigest()
        return digest, id(registry)

    def _lookup(self, key: tuple, registry: TypeRegistry) -> CompiledRuleset | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None or found[0] is not registry:
                return None
            self._entries.move_to_end(key)
            return found[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def check_for_compile(source: str, *, filename: str = "<string>",
                      registry: TypeRegistry | None = None) -> CheckedRuleset:
    """The checked IR of `source` and its inputs' schemas, ready for `compile_checked`;
    raises RulesetInvalidError on any error."""
    registry = registry if registry is not None else default_registry()
    ruleset = parse_ruleset(source, filename=filename, registry=registry)
    schemas = {declaration.name: registry.get(declaration.type_name)
               for declaration in ruleset.inputs}
    return CheckedRuleset(ruleset, schemas)


def _compile(source: str, filename: str, registry: TypeRegistry) -> CompiledRuleset:
    checked = check_for_compile(source, filename=filename, registry=registry)
    return compile_checked(checked, source=source, filename=filename)


@cache
def default_cache() -> RulesetCache:
    """The process-wide cache compile_ruleset uses (created on first use)."""
    return RulesetCache()


def compile_ruleset(source: str, *, filename: str = "<string>",
                    registry: TypeRegistry | None = None) -> CompiledRuleset:
    """Check and compile `source`; raises RulesetInvalidError listing every error."""
    return default_cache().compile(source, filename=filename, registry=registry)
