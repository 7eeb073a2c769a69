"""The operator registry (engine/ir/operators.py): every operator of the grammar has an entry,
the paths' tables are the registry's, and docs/architecture.md's table is derived from it.
(test_differential.py runs every registry operator on every path against the interpreter.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from insureops.dsl import expressions as checker
from insureops.engine import ir
from insureops.engine.evaluation import explain, generator, interpreter, runtime
from insureops.engine.ir.operators import (
    EXPLAINED,
    IMPLEMENTATIONS,
    NEGATED,
    OPERATORS,
    PYTHON,
    docs_table,
)

ROOT = Path(__file__).resolve().parents[2]


def grammar_operators() -> set[str]:
    """The binary operators the grammar spells: comp_op, add_op, mul_op and the keyword rules."""
    grammar = (ROOT / "dsl" / "rules.lark").read_text()
    found: set[str] = set()
    for rule in ("comp_op", "add_op", "mul_op"):
        body = re.search(rf"^!{rule}:(.*?)(?=^\S)", grammar, re.MULTILINE | re.DOTALL).group(1)
        found |= set(re.findall(r'"([^"]+)"', body))
    for word, alias in (
        ("or", "or_op"),
        ("and", "and_op"),
        ("??", "coalesce_op"),
        ("in", "in_op"),
        ("not in", "not_in_op"),
    ):
        assert f"-> {alias}" in grammar, alias
        found.add(word)
    return found


def test_every_grammar_operator_has_an_entry():
    assert grammar_operators() == set(OPERATORS) == set(get_args(ir.BinaryOp))


def test_the_paths_read_the_registry():
    assert set(runtime.OPERATIONS) == set(IMPLEMENTATIONS)
    assert interpreter.IMPLEMENTATIONS is IMPLEMENTATIONS
    assert generator.PYTHON is PYTHON
    assert explain._NEGATED_WORDS is NEGATED
    assert checker._ORDERING == {"<", "<=", ">", ">="}
    assert checker._ARITHMETIC == {"+", "-", "*", "/", "%"}


def test_docs_table_is_derived_from_the_registry():
    assert docs_table() in (ROOT / "docs" / "architecture.md").read_text()


def test_table_cells_take_every_comparing_operator_when_the_registry_lists_them():
    assert set(get_args(ir.CellOp)) == EXPLAINED


def test_the_recipe_names_every_generated_artefact_and_the_test_that_checks_it():
    recipe = (ROOT / "docs" / "architecture.md").read_text()
    recipe = recipe[recipe.index("### Adding an operator"):recipe.index("### Adding a built-in")]
    for artefact, checked_by in [
            ("dsl/rules.lalr", "tests/dsl/test_grammar.py"),
            ("web/src/keywords.generated.ts", "tests/platform/studio_web/test_page.py"),
            ("platform/studio_web/static/", "tests/platform/studio_web/test_page.py")]:
        assert f"`{artefact}`" in recipe and checked_by in recipe, artefact
        assert (ROOT / artefact).exists() and (ROOT / checked_by).is_file()
