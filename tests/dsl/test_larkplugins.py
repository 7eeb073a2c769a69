"""The faster lexer and LALR loop (dsl/larkplugins.py) give exactly what plain lark gives:
the same trees, the same token positions, and the same errors at the same places."""

from __future__ import annotations

import io
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput, UnexpectedToken

from insureops.dsl import grammar as grammar_module
from insureops.dsl.grammar import grammar
from insureops.dsl.larkplugins import FastContextualLexer, FastLALRParser

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "cases"
FILES = sorted((ROOT / "examples").glob("*.rules")) + sorted(CASES.glob("*.rules"))
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALPHABET = st.sampled_from(
    list('abcdefghijklmnopqrstuvwxyz_0123456789 \n\t"{}[]()|#=<>!?+-*/%.,:\\')
    + ["ruleset a\n", "rule r ", "when ", "then ", "end\n", "table t hit first\n", "| x | => y |\n",
       "| - | 1 |\n", "test \"t\" given ", "expect ", "score += ", "3 days", "2024-01-31",
       "2024-01-31T10:00:00Z", "between ", "and ", "is null", "not in ", "count(x in xs where ",
       "\"msg {a.b}\"", "# note\n", "priority -2 ", "effective 2024-01-01 to 2025-01-01 "])


@pytest.fixture(scope="module")
def plain() -> Lark:
    """lark's own lexer and parser over the same tables and keyword callback."""
    fast = grammar()
    body = grammar_module.TABLES_FILE.read_bytes().partition(b"\n")[2]
    options = grammar_module.lexing_options(fast.lexer_conf.callbacks, plugins=False)
    return Lark.__new__(Lark)._load(io.BytesIO(body), **options)


def _flat(tree: Tree) -> list:
    """The tree in pre-order, tokens with every position; iterative, for deeply nested input."""
    flat, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            flat.append((node.data, len(node.children)))
            stack.extend(reversed(node.children))
        elif isinstance(node, Token):
            flat.append((node.type, node.value, node.start_pos, node.line, node.column,
                         node.end_line, node.end_column, node.end_pos))
        else:
            flat.append(node)
    return flat


def outcome(parser: Lark, text: str, start: str = "start") -> tuple:
    """What a parse gives, in comparable form: the tree and its tokens, or the error's place,
    its token, what it expected, what the interactive parser accepts, and the value stack."""
    try:
        tree = parser.parse(text, start=start)
    except UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        found = (token.type, token.value, token.line, token.column) if token is not None else None
        accepts = stack = None
        if isinstance(exc, UnexpectedToken) and exc.interactive_parser is not None:
            accepts = sorted(exc.interactive_parser.accepts())
            stack = repr(exc.interactive_parser.parser_state.value_stack)
        return ("error", type(exc).__name__, exc.line, exc.column, found,
                sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()),
                accepts, stack)
    return ("tree", _flat(tree))


@pytest.fixture(params=["root-first", "state-first"])
def fast(request):
    """The service's parser, its lexer in either mode (a process starts root-first)."""
    with lexing(request.param == "root-first") as parser:
        yield parser


def test_the_service_parser_runs_with_the_plugins():
    parser = grammar()
    assert isinstance(parser.parser.lexer.lexer, FastContextualLexer)  # behind the post-lexer
    assert isinstance(parser.parser.parser, FastLALRParser)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_example_and_case_parses_as_with_plain_lark(plain, fast, path):
    text = path.read_text()
    assert outcome(fast, text) == outcome(plain, text)


@pytest.mark.parametrize(("text", "start"), [
    ("a.b + 3 days > today() and not x in [1, 2]", "expr"),
    ("count(c in claims where c.amount > 10_000)", "expr"),
    ("| revenue | state | => tier |", "table_header"),
    ("| between 1 and 2 | in [\"TX\"] | \"a\" |", "table_row"),
    ("| - | is null | 3 ", "table_row"),
    ("a +", "expr"),
    ("", "start"),
    ("ruleset a\nrule r when x then decline \"{y\" end", "start"),
    ("ruleset a\nrule then when", "start"),
    ("ruleset a\n\n  @", "start"),
    ("ruleset a # trailing comment", "start"),
    # an error after a left-recursive list: lark's accepts() probes copies of the parser
    # without callbacks, which must not grow the trees on the real stack
    ("ruleset a\n.a.ais null", "start"),
    ("ruleset a\nrule r when x > 3 days then end", "start"),
    ("ruleset a\nrule r priority 2024-01-01 when x then end", "start"),
    ("| \"a\" | 2024-01-01 | 3 days | - |", "table_row"),
])
def test_snippets_and_errors_parse_as_with_plain_lark(plain, fast, text, start):
    assert outcome(fast, text, start) == outcome(plain, text, start)


@pytest.mark.parametrize("root_first", [True, False], ids=["root-first", "state-first"])
@FAST
@given(text=st.lists(ALPHABET, max_size=120).map("".join))
def test_random_language_like_text_parses_as_with_plain_lark(plain, root_first, text):
    with lexing(root_first) as fast:
        for source in (text, "ruleset a\n" + text):
            assert outcome(fast, source) == outcome(plain, source)
        for start in ("expr", "table_row"):
            assert outcome(fast, text, start) == outcome(plain, text, start)


@pytest.mark.parametrize("root_first", [True, False], ids=["root-first", "state-first"])
@FAST
@given(text=st.text(max_size=200))
def test_random_text_parses_as_with_plain_lark(plain, root_first, text):
    with lexing(root_first) as fast:
        assert outcome(fast, text) == outcome(plain, text)
        assert outcome(fast, text, "expr") == outcome(plain, text, "expr")


@contextmanager
def lexing(root_first: bool):
    """The service's parser with its lexer in one mode (hypothesis reruns a test body, so the
    mode is set per example rather than by a fixture)."""
    parser = grammar()
    lexer = parser.parser.lexer.lexer  # behind the post-lexer
    saved = lexer._root_first
    lexer._root_first = 10**12 if root_first else 0
    try:
        yield parser
    finally:
        lexer._root_first = saved


def test_the_plugins_work_when_the_tables_are_built_from_the_grammar():
    callbacks = grammar().lexer_conf.callbacks
    built = Lark.open(str(grammar_module.GRAMMAR_FILE), **grammar_module.OPTIONS,
                      **grammar_module.lexing_options(callbacks))
    assert isinstance(built.parser.parser, FastLALRParser)
    text = (ROOT / "examples" / "claims_triage.rules").read_text()
    plain_built = Lark.open(str(grammar_module.GRAMMAR_FILE), **grammar_module.OPTIONS,
                            **grammar_module.lexing_options(callbacks, plugins=False))
    assert outcome(built, text) == outcome(plain_built, text)
