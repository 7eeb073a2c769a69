"""Checking a text that changes a little at a time (an editor's buffer): IncrementalChecker.check
gives exactly what check_parsed gives, without parsing unchanged top-level items again.

The text is cut before each line that opens an item (`rule`, `table`, `test`, `const`, ...:
reserved words); each piece is parsed alone and remembered by its text, shifted when it moved,
and the same tree object (with its built rules, tables and tests) when it did not. When a piece
fails to parse, the whole text is parsed as check_parsed does (the usual syntax errors and
recovery). Building the header and type-checking run on the whole ruleset every time. Tests
compare it with check_parsed on random edits; docs/editor.md gives the figures.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from lark import Token, Tree

from insureops.dsl.api import CheckReport, check_parsed
from insureops.dsl.checker import check_ruleset
from insureops.dsl.diagnostics import error, sort_diagnostics
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
        self.reused = 0  # of the last check's pieces, how many were not parsed again
        self.pieces = 0

    def check(self, source: str) -> tuple[Tree | None, CheckReport]:
        tree = self._parse(source)
        if tree is None:
            return check_parsed(source, registry=self.registry)
        try:
            builder = _RememberingBuilder(source, self._built, self.size)
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
        piece = self._piece(text, start)
        if piece is None:
            return None
        if offset or line != 1:
            piece = _shifted(piece, offset, line - 1)
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

    def __init__(self, source: str, built: OrderedDict, size: int) -> None:
        super().__init__(source)
        self.built = built
        self.size = size

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
        before = len(self.diagnostics)
        node = build(tree)
        _remember(self.built, id(tree), (tree, node, self.diagnostics[before:]), self.size)
        return node


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
