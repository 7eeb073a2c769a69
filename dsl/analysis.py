"""The language analysis of one ruleset text, for editors: the language server (`insureops rules
lsp`) is an adapter over it, and the studio page can use it through an API.

`analyse(source)` checks the text once (the same `check_parsed` as `rules check` and the
studio, so the same diagnostics) and indexes its names (dsl/symbols.py); the `Analysis` then
answers go to definition, references, rename, hover and the outline. Positions are character
offsets into the text and ranges are `Span`s (1-based lines and columns in characters): the
adapter converts them to its protocol's units.

Budget: a text over MAX_SOURCE_CHARS, or with brackets nested deeper than MAX_NESTING, is not
analysed (`Analysis.notice` says so), so that an editor never waits on a pathological file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lark import Tree

from insureops.dsl.api import CheckReport, check_parsed
from insureops.dsl.checker import const_types
from insureops.dsl.diagnostics import Diagnostic
from insureops.dsl.errors import DslError
from insureops.dsl.grammar import keywords
from insureops.dsl.incremental import IncrementalChecker
from insureops.dsl.symbols import LineIndex, Occurrence, SymbolIndex, Typed, index_symbols
from insureops.engine import ir
from insureops.engine.ir.builtins import FUNCTIONS, Function
from insureops.engine.ir.printer import format_literal
from insureops.schema.registry import TypeRegistry, default_registry

MAX_SOURCE_CHARS = 500_000  # 11 times the largest example ruleset (45 kB)
MAX_NESTING = 1_000         # brackets: deeper text is E007 for the checker anyway
_BRACKETS = re.compile(r"[][(){}]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RENAMABLE = ("input", "const", "output", "rule", "table", "variable")
RESULT_DOCS = {
    "decision": "the decision: `accept`, `refer`, `decline` or the default",
    "score": "the score: the sum of every `score +=` / `score -=` that ran",
    "reasons": "every `reason` and decision message, in order",
    "tags": "every `tag`, in order",
    "fired": "the names of the rules and tables that fired, in order",
}


COMPREHENSIONS = {
    "count": "```rules\ncount(x in LIST where CONDITION) -> number\n```\n\nhow many items hold",
    "any": "```rules\nany(x in LIST where CONDITION) -> boolean\n```\n\nwhether one item holds",
    "all": "```rules\nall(x in LIST where CONDITION) -> boolean\n```\n\nwhether every item "
           "holds",
    **{name: f"```rules\n{name}(EXPR for x in LIST [where CONDITION]) -> number\n```\n\nthe "
             f"{word} of EXPR over the items (or `{name}(a, b, ...)`, `{name}(LIST)`)"
       for name, word in (("sum", "sum"), ("min", "least"), ("max", "greatest"))},
}


class RenameError(DslError):
    """A rename that cannot be done (not a name, a keyword, a name already taken)."""

    code = "rename_refused"


@dataclass(frozen=True, slots=True)
class Hover:
    markdown: str
    span: ir.Span


@dataclass(frozen=True, slots=True)
class Edit:
    span: ir.Span
    text: str


@dataclass(frozen=True, slots=True)
class OutlineItem:
    """One entry of the document outline; `kind` is a symbol kind of dsl/symbols.py or `test`."""

    name: str
    kind: str
    span: ir.Span
    selection: ir.Span
    detail: str = ""
    children: tuple[OutlineItem, ...] = ()


@dataclass
class Analysis:
    """One text's check report and, made on first use, the index of its names (diagnostics
    are published before anything else is asked)."""

    source: str
    lines: LineIndex
    report: CheckReport
    tree: Tree | None
    registry: TypeRegistry = field(default_factory=default_registry)
    notice: str | None = None  # why the text was not checked (over MAX_SOURCE_CHARS)
    _index: SymbolIndex | None = field(default=None, init=False, repr=False)
    _indexed: bool = field(default=False, init=False, repr=False)

    @property
    def index(self) -> SymbolIndex | None:
        """The names of the ruleset (None while it has syntax errors)."""
        if not self._indexed:
            self._indexed = True
            ruleset = self.report.ruleset
            if ruleset is not None:
                try:
                    self._index = index_symbols(ruleset, self.source, self.registry,
                                                const_types(ruleset), self.lines)
                except RecursionError:  # the checker reported E007; analysis is best effort
                    self._index = None
        return self._index

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.report.diagnostics

    @property
    def ruleset(self) -> ir.Ruleset | None:
        return self.report.ruleset

    def at(self, offset: int) -> Occurrence | None:
        return self.index.at(offset) if self.index is not None else None

    def definitions(self, offset: int) -> list[ir.Span]:
        """Where the name under `offset` is defined (an output may be set in several places)."""
        found = self.at(offset)
        if found is None or self.index is None:
            return []
        return [o.span for o in self.index.of(found) if o.definition]

    def references(self, offset: int, include_declaration: bool = True) -> list[ir.Span]:
        """Every use of the name under `offset` (a table's: the uses of its outputs)."""
        found = self.at(offset)
        if found is None or self.index is None:
            return []
        related = self.index.of(found)
        if found.kind == "table" and isinstance(found.node, ir.Table):
            for output in found.node.outputs:
                related += [o for o in self.index.occurrences
                            if o.kind == "output" and o.name == output and not o.definition]
        return [o.span for o in related if include_declaration or not o.definition]

    def rename_target(self, offset: int) -> Occurrence | None:
        """The renamable name under `offset`, else None."""
        found = self.at(offset)
        return found if found is not None and found.kind in RENAMABLE else None

    def rename(self, offset: int, new_name: str) -> list[Edit]:
        """The edits that rename the symbol under `offset` everywhere; RenameError if not."""
        found = self.rename_target(offset)
        if found is None or self.index is None:
            raise RenameError("only an input, const, output, rule, table or comprehension "
                              "variable can be renamed here")
        if not _IDENTIFIER.match(new_name):
            raise RenameError(f"`{new_name}` is not a name: letters, digits and `_`, "
                              "not starting with a digit")
        if new_name in keywords():
            raise RenameError(f"`{new_name}` is a reserved keyword")
        if new_name != found.name and any(
                o.definition and o.name == new_name and o.kind == found.kind
                and o.scope == found.scope for o in self.index.occurrences):
            raise RenameError(f"{found.kind} `{new_name}` already exists")
        return [Edit(o.span, new_name) for o in self.index.of(found)]

    def hover(self, offset: int) -> Hover | None:
        found = self.at(offset)
        if found is None:
            return None
        text = _hover_text(found, self)
        return Hover(text, found.span) if text else None

    def outline(self) -> list[OutlineItem]:
        """Inputs, consts, rules, tables (with their outputs) and tests, in source order."""
        ruleset, index = self.ruleset, self.index
        if ruleset is None or index is None:
            return []
        names = {(o.kind, o.node and id(o.node)): o.span for o in index.occurrences
                 if o.definition and o.node is not None}
        items: list[OutlineItem] = []
        for declaration in ruleset.inputs:
            selection = names.get(("input", id(declaration)), declaration.span)
            items.append(OutlineItem(declaration.name, "input", declaration.span, selection,
                                     declaration.type_name))
        for const in ruleset.consts:
            selection = names.get(("const", id(const)), const.span)
            items.append(OutlineItem(const.name, "const", const.span, selection,
                                     str(index.const_types.get(const.name, ""))))
        for item in ruleset.items:
            kind = "rule" if isinstance(item, ir.Rule) else "table"
            outputs = tuple(
                OutlineItem(o.name, "output", o.span, o.span)
                for o in index.occurrences
                if o.kind == "output" and o.definition and o.node is item)
            detail = item.title or ""
            items.append(OutlineItem(item.name, kind, item.span, item.name_span or item.span,
                                     detail, outputs))
        for test in ruleset.tests:
            if test.span is not None:
                items.append(OutlineItem(test.description or "test", "test", test.span,
                                         test.span))
        return sorted(items, key=lambda entry: entry.span.start if entry.span else 0)


def analyse(source: str, *, registry: TypeRegistry | None = None,
            checker: IncrementalChecker | None = None) -> Analysis:
    """Check `source` (through `checker` when given, reusing the parse of unchanged items);
    never raises for any text."""
    registry = checker.registry if checker is not None else (
        registry if registry is not None else default_registry())
    lines = LineIndex(source)
    if len(source) > MAX_SOURCE_CHARS:
        notice = (f"the file has {len(source):,} characters; the editor checks files up to "
                  f"{MAX_SOURCE_CHARS:,}: split the ruleset, or run `insureops rules check`")
        return Analysis(source, lines, CheckReport(None, ()), None, registry, notice=notice)
    if _nesting(source) > MAX_NESTING:
        notice = (f"brackets nest deeper than {MAX_NESTING} levels: the editor does not check "
                  "this file; split the expression, or run `insureops rules check`")
        return Analysis(source, lines, CheckReport(None, ()), None, registry, notice=notice)
    if checker is not None:
        tree, report = checker.check(source)
    else:
        tree, report = check_parsed(source, registry=registry)
    return Analysis(source, lines, report, tree, registry)


def _nesting(source: str) -> int:
    """The deepest bracket nesting of the text (strings included: a bound, not a parse)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(source):
        if match.group() in "([{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                break
        else:
            depth = max(depth - 1, 0)
    return deepest


# --- hover --------------------------------------------------------------------------------------

def _hover_text(found: Occurrence, analysis: Analysis) -> str | None:
    kind, name = found.kind, found.name
    if kind == "function":
        function = FUNCTIONS.get(name)
        if function is None:
            return COMPREHENSIONS.get(name)
        return function_doc(function)
    if kind == "input":
        typed = found.typed or (analysis.index.inputs.get(name) if analysis.index else None)
        type_name = str(typed.type) if typed else "Any"
        return _code(f"input {name}: {type_name}") + schema_doc(typed)
    if kind in ("field", "variable"):
        typed = found.typed
        label = typed.path if typed and typed.path else name
        type_text = str(typed.type) if typed else "any"
        heading = f"{name}: {type_text}" if kind == "variable" else f"{label}: {type_text}"
        return _code(heading) + schema_doc(typed)
    if kind == "const":
        return _const_doc(name, analysis)
    if kind == "output":
        return _output_doc(name, analysis)
    if kind in ("rule", "table"):
        return _item_doc(name, analysis)
    if kind == "result":
        return _code(f"{name}: {found.typed.type if found.typed else 'any'}") + (
            f"\n\nIn a test's `expect`: {RESULT_DOCS.get(name, '')}")
    if kind == "type":
        schema = analysis.registry.get(name)
        description = (schema or {}).get("description") if isinstance(schema, Mapping) else None
        return _code(f"type {name}") + (f"\n\n{description}" if description else "")
    return None


def function_doc(function: Function) -> str:
    """A built-in's signature and summary (hover and completion show it)."""
    arguments = []
    shown = function.maximum if function.maximum is not None else max(function.minimum, 1)
    for position in range(shown):
        kinds = (function.accepts or ())[position] if function.accepts and position < len(
            function.accepts) else None
        text = " | ".join(kinds) if kinds else "any"
        optional = position >= function.minimum
        arguments.append(f"{text}{'?' if optional else ''}")
    if function.maximum is None:
        arguments.append("...")
    result = function.result if function.result != "items" else "item"
    return _code(f"{function.name}({', '.join(arguments)}) -> {result}") + (
        f"\n\n{function.summary}")


def _code(text: str) -> str:
    return f"```rules\n{text}\n```"


def schema_doc(typed: Typed | None) -> str:
    schema = typed.schema if typed else None
    if not isinstance(schema, Mapping):
        return ""
    notes = []
    if schema.get("description"):
        notes.append(str(schema["description"]))
    facts = []
    if "enum" in schema:
        values = [format_literal(v) for v in schema["enum"] if v is not None][:12]
        facts.append("one of " + ", ".join(values))
    for key, words in (("format", "format"), ("pattern", "pattern"), ("minimum", "minimum"),
                       ("maximum", "maximum"), ("maxLength", "at most characters")):
        if key in schema:
            facts.append(f"{words} `{schema[key]}`")
    if typed and typed.type.kind == "object" and typed.type.fields:
        facts.append(f"{len(typed.type.fields)} fields")
    if facts:
        notes.append("; ".join(facts))
    return "".join(f"\n\n{note}" for note in notes)


def _const_doc(name: str, analysis: Analysis) -> str | None:
    ruleset = analysis.ruleset
    const = next((c for c in ruleset.consts if c.name == name), None) if ruleset else None
    if const is None or const.span is None:
        return None
    text = analysis.source[const.span.start:const.span.end]
    if len(text) > 400:
        text = text[:400] + " ..."
    type_text = analysis.index.const_types.get(name) if analysis.index else None
    return _code(text) + (f"\n\ntype: `{type_text}`" if type_text else "")


def _output_doc(name: str, analysis: Analysis) -> str | None:
    if analysis.index is None:
        return None
    writers = []
    for occurrence in analysis.index.occurrences:
        if occurrence.kind == "output" and occurrence.name == name and occurrence.definition:
            item: Any = occurrence.node
            kind = "rule" if isinstance(item, ir.Rule) else "table"
            writers.append(f"- {kind} `{item.name}` (line {occurrence.span.line})")
    if not writers:
        return _code(f"outputs.{name}") + "\n\nnever set: no rule sets it and no table has it"
    return _code(f"outputs.{name}") + "\n\nset by:\n" + "\n".join(writers)


def _item_doc(name: str, analysis: Analysis) -> str | None:
    ruleset = analysis.ruleset
    item = next((i for i in ruleset.items if i.name == name), None) if ruleset else None
    if item is None:
        return None
    title = f" {format_literal(item.title)}" if item.title else ""
    if isinstance(item, ir.Table):
        head = f"table {name}{title} hit {item.hit}" + (
            f" priority {item.priority}" if item.priority else "")
        outputs = ", ".join(f"`{output}`" for output in item.outputs)
        return _code(head) + f"\n\n{len(item.rows)} rows; outputs {outputs}"
    head = f"rule {name}{title}" + (f" priority {item.priority}" if item.priority else "")
    notes = []
    if item.effective is not None:
        notes.append(f"effective {item.effective.start} to {item.effective.end}")
    if not item.enabled:
        notes.append("disabled")
    notes.append(f"{len(item.actions)} actions")
    return _code(head) + "\n\n" + "; ".join(notes)
