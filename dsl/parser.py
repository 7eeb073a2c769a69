"""The parser: loads rules.lark lazily and turns text into lark trees or syntax diagnostics.

lark's exceptions never leave this module: each becomes a Diagnostic that names what was
expected in words. After an error the parser resumes at the next line that opens a top-level
item (`rule`, `table`, `test`, `const`, ...), so one run reports the syntax errors of every block.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from insureops.dsl.diagnostics import Diagnostic, error
from insureops.dsl.grammar import START_SYMBOLS, grammar, keywords
from insureops.engine.ir import Span
from insureops.engine.ir.operators import OPERATORS

__all__ = ["START_SYMBOLS", "Offset", "grammar", "keywords", "parse_file", "parse_snippet"]
MAX_SYNTAX_ERRORS = 20

_RESYNC = re.compile(r"^[ \t]*(rule|table|test|const|input|default|version)\b", re.MULTILINE)
_BLOCK_OPENERS = {"RULE": "rule", "TABLE": "table", "TEST": "test"}
_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "STRING": "a string", "DATE": "a date",
    "DATETIME": "a datetime", "TABLE_LINE": "a table line `| ... |`",
    "DURATION_UNIT": "a duration unit", "$END": "end of file",
}
_EXPRESSION_TERMINALS = {"NAME", "NUMBER", "STRING", "DATE", "DATETIME", "TRUE", "FALSE"}
_EXPRESSION_TEXT = {"(", "[", "{", "-", "not", "if", "null", "score", "decision"}
# the words of the binary operators (the registry's), and the other infix words and punctuation
_OPERATOR_TEXT = {*(word for name in OPERATORS for word in name.split()),
                  "not", "between", "is", ".", "[", "("}


@dataclass(frozen=True, slots=True)
class Offset:
    """Where a snippet (an interpolation, a table line) starts in its file: 1-based line and
    column, 0-based character offset. Positions inside the snippet are shifted by it."""

    line: int = 1
    column: int = 1
    start: int = 0

    def span(self, line: int, column: int, end_line: int, end_column: int,
             start: int, end: int) -> Span:
        """The file span of a snippet-relative range."""
        if self.start == 0 and self.line == 1 and self.column == 1:  # the file itself
            return Span(line, column, end_line, end_column, start, end)
        return Span(
            self.line + line - 1, column + (self.column - 1 if line == 1 else 0),
            self.line + end_line - 1, end_column + (self.column - 1 if end_line == 1 else 0),
            self.start + start, self.start + end,
        )


FILE_START = Offset()


def parse_snippet(text: str, start: str, offset: Offset,
                  end_name: str | None = None) -> tuple[Tree | None, list[Diagnostic]]:
    """Parse `text` from the start symbol `start`; one diagnostic on a syntax error.
    `end_name` names the snippet's end in messages ("the closing `}`"); None for a whole file."""
    try:
        return grammar().parse(text, start=start), []
    except UnexpectedInput as exc:
        return None, [_diagnostic(exc, text, offset, end_name)]
    except LarkError as exc:  # defensive: any other lark failure is still a syntax error
        return None, [error("E001", offset.span(1, 1, 1, 2, 0, 1), f"cannot parse: {exc}")]


def parse_file(source: str) -> tuple[Tree | None, list[Diagnostic]]:
    """Parse a whole ruleset; on errors, the tree is None and every syntax error found is returned."""
    tree, diagnostics = parse_snippet(source, "start", FILE_START)
    if not diagnostics:
        return tree, []
    resumed_at = 0
    while len(diagnostics) < MAX_SYNTAX_ERRORS:
        position = _resume_position(source, diagnostics[-1], resumed_at)
        if position is None:
            break
        resumed_at = position
        masked = re.sub(r"[^\n]", " ", source[:position]) + source[position:]
        _, more = parse_snippet(masked, "items", FILE_START)
        if not more:
            break
        diagnostics += more
    return None, diagnostics


def _resume_position(source: str, last: Diagnostic, resumed_at: int) -> int | None:
    error_at = last.span.start if last.span else len(source)
    for match in _RESYNC.finditer(source):
        keyword_at = match.start(1)
        if keyword_at >= error_at and keyword_at > resumed_at:
            return keyword_at
    return None


def _diagnostic(exc: UnexpectedInput, text: str, offset: Offset,
                end_name: str | None) -> Diagnostic:
    if isinstance(exc, UnexpectedToken):
        return _unexpected_token(exc, offset, end_name)
    position = getattr(exc, "pos_in_stream", 0) or 0
    line, column = getattr(exc, "line", 1), getattr(exc, "column", 1)
    span = offset.span(line, column, line, column + 1, position, position + 1)
    char = text[position] if position < len(text) else ""
    if char == '"':
        return error("E003", span, "unterminated string", "close the string with `\"` on the "
                     "same line; write `\\\"` for a quote inside it")
    if isinstance(exc, UnexpectedCharacters) and char.isdigit():
        return error("E003", span, "malformed number, date or duration",
                     "numbers look like `5_000_000` or `1.20`, dates `2025-01-31`")
    return error("E003", span, f"unexpected character `{char}`")


def _unexpected_token(exc: UnexpectedToken, offset: Offset, end_name: str | None) -> Diagnostic:
    token: Token = exc.token
    expected = _precise_expected(exc)
    at_end = token.type == "$END"
    if at_end:
        # lark places $END on the last token; point just after it instead
        line = token.end_line or token.line or 1
        column = token.end_column or token.column or 1
        position = token.end_pos or token.start_pos or 0
        span = offset.span(line, column, line, column + 1, position, position + 1)
        found = end_name or "end of file"
    elif token.type == "TABLE_LINE":  # a `|` where a cell or the header was expected
        span = offset.span(token.line, token.column, token.line, token.column + 1,
                           token.start_pos, token.start_pos + 1)
        found = "`|`"
    else:
        span = offset.span(token.line, token.column, token.end_line, token.end_column,
                           token.start_pos, token.end_pos)
        found = f"`{token.value}`"
    block = _enclosing_block(exc)
    code = "E002" if at_end and end_name is None else "E001"
    if expected == {"NAME"} and token.value in keywords():
        return error("E004", span, f"`{token.value}` is a reserved keyword, expected "
                     f"{describe_expected(expected)}", "choose another name")
    if "END" in expected and block is not None:
        kind, name, line = block
        return error(code, span, f"expected `end` to close {kind} {name} opened at line {line}, "
                     f"found {found}", _joined(_misspelt_keyword(token, expected),
                                               _hint_for(expected)))
    hint = "compare with `==`; `=` only names a const, output or given" if (
        token.value == "=") else _joined(_misspelt_keyword(token, expected), _hint_for(expected))
    return error(code, span, f"expected {describe_expected(expected)}, found {found}", hint)


def _misspelt_keyword(token: Token, expected: set[str]) -> str | None:
    """"did you mean `when`?" for a name where a keyword close to it was expected."""
    if token.type != "NAME":
        return None
    words = [word for word in map(_terminal_pattern, expected) if word and word.isidentifier()]
    close = difflib.get_close_matches(token.value, words, n=1, cutoff=0.6)  # short words
    return f"did you mean `{close[0]}`?" if close else None


def _joined(first: str | None, second: str | None) -> str | None:
    """Two hints as two sentences ("did you mean `when`? A rule reads ...")."""
    if first and second:
        return f"{first} {second[0].upper()}{second[1:]}"
    return first or second


def _precise_expected(exc: UnexpectedToken) -> set[str]:
    # LALR merges states, so exc.expected may list terminals that would fail one step later;
    # the interactive parser tries each one and keeps only those truly accepted here.
    parser = getattr(exc, "interactive_parser", None)
    if parser is None:
        return set(exc.expected)
    try:
        return set(parser.accepts()) or set(exc.expected)
    except LarkError:
        return set(exc.expected)


def _enclosing_block(exc: UnexpectedToken) -> tuple[str, str, int] | None:
    parser = getattr(exc, "interactive_parser", None)
    if parser is None:
        return None
    stack = list(parser.parser_state.value_stack)
    for index in range(len(stack) - 1, -1, -1):
        item = stack[index]
        if isinstance(item, Token) and item.type in _BLOCK_OPENERS:
            following = stack[index + 1] if index + 1 < len(stack) else None
            name = f"`{following.value}`" if isinstance(following, Token) else ""
            return _BLOCK_OPENERS[item.type], name, item.line or 1
    return None


def describe_expected(expected: set[str]) -> str:
    """The expected terminals in words: "an expression", "`when`", "an operator", ..."""
    patterns = {name: _terminal_pattern(name) for name in expected}
    wants_expression = {"NAME", "NUMBER", "STRING"} <= expected
    wants_operator = sum(1 for p in patterns.values()
                         if p in _OPERATOR_TEXT and p not in _EXPRESSION_TEXT) >= 4
    words = (["an expression"] if wants_expression else []) + (
        ["an operator"] if wants_operator else [])
    for name, pattern in patterns.items():
        if wants_expression and (name in _EXPRESSION_TERMINALS or pattern in _EXPRESSION_TEXT):
            continue
        if wants_operator and (pattern in _OPERATOR_TEXT or name == "DURATION_UNIT"):
            continue
        words.append(_WORDS.get(name) or (f"`{pattern}`" if pattern else name.lower()))
    words = words[:2] + sorted(words[2:]) if wants_expression or wants_operator else sorted(words)
    if not words:
        return "something else"
    if len(words) > 8:
        words = words[:8] + ["..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _terminal_pattern(name: str) -> str | None:
    try:
        pattern = grammar().get_terminal(name).pattern
    except KeyError:
        return None
    return pattern.value if isinstance(pattern, PatternStr) else None


def _hint_for(expected: set[str]) -> str | None:
    if expected == {"WHEN"} or ("WHEN" in expected and "PRIORITY" in expected):
        return "a rule reads `rule NAME [\"title\"] [priority N] when CONDITION then ACTIONS end`"
    if "HIT" in expected:
        return "a table reads `table NAME [\"title\"] hit first|unique|collect`"
    if "EXPECT" in expected and "GIVEN" in expected:
        return "a test reads `test \"description\" given NAME = {...} expect CONDITION end`"
    return None
