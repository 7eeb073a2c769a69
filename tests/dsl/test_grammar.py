"""The prebuilt LALR tables (dsl/rules.lalr) stay in step with rules.lark and parse alike.

After changing rules.lark (or upgrading lark) regenerate them with
`UPDATE_GOLDENS=1 pytest tests/dsl/test_grammar.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lark import Lark

from insureops.dsl import grammar as module

SPEC = (Path(__file__).parent / "cases" / "spec_example.rules").read_text()


def test_prebuilt_tables_match_the_grammar_when_shipped():
    if os.environ.get("UPDATE_GOLDENS") == "1":
        module.TABLES_FILE.write_bytes(module.build_tables())
    header = module.TABLES_FILE.read_bytes().partition(b"\n")[0].decode()
    assert header == module.fingerprint(), "stale dsl/rules.lalr: run with UPDATE_GOLDENS=1"


def test_loaded_tables_parse_like_a_parser_built_from_the_grammar():
    loaded = module.load_tables({})
    built = Lark.open(str(module.GRAMMAR_FILE), **module.OPTIONS)
    assert loaded is not None
    for start, text in [("start", SPEC), ("expr", "a.b[0] ?? -3 * f(x) between 1 and 2"),
                        ("table_row", '| "CA" | < 10 | in {1, 2} | - | 1.20 |')]:
        assert loaded.parse(text, start=start) == built.parse(text, start=start)


@pytest.mark.parametrize("content", [b"0" * 64 + b"\nnot a parser", b""])
def test_tables_are_ignored_when_stale_or_empty(tmp_path, monkeypatch, content):
    stale = tmp_path / "rules.lalr"
    stale.write_bytes(content)
    monkeypatch.setattr(module, "TABLES_FILE", stale)
    assert module.load_tables({}) is None


def test_tables_are_ignored_when_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(module, "TABLES_FILE", tmp_path / "missing.lalr")
    assert module.load_tables({}) is None
