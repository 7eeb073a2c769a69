"""The Lark parser of rules.lark: loaded from the prebuilt LALR tables, or built from the grammar.

Building the tables would be paid by every `insureops rules ...` run, so `rules.lalr` holds them
with a fingerprint (sha256 of rules.lark, the parser options and lark's version); on a mismatch
they are ignored and rebuilt, and tests/dsl/test_grammar.py fails until `UPDATE_GOLDENS=1`
regenerates the file. The parser runs with `larkplugins.py`'s lexer and LALR loop.
"""

from __future__ import annotations

import hashlib
import io
import re
from functools import cache
from pathlib import Path

import lark
from lark import Lark, Token
from lark.lark import PostLex
from lark.lexer import PatternStr

from insureops.dsl.larkplugins import PLUGINS

START_SYMBOLS = ["start", "items", "expr", "table_header", "table_row"]
OPTIONS = {"parser": "lalr", "lexer": "contextual", "start": START_SYMBOLS,
           "maybe_placeholders": True, "keep_all_tokens": True}
GRAMMAR_FILE = Path(__file__).with_name("rules.lark")
TABLES_FILE = Path(__file__).with_name("rules.lalr")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def fingerprint() -> str:
    """What the prebuilt tables must have been built from: grammar text, options, lark version."""
    digest = hashlib.sha256(GRAMMAR_FILE.read_bytes())
    digest.update(repr(sorted(OPTIONS.items())).encode())
    digest.update(lark.__version__.encode())
    return digest.hexdigest()


def build_tables() -> bytes:
    """The contents of rules.lalr for the current grammar and lark (used to regenerate it)."""
    buffer = io.BytesIO()
    Lark.open(str(GRAMMAR_FILE), **OPTIONS).save(buffer)
    return fingerprint().encode() + b"\n" + buffer.getvalue()


@cache
def grammar() -> Lark:
    """The LALR parser for rules.lark, made on first use.

    The contextual lexer would read a keyword as a NAME where only a name fits; the NAME callback
    turns every keyword back into its keyword token, so keywords stay reserved everywhere and a
    misplaced `then` is reported as such."""
    keywords: dict[str, str] = {}

    def reserve(token: Token) -> Token:
        keyword = keywords.get(token.value)
        return token if keyword is None else Token.new_borrow_pos(keyword, token.value, token)

    callbacks = {"NAME": reserve}
    parser = load_tables(callbacks) or Lark.open(str(GRAMMAR_FILE), **OPTIONS,
                                                 **lexing_options(callbacks))
    keywords.update((word, name) for word, name in _keyword_terminals(parser))
    return parser


def load_tables(callbacks: dict) -> Lark | None:
    """The parser from rules.lalr when its fingerprint matches, else None."""
    try:
        header, _, body = TABLES_FILE.read_bytes().partition(b"\n")
    except OSError:
        return None
    if header.decode(errors="replace") != fingerprint():
        return None
    # Lark.load takes no options; its _load accepts the ones that do not change the tables
    # (lexer_callbacks and _plugins among them). The fingerprint pins the lark version this was
    # written by.
    return Lark.__new__(Lark)._load(io.BytesIO(body), **lexing_options(callbacks))


class NamesEverywhere(PostLex):
    """lark's post-lexer hook, used for its `always_accept`: the lexer also matches NAME in
    parser states that take no name. Otherwise, where only keywords fit, a keyword would match
    the start of a longer word (`declines "x"` read as `decline` + `s`, and the error shown at
    `"x"`); now the whole word is read and reported. Tokens pass through unchanged."""

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


def lexing_options(callbacks: dict, plugins: bool = True) -> dict:
    """The options that shape lexing but not the tables: given when the tables are loaded (and
    when the parser is built from the grammar). `plugins=False` is plain lark, for tests."""
    return {"lexer_callbacks": callbacks, "postlex": NamesEverywhere(),
            "_plugins": PLUGINS if plugins else {}}


def keywords() -> frozenset[str]:
    """The reserved words of the language."""
    return frozenset(word for word, _ in _keyword_terminals(grammar()))


def _keyword_terminals(parser: Lark) -> list[tuple[str, str]]:
    return [(terminal.pattern.value, terminal.name) for terminal in parser.terminals
            if isinstance(terminal.pattern, PatternStr)
            and _IDENTIFIER.fullmatch(terminal.pattern.value)]
