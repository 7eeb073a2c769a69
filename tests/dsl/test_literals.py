"""Literal text -> values, and message strings split into text and `{expr}` parts."""

from __future__ import annotations

from decimal import Decimal

import pytest

from insureops.dsl.literals import (
    LiteralValueError,
    Part,
    decode_string,
    parse_number,
    parse_whole_number,
    split_message,
)


def test_number_keeps_its_scale_when_underscores_are_removed():
    assert str(parse_number("1_000.50")) == "1000.50"


def test_whole_number_is_refused_when_it_has_a_fraction():
    with pytest.raises(LiteralValueError, match="must be a whole number"):
        parse_whole_number("1.5", "a priority")
    assert parse_whole_number("2.0", "a priority") == 2


def test_unknown_escape_is_located_when_decoding():
    with pytest.raises(LiteralValueError) as raised:
        decode_string(r"ab\qc")
    assert (raised.value.offset, raised.value.length) == (2, 2)


def test_message_splits_into_text_and_expressions_when_braces_hold_code():
    assert split_message('{n} of {len("a}")} done {{ok}}') == [
        Part(True, "n", 1), Part(False, " of ", 3), Part(True, 'len("a}")', 8),
        Part(False, " done {ok}", 18)]


def test_unclosed_brace_stays_text_when_no_closing_brace_follows():
    assert split_message("a { b") == [Part(False, "a { b", 0)]


def test_escaped_brace_is_text_when_backslashed():
    assert split_message(r"\{x}") == [Part(False, "{x}", 0)]


def test_number_literal_is_decimal_when_parsed():
    assert parse_number("0.1") + parse_number("0.2") == Decimal("0.3")
