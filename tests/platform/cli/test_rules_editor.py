"""`insureops rules fmt` through click's runner: in place, `--check` for CI, stdin, folders."""

from __future__ import annotations

from click.testing import CliRunner

from insureops.platform.cli import main

MESSY = 'ruleset a\ninput b:Business\nrule r when b.state=="CA" then stop end  # why\n'
CANONICAL = ('ruleset a\ninput b: Business\n\nrule r\nwhen b.state == "CA"\nthen\n    stop\n'
             'end  # why\n')


def test_fmt_rewrites_files_in_place_and_then_checks_clean(tmp_path):
    path = tmp_path / "a.rules"
    path.write_text(MESSY)
    result = CliRunner().invoke(main, ["rules", "fmt", str(path)])
    assert result.exit_code == 0 and f"reformatted {path}" in result.output
    assert path.read_text() == CANONICAL
    result = CliRunner().invoke(main, ["rules", "fmt", "--check", str(path)])
    assert result.exit_code == 0 and result.output == ""


def test_fmt_check_lists_unformatted_files_under_a_folder_and_exits_1(tmp_path):
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "messy.rules").write_text(MESSY)
    (tmp_path / "clean.rules").write_text(CANONICAL)
    (tmp_path / "notes.txt").write_text("not a ruleset")
    result = CliRunner().invoke(main, ["rules", "fmt", "--check", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == f"would reformat {tmp_path / 'deep' / 'messy.rules'}\n"
    assert (tmp_path / "deep" / "messy.rules").read_text() == MESSY  # --check changes nothing


def test_fmt_reads_stdin_and_writes_stdout_when_given_a_dash():
    result = CliRunner().invoke(main, ["rules", "fmt", "-"], input=MESSY)
    assert result.exit_code == 0 and result.output == CANONICAL
    assert CliRunner().invoke(main, ["rules", "fmt", "--check", "-"], input=MESSY).exit_code == 1


def test_fmt_leaves_a_file_with_syntax_errors_and_fails(tmp_path):
    path = tmp_path / "broken.rules"
    path.write_text("ruleset a\nrule r when then end\n")
    result = CliRunner().invoke(main, ["rules", "fmt", str(path)])
    assert result.exit_code == 1
    assert "syntax errors" in result.output and "line 2" in result.output
    assert path.read_text() == "ruleset a\nrule r when then end\n"
