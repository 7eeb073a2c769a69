"""What each name in a ruleset is: its definitions and every use, with exact ranges.

`index_symbols` reads the checked IR (every expression node carries its Span) and the source
(the IR keeps whole-declaration spans; the name's own range is found in the declaration's text).
Its result is what the language analysis (dsl/analysis.py) answers from: go to definition,
references, rename, hover and semantic tokens. Pure: no editor or protocol types here.

Kinds: `input`, `const`, `output`, `rule`, `table`, `variable` (a comprehension's), `field`,
`function`, `result` (a test's `decision`, `score`, ...), `type` (an input's type name).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from insureops.dsl import types as t
from insureops.dsl.expressions import RESULT_NAMES
from insureops.dsl.parser import FILE_START, parse_snippet
from insureops.engine import ir
from insureops.engine.ir.tree import children
from insureops.schema.registry import ANY_TYPE, TypeRegistry

_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
_AFTER_KEYWORD = {word: re.compile(rf"{word}\s+{_NAME}") for word in ("input", "const", "set")}
_INPUT_TYPE = re.compile(rf":\s*{_NAME}")
_VARIABLE = re.compile(rf"(?:\(\s*|\bfor\s+){_NAME}\s+in\b")


class LineIndex:
    """Offsets <-> 1-based (line, column) in characters, as Span counts them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        """The offset of a 1-based line and column (clamped to the text)."""
        if line < 1:
            return 0
        if line > len(self.starts):
            return len(self.text)
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return min(start + max(column - 1, 0), end)

    def span(self, start: int, end: int) -> ir.Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return ir.Span(line, column, end_line, end_column, start, end)

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[start:end]


@dataclass(frozen=True, slots=True)
class Typed:
    """A value's static type and the part of its JSON Schema it comes from (for docs)."""

    type: t.Type
    schema: Mapping[str, Any] | None = None
    path: str = ""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One name in the text: what it is, where, and whether this is where it is defined."""

    kind: str
    name: str
    span: ir.Span
    definition: bool = False
    typed: Typed | None = None   # inputs, fields and variables: their type
    node: Any = None             # the declaration (InputDecl, Const, Rule, Table, SetAction)
    scope: int = -1              # a variable's: where its comprehension starts

    def same_symbol(self, other: Occurrence) -> bool:
        return (self.kind, self.name, self.scope) == (other.kind, other.name, other.scope)


@dataclass
class SymbolIndex:
    occurrences: list[Occurrence] = field(default_factory=list)
    inputs: dict[str, Typed] = field(default_factory=dict)
    const_types: dict[str, t.Type] = field(default_factory=dict)

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence under `offset` (its end included, where an editor's cursor rests)."""
        best = None
        for occurrence in self.occurrences:
            span = occurrence.span
            if span.start <= offset <= span.end and (
                    best is None or span.end - span.start < best.span.end - best.span.start):
                best = occurrence
        return best

    def of(self, symbol: Occurrence) -> list[Occurrence]:
        """Every occurrence of one symbol, definitions first, in source order."""
        found = [o for o in self.occurrences if o.same_symbol(symbol)]
        return sorted(found, key=lambda o: (not o.definition, o.span.start))

    def names(self, kind: str) -> list[str]:
        return sorted({o.name for o in self.occurrences if o.kind == kind and o.definition})


def input_types(ruleset: ir.Ruleset, registry: TypeRegistry) -> dict[str, Typed]:
    found: dict[str, Typed] = {}
    for declaration in ruleset.inputs:
        schema = registry.get(declaration.type_name)
        if declaration.type_name == ANY_TYPE or schema is None:
            found.setdefault(declaration.name, Typed(t.ANY, None, declaration.name))
        else:
            found.setdefault(declaration.name, Typed(
                t.from_json_schema(schema, declaration.type_name), schema, declaration.name))
    return found


def member_type(owner: Typed | None, name: str) -> Typed | None:
    """The type of `owner.name` (None when unknown)."""
    if owner is None or owner.type.kind != "object" or not owner.type.fields:
        return None
    found = owner.type.fields.get(name)
    if found is None:
        return None
    properties = (owner.schema or {}).get("properties") or {}
    return Typed(found, properties.get(name) if isinstance(properties, Mapping) else None,
                 f"{owner.path}.{name}")


def item_type(owner: Typed | None) -> Typed | None:
    """The type of one item of a list or set."""
    if owner is None or not owner.type.is_collection or owner.type.item is None:
        return None
    items = (owner.schema or {}).get("items")
    return Typed(owner.type.item, items if isinstance(items, Mapping) else None,
                 f"{owner.path}[]")


def index_symbols(ruleset: ir.Ruleset, source: str, registry: TypeRegistry,
                  const_types: Mapping[str, t.Type], lines: LineIndex) -> SymbolIndex:
    """Every definition and use of a name in `ruleset` (its source is `source`)."""
    index = SymbolIndex(inputs=input_types(ruleset, registry), const_types=dict(const_types))
    add = index.occurrences.append
    for declaration in ruleset.inputs:
        span = _name_after(source, lines, declaration.span, "input")
        if span is not None:
            add(Occurrence("input", declaration.name, span, True,
                           index.inputs.get(declaration.name), declaration))
            type_match = _INPUT_TYPE.match(source, span.end)
            if type_match:
                add(Occurrence("type", declaration.type_name,
                               lines.span(type_match.start(1), type_match.end(1))))
    for const in ruleset.consts:
        span = _name_after(source, lines, const.span, "const")
        if span is not None:
            add(Occurrence("const", const.name, span, True, node=const))
    for item in ruleset.items:
        if item.name_span is not None:
            add(Occurrence("rule" if isinstance(item, ir.Rule) else "table", item.name,
                           item.name_span, True, node=item))
        if isinstance(item, ir.Table):
            for name, span in _table_outputs(item, source, lines):
                add(Occurrence("output", name, span, True, node=item))
        else:
            for action in item.actions:
                if isinstance(action, ir.SetAction):
                    span = _name_after(source, lines, action.span, "set")
                    if span is not None:
                        add(Occurrence("output", action.name, span, True, node=item))
    walker = _Uses(index, source, lines,
                   {item.name: "rule" if isinstance(item, ir.Rule) else "table"
                    for item in ruleset.items})
    for root, in_test in _expression_roots(ruleset):
        walker.walk(root, in_test)
    return index


def _name_after(source: str, lines: LineIndex, span: ir.Span | None,
                keyword: str) -> ir.Span | None:
    if span is None:
        return None
    match = _AFTER_KEYWORD[keyword].match(source, span.start)
    return lines.span(match.start(1), match.end(1)) if match else None


def _table_outputs(table: ir.Table, source: str,
                   lines: LineIndex) -> list[tuple[str, ir.Span]]:
    """The `=> NAME` of a table's header, with their ranges (the header line parsed again)."""
    if table.span is None:
        return []
    header_at = source.find("|", table.span.start, table.span.end)
    if header_at < 0:
        return []
    line_end = source.find("\n", header_at)
    line_end = len(source) if line_end < 0 else line_end
    tree, _ = parse_snippet(source[header_at:line_end], "table_header", FILE_START)
    if tree is None:
        return []
    found = []
    for node in tree.iter_subtrees():
        if node.data == "table_output":
            name = node.children[-1]
            found.append((str(name), lines.span(header_at + name.start_pos,
                                                header_at + name.end_pos)))
    return sorted(found, key=lambda item: item[1].start)


def _expression_roots(ruleset: ir.Ruleset):
    """(expression, read in a test's `expect`) for every expression of the ruleset."""
    for const in ruleset.consts:
        yield const.value, False
    for item in ruleset.items:
        if isinstance(item, ir.Rule):
            yield item.condition, False
            for action in item.actions:
                for name in ("value", "message", "tag"):
                    part = getattr(action, name, None)
                    if part is not None:
                        yield part, False
            continue
        yield from ((expr, False) for expr in item.inputs)
        for row in item.rows:
            for cell in row.cells:
                for name in ("operand", "low", "high"):
                    part = getattr(cell, name, None)
                    if part is not None:
                        yield part, False
            yield from ((value, False) for value in row.values)
    for test in ruleset.tests:
        yield from ((given.value, None) for given in test.givens)  # consts only
        yield test.expect, True


class _Uses:
    """Walks expressions (without recursion) and records the names they use."""

    def __init__(self, index: SymbolIndex, source: str, lines: LineIndex,
                 items: dict[str, str]) -> None:
        self.index = index
        self.items = items  # rule and table names: a test's `fired` lists them as strings
        self.source = source
        self.lines = lines
        self.consts = set(index.const_types)

    def walk(self, root: ir.Expr, in_test: bool | None) -> None:
        # (node, variables in scope: name -> (type, where its comprehension starts))
        stack: list[tuple[Any, dict[str, tuple[Typed | None, int]]]] = [(root, {})]
        while stack:
            node, scope = stack.pop()
            if isinstance(node, ir.Name):
                self._name(node, scope, in_test)
            elif isinstance(node, ir.Member):
                self._member(node, scope, in_test)
            elif isinstance(node, ir.Call):
                self._call(node)
            elif in_test and isinstance(node, ir.Literal) and isinstance(node.value, str) and (
                    node.value in self.items):
                self._item_name(node)
            if isinstance(node, ir.Comprehension):
                inner = self._comprehension(node, scope, in_test)
                stack.append((node.source, scope))
                stack.extend((part, inner) for part in (node.where, node.projection)
                             if part is not None)
                continue
            stack.extend((child, scope) for child in reversed(children(node)))

    def _name(self, node: ir.Name, scope: dict, in_test: bool | None) -> Typed | None:
        span = node.span
        if span is None:
            return None
        name = node.name
        if name in scope:
            typed, start = scope[name]
            self._add("variable", name, span, typed=typed, scope=start)
            return typed
        if name in self.index.inputs and in_test is False:
            typed = self.index.inputs[name]
            self._add("input", name, span, typed=typed)
            return typed
        if name in self.consts:
            self._add("const", name, span, typed=Typed(self.index.const_types[name]))
        elif in_test and name in RESULT_NAMES:
            self._add("result", name, span, typed=Typed(RESULT_NAMES[name]))
        return None

    def _member(self, node: ir.Member, scope: dict, in_test: bool | None) -> None:
        span = node.span
        if span is None or span.end - span.start < len(node.field):
            return
        field_span = self.lines.span(span.end - len(node.field), span.end)
        obj = node.obj
        if isinstance(obj, ir.Name) and obj.name == "outputs" and obj.name not in scope:
            self._add("output", node.field, field_span)
            return
        owner = self._type_of(obj, scope, in_test)
        typed = member_type(owner, node.field)
        self._add("field", node.field, field_span, typed=typed or Typed(
            t.ANY, None, f"{owner.path}.{node.field}" if owner else node.field))

    def _type_of(self, expr: ir.Expr, scope: dict, in_test: bool | None) -> Typed | None:
        """The type of a path (`business.requests`, `c.amount`, `xs[0]`), else None."""
        if isinstance(expr, ir.Name):
            if expr.name in scope:
                return scope[expr.name][0]
            return self.index.inputs.get(expr.name) if in_test is False else None
        if isinstance(expr, ir.Member):
            return member_type(self._type_of(expr.obj, scope, in_test), expr.field)
        if isinstance(expr, ir.Index):
            return item_type(self._type_of(expr.obj, scope, in_test))
        return None

    def _item_name(self, node: ir.Literal) -> None:
        """`"rule_name"` in a test's `expect` (`fired == [...]`): a use of the rule."""
        span, name = node.span, str(node.value)
        if span is not None and self.source[span.start:span.end] == f'"{name}"':
            self._add(self.items[name], name, self.lines.span(span.start + 1, span.end - 1))

    def _call(self, node: ir.Call) -> None:
        if node.span is not None:
            start = node.span.start
            self._add("function", node.func, self.lines.span(start, start + len(node.func)))

    def _comprehension(self, node: ir.Comprehension, scope: dict,
                       in_test: bool | None) -> dict:
        typed = item_type(self._type_of(node.source, scope, in_test))
        start_at = node.span.start if node.span is not None else -1
        if node.span is not None and self.source.startswith(node.kind, start_at):
            self._add("function", node.kind, self.lines.span(start_at, start_at + len(node.kind)))
        if node.span is not None:
            text = self.source[node.span.start:node.span.end]
            for match in _VARIABLE.finditer(text):
                if match.group(1) == node.var:
                    start = node.span.start + match.start(1)
                    self._add("variable", node.var, self.lines.span(start, start + len(node.var)),
                              definition=True, typed=typed, scope=start_at)
                    break
        return {**scope, node.var: (typed, start_at)}

    def _add(self, kind: str, name: str, span: ir.Span, *, definition: bool = False,
             typed: Typed | None = None, scope: int = -1) -> None:
        self.index.occurrences.append(Occurrence(kind, name, span, definition, typed,
                                                 scope=scope))
