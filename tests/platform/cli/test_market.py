"""`insureops market check DIR` on good and broken market folders."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from insureops.carrier_matching.checking import check_market
from insureops.platform.carrier_finder.market.folder import read_market_folder
from insureops.platform.cli import main
from tests.carrier_matching.example_market import (
    CHECKED,
    MARKET_FOLDER,
    product_count,
    read_texts,
)
from tests.carrier_matching.market_texts import APPETITE, market_texts


def write_market(folder: Path, texts: dict[str, str]) -> Path:
    for relative, text in texts.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def run_check(folder: Path):
    return CliRunner().invoke(main, ["market", "check", str(folder), "--as-of", "2026-03-01"])


def test_market_check_passes_when_the_folder_is_valid(tmp_path: Path):
    result = run_check(write_market(tmp_path, market_texts()))
    assert result.exit_code == 0, result.output
    assert "ok: 1 carrier(s), 2 product(s), 1 appetite(s), 1 test(s) passed" in result.stdout


def test_market_check_reports_file_line_and_column_when_an_appetite_is_broken(tmp_path: Path):
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("business.naics ==", "business.nacis ==")
    result = run_check(write_market(tmp_path, texts))
    assert result.exit_code == 1
    assert f"{tmp_path}/alpha/electricians.rules:8:6: error[E104]: unknown field" in result.stderr
    assert "1 problem(s)" in result.stderr


def test_market_check_reports_a_manifest_problem_when_a_line_is_unknown(tmp_path: Path):
    texts = market_texts()
    texts["alpha/carrier.toml"] = texts["alpha/carrier.toml"].replace('"CGL"', '"LIAB"')
    result = run_check(write_market(tmp_path, texts))
    assert result.exit_code == 1
    assert f"{tmp_path}/alpha/carrier.toml:22:1: error[unknown_line]" in result.stderr


def test_folder_reader_keeps_manifests_and_appetites_when_other_files_are_present(tmp_path: Path):
    write_market(tmp_path, market_texts())
    assert sorted(read_market_folder(tmp_path)) == ["alpha/carrier.toml", "alpha/electricians.rules"]


def test_example_market_checks_when_read_as_the_command_line_reads_it():
    """`market check --no-tests` on examples/market is check_market on what the CLI's folder
    reader returns: the same texts as the example market's, whose every appetite checks clean
    (tests/carrier_matching/test_example_market.py). Checked appetites come from the process's
    cache of the example market; the command itself is run on small markets above (checking
    all 165 appetites again through it cost 12 s and proved nothing more)."""
    texts = read_market_folder(MARKET_FOLDER)
    assert texts == read_texts()
    report = check_market(texts, run_tests=False, cache=CHECKED)
    assert report.problems == () and report.market is not None
    assert len(report.market.products) == product_count()


EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def run_match(*arguments: str):
    return CliRunner().invoke(main, ["market", "match", *arguments, "--as-of", "2026-03-01"])


def test_market_match_ranks_the_example_business_when_run_on_the_example_market():
    result = run_match(str(EXAMPLES / "market"), str(EXAMPLES / "business.json"), "--limit", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{product_count()} product(s) considered, ") and "pruned" in lines[0]
    # presented by carrier (carrier_matching.presentation.render): the best carrier first, how
    # to reach it, then each product with its deciding reason first
    carrier = next(i for i, line in enumerate(lines) if line and not line.startswith(" ")
                   and i > 0 and not line.startswith("Ask the client"))
    assert lines[carrier].startswith("Granite Trades Mutual Insurance Company (A, regional "
                                     "carrier, admitted): accepts")
    assert "    access: Direct appointment" in lines[carrier + 1:carrier + 6]
    product = lines.index("  Accepts: Trade Contractors General Liability (Commercial General "
                          "Liability, preferred appetite; minimum premium $1,250, limits to "
                          "$2,000,000)")
    assert lines[product + 1].startswith("    - Target class: Electrical contractors")


def test_market_match_reports_file_line_and_column_when_an_appetite_is_broken(tmp_path: Path):
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("business.naics ==", "business.nacis ==")
    folder = write_market(tmp_path / "market", texts)
    result = run_match(str(folder), str(EXAMPLES / "business.json"))
    assert result.exit_code == 1
    assert f"{folder}/alpha/electricians.rules:8:6: error[E104]" in result.stderr


def test_market_match_refuses_a_business_that_breaks_its_type(tmp_path: Path):
    business = tmp_path / "business.json"
    business.write_text('{"naics": "238210", "state": "AZ", "annual_revenue": "a lot"}')
    result = run_match(str(EXAMPLES / "market"), str(business), "--lines", "CGL")
    assert result.exit_code == 1 and "does not fit the Business type" in result.stderr


def test_readme_shows_the_offline_match_first_when_read():
    readme = (EXAMPLES.parent / "README.md").read_text()
    command = "pip install -e . && insureops market match examples/market examples/business.json"
    assert command in readme
    assert readme.index(command) < readme.index("## A first walk")
    assert readme.index(command) < readme.index("## Configuration")


def test_market_check_names_the_file_and_the_bound_when_a_manifest_nests_100000_deep(
        tmp_path: Path):
    # issue 28, part 6: this printed a RecursionError traceback
    texts = market_texts()
    deep = "[" * 100_000 + "]" * 100_000
    texts["alpha/carrier.toml"] = texts["alpha/carrier.toml"].replace('rating = "A"',
                                                                      f"rating = {deep}")
    result = run_check(write_market(tmp_path, texts))
    assert result.exit_code == 1
    assert f"{tmp_path}/alpha/carrier.toml:5:10: error[manifest_too_deep]: " in result.stderr
    assert "nested deeper than 64 levels" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_market_match_names_the_business_file_when_it_nests_100000_deep(tmp_path: Path):
    # issue 28, part 6, same class as the manifest: json.loads raised RecursionError
    business = tmp_path / "business.json"
    business.write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)
    folder = write_market(tmp_path / "market", market_texts())
    result = run_match(str(folder), str(business))
    assert result.exit_code == 1
    assert f"error: {business}: nested deeper than 64 levels" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_market_match_says_why_when_a_line_asked_for_has_no_accept_or_refer(tmp_path: Path):
    # Ohio comp is the state fund's: every comp product declines, so "the best N" lists no comp
    # at all; the report says so and groups the reasons. Lines cut only by --limit are not named.
    business = tmp_path / "business.json"
    business.write_text('{"name": "Buckeye Hardware", "naics": "444140", "state": "OH", '
                        '"annual_revenue": 2400000, "payroll": 520000, "years_in_business": 31, '
                        '"lines_of_business": ["CGL", "PROPC", "WORK"]}')
    result = run_match(str(EXAMPLES / "market"), str(business), "--limit", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith("No product accepts"))
    assert lines[heading].startswith("No product accepts or refers Workers Compensation (WORK): ")
    assert lines[heading].endswith(" declined; the commonest reasons:")
    assert "x Ohio is a monopolistic workers compensation state" in lines[heading + 1]
    assert sum(line.startswith("No product accepts") for line in lines) == 1
