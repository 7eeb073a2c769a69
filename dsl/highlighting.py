"""Semantic tokens of a ruleset: what each word of the text is, for an editor's colours.

A lexical scan (it works on text that does not parse, as an editor has it while typing) whose
names are classified by the last analysis (`known`): a const, an input, a field, an output, a
built-in function, a rule or table being declared. Each token is (line, column, length, type,
modifiers) with 1-based lines and columns in characters; the language server encodes them.
"""

from __future__ import annotations

import re
from functools import cache

from insureops.dsl.analysis import Analysis
from insureops.dsl.grammar import grammar, keywords
from insureops.engine.ir.builtins import FUNCTIONS

TOKEN_TYPES = ("keyword", "string", "number", "comment", "operator", "variable", "parameter",
               "property", "function", "class", "type", "enumMember")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")
MAX_TOKENS = 200_000  # an editor gets at most this many (a pathological file stays usable)
_KIND_TOKEN = {"const": ("variable", {"readonly"}), "input": ("parameter", set()),
               "field": ("property", set()), "output": ("property", set()),
               "variable": ("variable", set()), "function": ("function", {"defaultLibrary"}),
               "rule": ("function", set()), "table": ("class", set()), "type": ("type", set()),
               "result": ("variable", {"readonly"})}
_DECISIONS = {"accept", "refer", "decline"}

SemanticToken = tuple[int, int, int, str, frozenset[str]]


@cache
def _scanner() -> re.Pattern[str]:
    string = grammar().get_terminal("STRING").pattern.to_regexp()
    return re.compile(
        r"(?P<comment>#[^\n]*)"
        rf"|(?P<string>{string}|\"[^\n]*)"
        r"|(?P<number>[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9:.]+(?:Z|[+-][0-9]{2}:[0-9]{2})?)?"
        r"|[0-9](?:_?[0-9])*(?:\.[0-9](?:_?[0-9])*)?)"
        r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
        r"|(?P<operator>==|!=|<=|>=|\?\?|\+=|-=|=>|[-+*/%<>=|])"
        r"|(?P<punctuation>[.,:()\[\]{}])")


def semantic_tokens(source: str, known: Analysis | None = None) -> list[SemanticToken]:
    """The classified tokens of `source`, in order."""
    words = keywords()
    exact = {}
    consts: set[str] = set()
    inputs: set[str] = set()
    if known is not None and known.index is not None:
        if known.source == source:  # the analysis is of this very text: names are exact
            exact = {o.span.start: o for o in known.index.occurrences}
        consts = set(known.index.const_types)
        inputs = set(known.index.inputs)
    tokens: list[SemanticToken] = []
    line, line_start = 1, 0
    previous = ""
    for match in _scanner().finditer(source):
        start = match.start()
        newlines = source.count("\n", line_start, start)
        if newlines:
            line += newlines
            line_start = source.rfind("\n", 0, start) + 1
        kind = match.lastgroup
        text = match.group()
        if kind == "punctuation":
            previous = text
            continue
        modifiers: set[str] = set()
        if kind == "name":
            kind, modifiers = _name(text, start, source, match.end(), previous, exact, words,
                                    consts, inputs)
        tokens.append((line, start - line_start + 1, len(text), kind, frozenset(modifiers)))
        previous = text
        if len(tokens) >= MAX_TOKENS:
            break
    return tokens


def _name(text: str, start: int, source: str, end: int, previous: str, exact: dict,
          words: frozenset[str], consts: set[str], inputs: set[str]) -> tuple[str, set[str]]:
    occurrence = exact.get(start)
    if occurrence is not None and occurrence.kind in _KIND_TOKEN:
        kind, modifiers = _KIND_TOKEN[occurrence.kind]
        return kind, modifiers | ({"declaration"} if occurrence.definition else set())
    if previous == ".":
        return "property", set()
    if previous in ("rule", "table"):
        return ("function" if previous == "rule" else "class"), {"declaration"}
    if text in _DECISIONS:
        return "enumMember", set()
    if text in words:
        return "keyword", set()
    if text in FUNCTIONS and source.startswith("(", end):
        return "function", {"defaultLibrary"}
    if text in consts:
        return "variable", {"readonly"}
    if text in inputs:
        return "parameter", set()
    return "variable", set()
