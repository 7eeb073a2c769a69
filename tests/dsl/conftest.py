"""Fixtures of the dsl tests: the specification's complete example."""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = Path(__file__).parent / "cases"


@pytest.fixture
def spec_source() -> str:
    """The complete example of spec/rules-language.md, verbatim."""
    return (CASES / "spec_example.rules").read_text()
