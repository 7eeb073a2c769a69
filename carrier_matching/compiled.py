"""Appetites compiled when first evaluated, and what a market check needs to know of one
without compiling it: the port through which a shell keeps checked appetites between runs.

A match evaluates the 10 to 30 appetites its candidate index keeps, so compiling every one up
front was wasted. `LazyRuleset` stands for a compiled ruleset: it reads its IR when first asked
and compiles on first evaluation, once, under a lock (or has a shell's `CompiledStore` restore
it whole). `CheckedAppetite` is what checking an
appetite's source established (header facts, `MAX_LIMIT`, the pruning analysis) with its lazy
ruleset; a shell may keep these, keyed by the source and the code, and hand them back through
`AppetiteCache` (asked by `carrier_matching.checking` before parsing anything). The core does no
I/O: platform/carrier_finder/market/appetite_cache.py implements the port
(docs/carrier-finder.md, "The compiled market cache").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from threading import RLock
from typing import TYPE_CHECKING, Any, Protocol

from insureops.engine import ir

if TYPE_CHECKING:
    from insureops.carrier_matching.appetite_analysis import Box
    from insureops.engine.evaluation.compiler import CompiledRuleset


class LazyRuleset:
    """A compiled ruleset made on first use. `load_ir` gives the checked IR (called at most
    once); `compile_ir` compiles it (the dsl's `compile_checked`, by default)."""

    def __init__(self, name: str, load_ir: Callable[[], ir.Ruleset], *, source: str,
                 filename: str, boxes: Mapping | None = None, code_cache: Any = None,
                 kept: CompiledStore | None = None,
                 kinds: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.name = name
        self.code_cache = code_cache  # engine.evaluation.generator.CodeCache, or None
        self.kept = kept  # compiled rulesets kept whole between runs, or None
        self.source = source
        self.filename = filename
        self._load_ir = load_ir
        self._ir: ir.Ruleset | None = None
        self._compiled: CompiledRuleset | None = None
        self._boxes = boxes
        self._kinds = kinds
        self._lock = RLock()

    @property
    def ir(self) -> ir.Ruleset:
        found = self._ir
        if found is None:
            with self._lock:
                if self._ir is None:
                    self._ir = self._load_ir()
                found = self._ir
        return found

    @property
    def compiled(self) -> CompiledRuleset:
        """The compiled ruleset: restored from `kept` when it has it (no IR read, no code
        generated), else compiled now (and offered to `kept`), the first time."""
        found = self._compiled
        if found is None:
            with self._lock:  # reentrant: the IR is read under it too
                if self._compiled is None:
                    kept = self.kept
                    restored = kept.restore(self) if kept is not None else None
                    self._compiled = restored or self._compile_now()
                    if restored is None and kept is not None:
                        kept.keep(self, self._compiled)
                found = self._compiled
        return found

    def _compile_now(self) -> CompiledRuleset:
        """Compiled from the IR, whatever `kept` holds (what a restored ruleset compiles for
        its traced form)."""
        return _compile(self.ir, self.source, self.filename, self.code_cache)

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    def accepting_boxes(self) -> Mapping[Any, Box]:
        """The pruning analysis of this appetite (carrier_matching.appetite_analysis), kept
        with the checked entry when there is one."""
        if self._boxes is None:
            from insureops.carrier_matching.appetite_analysis import accepting_boxes

            self._boxes = accepting_boxes(self.ir)
        return self._boxes

    def rule_kinds(self) -> Mapping[str, tuple[str, ...]]:
        """Rule name -> the kinds of the reasons its actions give (carrier_matching.reasons),
        kept with the checked entry when there is one (a restored ruleset reads no IR)."""
        if self._kinds is None:
            from insureops.carrier_matching.reasons import rule_kinds

            self._kinds = rule_kinds(self.ir)
        return self._kinds

    @property
    def consts(self) -> dict:
        return self.compiled.consts

    def evaluate(self, inputs, **options):
        return self.compiled.evaluate(inputs, **options)

    def evaluate_many(self, items, **options):
        return self.compiled.evaluate_many(items, **options)

    def run_tests(self, **options):
        return self.compiled.run_tests(**options)

    @property
    def generated_source(self) -> str:
        return self.compiled.generated_source


def _compile(ruleset: ir.Ruleset, source: str, filename: str, cache: Any) -> CompiledRuleset:
    from insureops.dsl.compiling import CheckedRuleset, compile_checked
    from insureops.engine.evaluation.generator import code_cache
    from insureops.schema.registry import default_registry

    registry = default_registry()
    schemas = {declaration.name: registry.get(declaration.type_name)
               for declaration in ruleset.inputs}
    with code_cache(cache):
        return compile_checked(CheckedRuleset(ruleset, schemas), source=source,
                               filename=filename)


@dataclass(frozen=True)
class CheckedAppetite:
    """An appetite source that checked clean (no diagnostic), with what the market check reads
    of it: its ruleset's name and title, its inputs, whether it has tests, where its header is,
    its `MAX_LIMIT` const, and its ruleset (compiled on first use)."""

    name: str
    title: str | None
    inputs: tuple[tuple[str, str], ...]
    tested: bool
    line: int | None
    column: int | None
    max_limit: Decimal | None
    ruleset: LazyRuleset = field(repr=False, compare=False)


def checked_appetite(checked: ir.Ruleset, source: str, path: str,
                     max_limit: Decimal | None) -> CheckedAppetite:
    """The CheckedAppetite of a source the checker passed, its IR `checked`."""
    span = checked.span
    return CheckedAppetite(
        checked.name, checked.title, tuple((i.name, i.type_name) for i in checked.inputs),
        bool(checked.tests), span.line if span else None, span.column if span else None,
        max_limit, LazyRuleset(checked.name, lambda: checked, source=source, filename=path))


class CompiledStore(Protocol):
    """Compiled rulesets kept whole between runs (the shell keys them by the source and the
    language's code, as AppetiteCache does). `restore` may use `ruleset._compile_now` for what
    it does not keep; None when it has nothing."""

    def restore(self, ruleset: LazyRuleset) -> CompiledRuleset | None: ...

    def keep(self, ruleset: LazyRuleset, compiled: CompiledRuleset) -> None: ...


class AppetiteCache(Protocol):
    """Checked appetites kept between runs, by source (the shell keys them by the source and
    the language's code too, so a changed checker never reuses an entry)."""

    def get(self, source: str, path: str) -> CheckedAppetite | None: ...

    def put(self, source: str, appetite: CheckedAppetite) -> None: ...


def boxes_to_data(boxes: Mapping[tuple[bool, bool], Box]) -> list:
    """An appetite's pruning analysis as plain data: `[naics given, state given, naics set,
    state set]` per presence pattern."""
    from insureops.carrier_matching.prefix_sets import tree_to_data

    return [[naics, state, tree_to_data(box.naics.tree), tree_to_data(box.state.tree)]
            for (naics, state), box in boxes.items()]


def boxes_from_data(data: object) -> dict[tuple[bool, bool], Box]:
    """The analysis `boxes_to_data` wrote; ValueError for anything else."""
    from insureops.carrier_matching.appetite_analysis import Box
    from insureops.carrier_matching.prefix_sets import StringSet, tree_from_data

    if not isinstance(data, list) or len(data) != 4:
        raise ValueError("not an appetite analysis")
    found = {}
    for row in data:
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], bool)
                and isinstance(row[1], bool)):
            raise ValueError("not an appetite analysis")
        found[(row[0], row[1])] = Box(StringSet(tree_from_data(row[2])),
                                      StringSet(tree_from_data(row[3])))
    if len(found) != 4:
        raise ValueError("not an appetite analysis")
    return found
