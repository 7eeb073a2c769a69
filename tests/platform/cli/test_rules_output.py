"""Text output of the rules commands (platform/cli/rules_output.py)."""

from __future__ import annotations

import io
from decimal import Decimal

from insureops.engine.evaluation.simulation import SummaryAccumulator
from insureops.engine.ir.result import Result
from insureops.platform.cli.rules_output import (
    format_number,
    progress_bar,
    render_summary,
    render_test_counts,
)


class TerminalText(io.StringIO):
    """A text stream that says it is a terminal, as stderr does in an interactive shell."""

    def isatty(self) -> bool:
        return True


def test_format_number_rounds_only_when_asked():
    assert format_number(Decimal("1.20")) == "1.20"
    assert format_number(Decimal("20.375"), 2) == "20.38"
    assert format_number(None) == "-"
    assert format_number(7) == "7"


def test_test_counts_read_like_pytest_when_tests_fail():
    assert render_test_counts(3, 1, 0, 0.0234) == "3 passed, 1 failed in 0.02s"
    assert render_test_counts(0, 2, 1, 1.5) == "2 failed, 1 error in 1.50s"
    assert render_test_counts(0, 0, 0, 0.0) == "0 passed in 0.00s"


def test_summary_says_percentiles_are_binned_when_scores_overflow_the_histogram():
    accumulator = SummaryAccumulator({"r": "rule"}, max_bins=4)
    for value in range(100):
        accumulator.add(Result("x", None, Decimal(value), {}, [], [], ["r"]))
    text = render_summary(accumulator.summary(), ruleset="x", elapsed=0.5)
    assert "Score (percentiles binned)" in text
    assert "100 cases in 0.50s (200 cases/s)" in text


def test_progress_bar_is_none_when_stderr_is_not_a_terminal(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"{}\n")
    with path.open("rb") as stream, progress_bar(stream, io.StringIO(), "simulating") as update:
        assert update is None


def test_progress_bar_draws_bytes_read_when_stderr_is_a_terminal(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"x" * 4000)
    terminal = TerminalText()
    with path.open("rb") as stream, progress_bar(stream, terminal, "simulating") as update:
        assert update is not None
        update(2000)
        update(4000)
    assert "simulating" in terminal.getvalue()
