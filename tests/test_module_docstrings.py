"""Module docstrings say what a module owns and why, briefly, and carry no measured figures.

Timings, speed-ups and instruction counts go stale as the code changes; they belong in
docs/performance.md, next to how they were measured.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE_FOLDERS = ["engine", "dsl", "carrier_matching", "schema", "platform", "bench"]
MAX_LINES = 12
FIGURE = re.compile(
    r"\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|seconds)\b"  # 45 ms, ~0.4 s, 4 us
    r"|\d+(?:\.\d+)?\s?x\s+(?:faster|slower|fewer|more)"  # 1.8x faster
    r"|\b\d+(?:\.\d+)?x\b"  # within 3x, 1.42x
    r"|\d[\d,.]*\s?[kKM]?\s?instructions"  # 112,200 instructions, 222M instructions
    r"|\d[\d,.]*\s?(?:cases|evaluations|calls)\s?(?:/|per\s)\s?(?:s|sec|second|CPU-s)\b")


def module_docstrings() -> list[tuple[str, str]]:
    found = []
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            docstring = ast.get_docstring(ast.parse(path.read_text()), clean=False)
            if docstring:
                found.append((str(path.relative_to(ROOT)), docstring))
    return found


def figures(docstring: str) -> list[str]:
    return [match.group(0) for match in FIGURE.finditer(docstring)]


def test_module_docstrings_stay_short_when_the_source_is_walked():
    long = [f"{path}: {len(doc.splitlines())} lines" for path, doc in module_docstrings()
            if len(doc.splitlines()) > MAX_LINES]
    assert not long, f"module docstrings over {MAX_LINES} lines:\n" + "\n".join(long)


def test_module_docstrings_carry_no_figures_when_the_source_is_walked():
    found = [f"{path}: {figures(doc)}" for path, doc in module_docstrings() if figures(doc)]
    assert not found, "move these figures to docs/performance.md:\n" + "\n".join(found)


@pytest.mark.parametrize(("text", "found"), [
    ("Building the tables costs ~0.4 s of CPU; loading them ~20 ms.", ["0.4 s", "20 ms"]),
    ("today() - 1 year took ~4 us to compute again", ["4 us"]),
    ("Parsing is 1.8x faster; target: within 3x of plain Python.", ["1.8x faster", "3x"]),
    ("a case costs 112,200 instructions", ["112,200 instructions"]),
    ("throughput 33,500 cases/s", ["33,500 cases/s"]),
    ("one bounded engine per workspace, at most 3 retries", []),
    ("data model 2.2.0, ids of 26 characters, `x`, 7 days", []),
])
def test_figure_is_found_when_a_docstring_states_one(text, found):
    assert figures(text) == found
