"""The canonical printer of `.rules` files: `insureops rules fmt` and the language server's
formatting are this one function, `format_source`.

It lays out the parse tree's tokens (not the IR: dsl/printer.py prints IR), so comments and the
author's line breaks survive and only whitespace changes: canonical spacing, indentation by
structure (continuations aligned with their bracket or expression), one statement per line, one
blank line before each rule, table and test, table columns padded to one width. The rules are
written out in docs/editor.md ("The canonical layout"). The result must parse to the same
tokens and comments, or FormatSafetyError is raised instead of a changed ruleset written;
formatting formatted text changes nothing (tested on every example ruleset).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from lark import Token, Tree

from insureops.dsl.diagnostics import Diagnostic
from insureops.dsl.errors import DslError
from insureops.dsl.parser import FILE_START, parse_file, parse_snippet

__all__ = ["FormatSafetyError", "UnformattableError", "format_source", "iter_tokens"]

INDENT = 4
MAX_BLANK_LINES = 1
_COMMENT = re.compile(r"#[^\n]*")
_OPENERS = {"(", "[", "{"}
_CLOSERS = {")", "]", "}"}
_NO_SPACE_BEFORE = {")", "]", "}", ",", ":", "."}
_NO_SPACE_AFTER = {"(", "[", "{", "."}
_TOP_ITEMS = {"version", "input_decl", "default_decision", "const_decl", "rule", "table", "test"}
_BLOCKS = {"rule", "table", "test"}
_ACTIONS = {"score_add", "score_sub", "set_action", "decision_action", "reason_action",
            "tag_action", "stop_action"}
# a statement's expression (it is the anchor of its continuation lines): its child index
_EXPRESSION_CHILD = {"const_decl": 3, "set_action": 3, "given": 3, "score_add": 2,
                     "score_sub": 2, "decision_action": 1, "reason_action": 1, "tag_action": 1}


class UnformattableError(DslError):
    """The source has syntax errors: it is not formatted (its diagnostics say why)."""

    code = "rules_unformattable"

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0] if self.diagnostics else None
        where = f" (line {first.span.line}: {first.message})" if first and first.span else ""
        super().__init__(f"the ruleset has syntax errors; fix them before formatting{where}")


class FormatSafetyError(DslError):
    """The printer would have changed more than whitespace: a bug, reported, never written."""

    code = "rules_format_unsafe"


@dataclass(slots=True)
class _Piece:
    """One token (a table line is one) and what the layout needs to know about it."""

    token: Token
    base: int = 0                 # the indentation of its statement's first line
    starts_statement: bool = False
    block: bool = False           # starts a rule, table or test: a blank line before it
    anchor: bool = False          # the first token of its statement's expression
    glued: bool = False           # no space before it: a call's `(`, an index's `[`
    unary: bool = False           # a unary `-`: no space after it
    clause: bool = False          # a given's `as of` on its own line: aligned with the name
    gap: list[tuple[int, str, bool]] = field(default_factory=list)  # (newlines, comment, trailing)
    breaks: int = 0               # newlines between the last comment (or token) and it

    @property
    def text(self) -> str:
        return str(self.token)

    @property
    def bracket(self) -> bool:
        return self.token.type != "STRING"


def format_source(source: str) -> str:
    """The canonical text of `source`; raises UnformattableError when it does not parse."""
    tree, diagnostics = _parsed(source)
    if tree is None:
        raise UnformattableError(diagnostics)
    pieces = _pieces(tree)
    tail = _attach_gaps(source, pieces)
    text = _Layout().render(pieces, tail)
    _check_same(source, tree, text)
    return text


@lru_cache(maxsize=8)
def _parsed(text: str) -> tuple[Tree | None, list[Diagnostic]]:
    """parse_file, remembered for a few texts: the check of a result parses the text that
    formatting it again (an editor's next format, `fmt` then `fmt --check`) starts from."""
    return parse_file(text)


def iter_tokens(tree: Tree) -> Iterator[Token]:
    """The tokens of `tree` in source order, without recursion (deep nesting is fine)."""
    stack: list[object] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Token):
            yield node
        elif isinstance(node, Tree):
            stack.extend(reversed(node.children))


# --- tokens and their roles ---------------------------------------------------------------------

_Role = tuple[int, frozenset[str]]  # (base indentation, flags for the subtree's first token)


def _pieces(tree: Tree) -> list[_Piece]:
    """The tokens of a parse tree with their roles, by an iterative walk."""
    pieces: list[_Piece] = []
    stack: list[tuple[object, _Role]] = [(tree, (0, frozenset()))]
    while stack:
        node, (base, flags) = stack.pop()
        if node is None:
            continue
        if isinstance(node, Token):
            pieces.append(_Piece(
                node, base, starts_statement="start" in flags, block="block" in flags,
                anchor="anchor" in flags, glued="glued" in flags, unary="unary" in flags,
                clause="clause" in flags))
            continue
        children = node.children
        roles = _child_roles(node, base)
        first = next((i for i, child in enumerate(children) if child is not None), None)
        if first is not None and flags:  # the subtree's flags go to its first token
            child_base, child_flags = roles[first]
            roles[first] = (child_base, child_flags | flags)
        stack.extend(reversed(list(zip(children, roles, strict=True))))
    return pieces


def _child_roles(node: Tree, base: int) -> list[_Role]:
    """The (base, flags) of each child of `node`."""
    children = node.children
    kind = node.data
    none: frozenset[str] = frozenset()
    roles: list[_Role] = [(base, none)] * len(children)

    def after(index: int, kinds: tuple[str, ...]) -> bool:
        previous = children[index - 1] if index else None
        return isinstance(previous, Token) and previous.type in kinds

    for index, child in enumerate(children):
        is_token = isinstance(child, Token)
        if kind in ("start", "items") and isinstance(child, Tree) and child.data in _TOP_ITEMS:
            roles[index] = (0, frozenset({"start", "block"} if child.data in _BLOCKS
                                         else {"start"}))
        elif kind in ("rule", "table", "test") and is_token and child.type in (
                "WHEN", "THEN", "END", "EXPECT"):
            roles[index] = (0, frozenset({"start"}))
        elif kind == "rule" and isinstance(child, Tree) and child.data in _ACTIONS:
            roles[index] = (INDENT, frozenset({"start"}))
        elif kind == "table" and is_token and child.type == "TABLE_LINE":
            roles[index] = (INDENT, frozenset({"start"}))
        elif kind == "test" and isinstance(child, Tree) and child.data == "given":
            roles[index] = (0, frozenset({"start"}))
        elif kind == "test" and child is not None and after(index, ("EXPECT",)):
            roles[index] = (0, frozenset({"anchor"}))
        elif kind == "given" and isinstance(child, Tree) and child.data == "as_of":
            roles[index] = (base, frozenset({"clause"}))
        elif index == _EXPRESSION_CHILD.get(kind):
            roles[index] = (base, frozenset({"anchor"}))
        elif kind in ("call", "index") and index == 1:
            roles[index] = (base, frozenset({"glued"}))
        elif kind in ("neg", "signed_int") and index == 0 and is_token and child == "-":
            roles[index] = (base, frozenset({"unary"}))
    return roles


# --- the gaps between tokens: line breaks and comments ------------------------------------------

def _attach_gaps(source: str, pieces: list[_Piece]) -> list[tuple[int, str, bool]]:
    """Give each piece the comments and newlines before it; returns the gap after the last."""
    previous_end = 0
    for piece in pieces:
        piece.gap, piece.breaks = _gap(source[previous_end:piece.token.start_pos],
                                       previous_end == 0)
        previous_end = piece.token.end_pos
    tail, _ = _gap(source[previous_end:], False)
    return tail


def _gap(text: str, at_start: bool) -> tuple[list[tuple[int, str, bool]], int]:
    """The comments in `text` as (newlines before, comment, trailing), and the newlines after."""
    comments = []
    position = 0
    for match in _COMMENT.finditer(text):
        newlines = text.count("\n", position, match.start())
        trailing = newlines == 0 and not (at_start and not comments)
        comments.append((newlines, match.group().rstrip(), trailing))
        position = match.end()
    return comments, text.count("\n", position)


# --- layout -------------------------------------------------------------------------------------

@dataclass(slots=True)
class _Bracket:
    column: int           # the opener's column in the output
    line_indent: int      # the indentation of the opener's line
    hanging: bool = False  # the opener ends its line


class _Layout:
    """Writes the pieces line by line; every column here is the output's."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.parts: list[str] = []   # the line being written (appending is linear)
        self.column = 0              # its length so far
        self.content = False         # whether it holds more than indentation
        self.indent = 0
        self.brackets: list[_Bracket] = []
        self.anchor_column: int | None = None
        self.previous: _Piece | None = None

    def render(self, pieces: list[_Piece], tail: list[tuple[int, str, bool]]) -> str:
        tables = _table_lines(pieces)
        for piece in pieces:
            self._gap(piece)
            formatted = tables.get(id(piece))
            if formatted is not None:
                self._write(piece, formatted)
            else:
                self._write(piece, piece.text)
        for newlines, text, trailing in tail:
            if trailing:
                self._append("  " + text)
            else:
                self._newline(newlines)
                self._start(text)
        self._end_line()
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n"

    def _gap(self, piece: _Piece) -> None:
        """The comments and line breaks before `piece`, and its line's indentation."""
        own_line = [(newlines, text) for newlines, text, trailing in piece.gap if not trailing]
        for _, text, trailing in piece.gap:
            if trailing:
                self._append("  " + text)
        if self.previous is None:  # the file's first token: comments above it at column 0
            for number, (newlines, text) in enumerate(own_line):
                if number:
                    self._newline(2 if newlines > 1 else 1)
                self._start(text)
            if own_line:
                self._newline(2 if piece.breaks > 1 else 1)
            return
        if not own_line and piece.breaks == 0 and not piece.starts_statement:
            return
        self._mark_hanging()
        indent = self._indent_for(piece)
        for number, (newlines, text) in enumerate(own_line):
            self._newline(2 if newlines > 1 or (number == 0 and piece.block) else 1)
            self._start(" " * indent + text)
        self._newline(2 if piece.breaks > 1 or (piece.block and not own_line) else 1)
        if piece.starts_statement:
            self.brackets.clear()
        self._start(" " * indent, content=False)
        self.indent = indent

    def _indent_for(self, piece: _Piece) -> int:
        if piece.starts_statement:
            return piece.base
        if piece.clause:
            return piece.base + len("given ")
        if self.brackets:
            opener = self.brackets[-1]
            if piece.text in _CLOSERS and piece.bracket:
                return opener.line_indent if opener.hanging else opener.column
            return opener.line_indent + INDENT if opener.hanging else opener.column + 1
        if self.anchor_column is not None:
            return self.anchor_column
        return piece.base + INDENT

    def _write(self, piece: _Piece, text: str) -> None:
        at_line_start = not self.content
        if not at_line_start and self._space_before(piece):
            self._append(" ")
        column = self.column
        if piece.starts_statement:
            self.anchor_column = None
        if piece.anchor:
            self.anchor_column = None if at_line_start else column
        self._append(text)
        self.previous = piece
        if piece.bracket and text in _OPENERS:
            self.brackets.append(_Bracket(column, self.indent))
        elif piece.bracket and text in _CLOSERS and self.brackets:
            self.brackets.pop()

    def _space_before(self, piece: _Piece) -> bool:
        previous = self.previous
        if previous is None:
            return False
        if piece.glued or (piece.bracket and piece.text in _NO_SPACE_BEFORE):
            return False
        return not (previous.unary or (previous.bracket and previous.text in _NO_SPACE_AFTER))

    def _mark_hanging(self) -> None:
        """A line break right after an opener: the bracket hangs."""
        previous = self.previous
        if self.brackets and previous is not None and previous.bracket and (
                previous.text in _OPENERS):
            self.brackets[-1].hanging = True

    def _newline(self, count: int) -> None:
        self._mark_hanging()
        self._end_line()
        if count > 1 and self.lines and self.lines[-1]:
            self.lines.extend([""] * min(count - 1, MAX_BLANK_LINES))

    def _end_line(self) -> None:
        self.lines.append("".join(self.parts).rstrip())
        self._start("", content=False)

    def _start(self, text: str, content: bool = True) -> None:
        """Begin the current line again with `text`."""
        self.parts = [text]
        self.column = len(text)
        self.content = content and bool(text.strip())

    def _append(self, text: str) -> None:
        self.parts.append(text)
        self.column += len(text)
        self.content = True

    @property
    def text(self) -> str:
        return "".join(self.parts)


# --- tables -------------------------------------------------------------------------------------

def _table_lines(pieces: list[_Piece]) -> dict[int, str]:
    """The formatted text of every table line (by the id of its piece): cells spaced like the
    rest and padded to their column's width. A table with a line that does not parse as cells
    keeps its lines as they are (the checker reports them)."""
    formatted: dict[int, str] = {}
    index = 0
    while index < len(pieces):
        if pieces[index].token.type != "TABLE_LINE":
            index += 1
            continue
        group = []
        while index < len(pieces) and pieces[index].token.type == "TABLE_LINE":
            group.append(pieces[index])
            index += 1
        rows = [_cells(piece.text, header=number == 0) for number, piece in enumerate(group)]
        if any(row is None for row in rows):
            formatted.update((id(piece), piece.text.rstrip()) for piece in group)
            continue
        widths: list[int] = []
        for cells, _ in rows:  # type: ignore[misc]
            for column, cell in enumerate(cells):
                if column == len(widths):
                    widths.append(0)
                widths[column] = max(widths[column], len(cell))
        for piece, (cells, comment) in zip(group, rows, strict=True):  # type: ignore[misc]
            text = "| " + " | ".join(cell.ljust(widths[column])
                                     for column, cell in enumerate(cells)) + " |"
            formatted[id(piece)] = text + (f"  {comment}" if comment else "")
    return formatted


def _cells(line: str, *, header: bool) -> tuple[list[str], str] | None:
    """A table line's cells as canonical text, and its trailing comment ('' when none)."""
    tree = _table_line_tree(line, "table_header" if header else "table_row")
    if tree is None:
        return None
    cells: list[list[_Piece]] = []
    last_end = 0
    for piece in _pieces(tree):
        last_end = piece.token.end_pos
        if piece.text == "|" and piece.token.type != "STRING":
            cells.append([])
        elif cells:
            cells[-1].append(piece)
    comment = line[last_end:].strip()
    return [join_pieces(cell) for cell in cells[:-1]], comment


def join_pieces(pieces: list[_Piece]) -> str:
    """Tokens on one line with the canonical spacing."""
    layout = _Layout()
    for piece in pieces:
        layout._write(piece, piece.text)
    return layout.text


# --- the safety check ---------------------------------------------------------------------------

def _check_same(source: str, tree: Tree, text: str) -> None:
    if text == source:  # already canonical: nothing changed
        return
    formatted, problems = _parsed(text)
    if formatted is None or _signature(source, tree) != _signature(text, formatted):
        raise FormatSafetyError(
            "the formatter would have changed the ruleset's tokens or comments"
            + (f": {problems[0].message}" if problems else ""))


def _signature(source: str, tree: Tree) -> list[tuple[str, str]]:
    """What formatting must keep: every token (a table line's as its cells' tokens) and
    every comment, in order."""
    found: list[tuple[str, str]] = []
    previous_end = 0
    for token in iter_tokens(tree):
        found += [("#", match.group().rstrip())
                  for match in _COMMENT.finditer(source, previous_end, token.start_pos)]
        previous_end = token.end_pos
        if token.type == "TABLE_LINE":
            found += _table_line_signature(str(token))
        else:
            found.append((token.type, str(token)))
    found += [("#", match.group().rstrip()) for match in _COMMENT.finditer(source, previous_end)]
    return found


@lru_cache(maxsize=4096)
def _table_line_tree(line: str, start: str) -> Tree | None:
    """A table line parsed as a header or a row (None when it is not one); remembered, as the
    formatter and its check read each line twice."""
    tree, problems = parse_snippet(line, start, FILE_START)
    return None if problems else tree


def _table_line_signature(line: str) -> list[tuple[str, str]]:
    for start in ("table_row", "table_header"):
        tree = _table_line_tree(line, start)
        if tree is not None:
            tokens = list(iter_tokens(tree))
            end = tokens[-1].end_pos if tokens else 0
            return [(t.type, str(t)) for t in tokens] + [("#", line[end:].strip())]
    return [("TABLE_LINE", line.rstrip())]
