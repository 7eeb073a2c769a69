"""Checking a text that changes a little at a time (an editor's buffer): IncrementalChecker.check
gives exactly what check_parsed gives, without parsing unchanged top-level items again.

The text is cut before each line that opens an item (`rule`, `table`, `test`, `const`, ...:
reserved words); each piece is parsed alone and remembered by its text, and shifted when it
moved; its rules, tables and tests are built once and their IR moved with them. When a piece
fails to parse, the whole text is parsed as check_parsed does (the usual syntax errors and
recovery). Building the header and type-checking run on the whole ruleset every time. Tests
compare it with check_parsed on random edits; docs/editor.md gives the figures.
"""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict
from typing import Any

from lark import Token, Tree

from insureops.dsl.api import CheckReport, check_parsed
from insureops.dsl.checker import check_ruleset
from insureops.dsl.diagnostics import Diagnostic, error, sort_diagnostics
from insureops.dsl.parser import FILE_START, parse_snippet
from insureops.dsl.transform import RulesetBuilder
from insureops.engine import ir
from insureops.schema.registry import TypeRegistry, default_registry

_ITEM_START = re.compile(r"^[ \t]*(?:rule|table|test|const|input|default|version)\b",
                         re.MULTILINE)
DEFAULT_PIECES = 4_096


class IncrementalChecker:
    """check_parsed with the parse trees of unchanged items remembered (a bounded LRU)."""

    def __init__(self, registry: TypeRegistry | None = None,
                 size: int = DEFAULT_PIECES) -> None:
        self.registry = registry if registry is not None else default_registry()
        self.size = size
        self._trees: OrderedDict[tuple[str, str], Tree | None] = OrderedDict()
        self._placed: OrderedDict[tuple[str, str, int, int], Tree] = OrderedDict()
        self._built: OrderedDict[int, tuple[Tree, object, list]] = OrderedDict()
        # a placed item -> (itself, its piece's unshifted item, offset, line), and an unshifted
        # item -> (itself, IR, diagnostics, offset, line) as last built: a moved item's IR is
        # the earlier one moved, not built again
        self._origins: OrderedDict[int, tuple[Tree, Tree, int, int]] = OrderedDict()
        self._moved: OrderedDict[int, tuple[Tree, object, list, int, int]] = OrderedDict()
        self.reused = 0  # of the last check's pieces, how many were not parsed again
        self.pieces = 0

    def check(self, source: str) -> tuple[Tree | None, CheckReport]:
        tree = self._parse(source)
        if tree is None:
            return check_parsed(source, registry=self.registry)
        try:
            builder = _RememberingBuilder(source, self)
            ruleset, built = builder.ruleset(tree), builder.diagnostics
            found = built + (check_ruleset(ruleset, self.registry)
                             if ruleset is not None else [])
            return tree, CheckReport(ruleset, tuple(sort_diagnostics(found)))
        except RecursionError:
            too_deep = error("E007", None, "the ruleset is nested too deeply to check",
                             "split deeply nested expressions with consts or helper rules")
            return None, CheckReport(None, (too_deep,))

    def _parse(self, source: str) -> Tree | None:
        """The whole tree from the pieces, or None when one does not parse."""
        cuts = [0] + [match.start() for match in _ITEM_START.finditer(source)
                      if match.start() > 0]
        cuts.append(len(source))
        self.reused = self.pieces = 0
        items: list = []
        header: Tree | None = None
        line = 1
        for number, (start, end) in enumerate(zip(cuts, cuts[1:], strict=False)):
            text = source[start:end]
            piece = self._placed_piece(text, "start" if number == 0 else "items", start, line)
            if piece is None:
                return None
            if number == 0:
                header = piece
            else:
                items += piece.children
            line += text.count("\n")
        if header is None:
            return None
        return Tree("start", [*header.children, *items])

    def _placed_piece(self, text: str, start: str, offset: int, line: int) -> Tree | None:
        """The piece's tree at its place in the text: the same object as last time when
        neither its text nor its place changed."""
        key = (start, text, offset, line)
        self.pieces += 1
        found = self._placed.get(key)
        if found is not None:
            self._placed.move_to_end(key)
            self.reused += 1
            return found
        relative = self._piece(text, start)
        if relative is None:
            return None
        piece = _shifted(relative, offset, line - 1) if offset or line != 1 else relative
        for placed, original in zip(piece.children, relative.children, strict=True):
            if isinstance(placed, Tree):  # where each item came from, to move its IR
                _remember(self._origins, id(placed), (placed, original, offset, line),
                          self.size)
        _remember(self._placed, key, piece, self.size)
        return piece

    def _piece(self, text: str, start: str) -> Tree | None:
        key = (start, text)
        if key in self._trees:
            self._trees.move_to_end(key)
            self.reused += 1
            return self._trees[key]
        tree, problems = parse_snippet(text, start, FILE_START)
        found = None if problems else tree
        _remember(self._trees, key, found, self.size)
        return found


class _RememberingBuilder(RulesetBuilder):
    """The transform, building each rule, table and test once per tree object: a piece that
    did not move is the same tree, so its IR (spans included) is still right."""

    def __init__(self, source: str, checker: IncrementalChecker) -> None:
        super().__init__(source)
        self.built = checker._built
        self.origins = checker._origins
        self.moved = checker._moved
        self.size = checker.size

    def rule(self, tree: Tree) -> ir.Rule:
        return self._remembered(tree, super().rule)

    def table(self, tree: Tree) -> ir.Table:
        return self._remembered(tree, super().table)

    def test(self, tree: Tree) -> ir.TestCase:
        return self._remembered(tree, super().test)

    def _remembered(self, tree: Tree, build):
        found = self.built.get(id(tree))
        if found is not None and found[0] is tree:
            self.built.move_to_end(id(tree))
            self.diagnostics += found[2]
            return found[1]
        origin = self.origins.get(id(tree))
        if origin is not None and origin[0] is tree:
            _, original, offset, line = origin
            prior = self.moved.get(id(original))
            if prior is not None and prior[0] is original:
                try:
                    node = _moved(prior[1], offset - prior[3], line - prior[4])
                except RecursionError:  # too deep to move: built below (and reported)
                    node = None
                if node is not None:
                    found_diagnostics = [_moved(d, offset - prior[3], line - prior[4])
                                         for d in prior[2]]
                    self.diagnostics += found_diagnostics
                    _remember(self.built, id(tree), (tree, node, found_diagnostics), self.size)
                    return node
        before = len(self.diagnostics)
        node = build(tree)
        diagnostics = self.diagnostics[before:]
        _remember(self.built, id(tree), (tree, node, diagnostics), self.size)
        if origin is not None and origin[0] is tree:
            _remember(self.moved, id(origin[1]),
                      (origin[1], node, diagnostics, origin[2], origin[3]), self.size)
        return node


def _moved(value: object, offset: int, lines: int) -> Any:
    """`value` (IR or a Diagnostic) with every Span `offset` characters and `lines` lines on;
    columns stay (items start at a line's start). Values that are no IR node are kept."""
    if isinstance(value, ir.Span):
        return ir.Span(value.line + lines, value.column, value.end_line + lines,
                       value.end_column, value.start + offset, value.end + offset)
    if isinstance(value, tuple):
        return tuple(_moved(item, offset, lines) for item in value)
    fields = _FIELDS.get(type(value))
    if fields is None:
        return value
    return type(value)(*(_moved(getattr(value, name), offset, lines) for name in fields))


_FIELDS: dict[type, tuple[str, ...]] = {
    kind: tuple(f.name for f in dataclasses.fields(kind))
    for kind in [*(getattr(ir, name) for name in dir(ir)), Diagnostic]
    if isinstance(kind, type) and dataclasses.is_dataclass(kind)
    and kind.__module__ in (ir.Span.__module__, Diagnostic.__module__)
}


def _remember(cache: OrderedDict, key: object, value: object, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def _shifted(tree: Tree, offset: int, lines: int) -> Tree:
    """A copy of `tree` whose tokens sit `offset` characters and `lines` lines further on
    (pieces start at a line's start, so columns stay). Iterative: no depth limit."""
    root = Tree(tree.data, list(tree.children), tree._meta)
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.children
        for index, child in enumerate(children):
            if isinstance(child, Token):
                children[index] = Token(
                    child.type, child.value, child.start_pos + offset, child.line + lines,
                    child.column, child.end_line + lines, child.end_column,
                    child.end_pos + offset)
            elif isinstance(child, Tree):
                copy = Tree(child.data, list(child.children), child._meta)
                children[index] = copy
                stack.append(copy)
    return root
