"""`insureops rules check|test|simulate|diff` through click's runner and a real process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from insureops.engine.inputs import jsonio
from insureops.platform.cli import main

ROOT = Path(__file__).resolve().parents[3]
APPETITE = ROOT / "examples" / "appetite_acme_contractors.rules"
APPETITE_CASES = ROOT / "examples" / "appetite_acme_contractors_cases.jsonl"
INSUREOPS = Path(sys.executable).with_name("insureops")

SAMPLE = """\
ruleset cli.sample "CLI sample"
input business: Business
default decision refer

rule core priority 10
when business.state == "CA"
then
    score += 10
    accept "core state"
end

rule big
when business.annual_revenue > 1000000
then
    score += 5
    tag "big"
end

test "CA is accepted"
given business = {"state": "CA"}
expect decision == "accept" and score == 10
end

test "big business gets a tag"
given business = {"state": "OR", "annual_revenue": 2000000}
expect tags == ["big"] and decision == "refer"
end
"""

NEW_SAMPLE = SAMPLE.replace("score += 10", "score += 20").replace(
    "rule big\n", 'rule texas priority 20\nwhen business.state == "TX"\nthen\n'
    '    decline "no Texas"\n    stop\nend\n\nrule big\n')

CASES = [
    {"id": "ca", "inputs": {"business": {"state": "CA", "annual_revenue": 500}}},
    {"id": "tx-big", "inputs": {"business": {"state": "TX", "annual_revenue": 5000000}}},
    {"id": "or", "inputs": {"business": {"state": "OR"}}},
    {"id": "ca-big", "inputs": {"business": {"state": "CA", "annual_revenue": 3000000}}},
]


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _cases(folder: Path, lines: list) -> str:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return _write(folder, "cases.jsonl", text)


def _invoke(*args: str):
    return CliRunner().invoke(main, ["rules", *args], catch_exceptions=False)


def _redact(text: str) -> str:
    return re.sub(r"in \d+\.\d+s \([\d,\-]+ cases/s\)", "in <elapsed> (<rate> cases/s)",
                  re.sub(r"in \d+\.\d+s$", "in <elapsed>", text, flags=re.MULTILINE))


# --- check -------------------------------------------------------------------------------------


def test_check_exits_0_and_reports_ok_when_files_are_valid(tmp_path):
    result = _invoke("check", _write(tmp_path, "s.rules", SAMPLE), str(APPETITE))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "2 file(s) checked: 0 error(s), 0 warning(s)"
    assert result.stderr == ""


def test_check_prints_rendered_diagnostics_on_stderr_when_the_syntax_is_wrong(tmp_path):
    path = _write(tmp_path, "broken.rules", SAMPLE.replace("when business.state", "when ("))
    result = _invoke("check", path)
    assert result.exit_code == 1
    assert re.search(rf"{re.escape(path)}:6:\d+: error\[[\w.-]+\]:", result.stderr)
    assert "^" in result.stderr
    assert "1 error(s)" in result.stdout


def test_check_reports_unknown_fields_with_a_hint_when_a_name_is_misspelt(tmp_path):
    path = _write(tmp_path, "typo.rules", SAMPLE.replace("annual_revenue >", "anual_revenue >"))
    result = _invoke("check", path)
    assert result.exit_code == 1
    assert "anual_revenue" in result.stderr and "annual_revenue" in result.stderr


def test_check_exits_1_when_a_file_cannot_be_read(tmp_path):
    result = _invoke("check", str(tmp_path / "missing.rules"))
    assert result.exit_code == 1
    assert "cannot read" in result.stderr and "missing.rules" in result.stderr


# --- test --------------------------------------------------------------------------------------


def test_test_prints_a_pytest_style_summary_when_every_test_passes(tmp_path):
    result = _invoke("test", "--as-of", "2026-03-01", _write(tmp_path, "s.rules", SAMPLE))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith("s.rules ..")
    assert re.fullmatch(r"2 passed in \d+\.\d\ds", lines[-1])


def test_test_exits_1_with_file_line_and_message_when_a_test_fails(tmp_path):
    path = _write(tmp_path, "s.rules", SAMPLE.replace("score == 10", "score == 11"))
    result = _invoke("test", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].endswith("s.rules F.")
    assert f"FAILED {path}:19: CA is accepted" in result.stderr
    assert re.search(r"^1 passed, 1 failed in \d+\.\d\ds$", result.stderr, flags=re.MULTILINE)


def test_test_exits_1_with_diagnostics_when_a_ruleset_is_invalid(tmp_path):
    path = _write(tmp_path, "bad.rules", SAMPLE.replace("score += 10", "score += \"ten\""))
    result = _invoke("test", path)
    assert result.exit_code == 1
    assert f"{path}:8:" in result.stderr and "error[" in result.stderr
    assert re.search(r"1 error in", result.stderr)


def test_test_runs_every_example_when_given_the_examples_folder_files():
    examples = sorted(str(p) for p in (ROOT / "examples").glob("*.rules"))
    result = _invoke("test", *examples)
    assert result.exit_code == 0, result.output
    assert "failed" not in result.stdout


# --- simulate ----------------------------------------------------------------------------------


def test_simulate_writes_one_result_per_case_in_order_and_a_summary(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    result = _invoke("simulate", rules, "--cases", _cases(tmp_path, CASES))
    assert result.exit_code == 0, result.stderr
    lines = [jsonio.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["ca", "tx-big", "or", "ca-big"]
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer", "refer", "accept"]
    assert [line["result"]["score"] for line in lines] == [10, 5, 0, 15]
    assert "trace" not in lines[0]["result"]
    assert "Simulation of cli.sample" in result.stderr
    assert re.search(r"^  core\s+rule\s+2\s+50\.0%$", result.stderr, flags=re.MULTILINE)


def test_simulate_keeps_going_and_exits_1_when_case_lines_are_bad(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = _cases(tmp_path, [CASES[0], "{broken", {"id": "none", "inputs": {}}, CASES[2]])
    out = tmp_path / "results.jsonl"
    result = _invoke("simulate", rules, "--cases", cases, "--out", str(out))
    assert result.exit_code == 1
    lines = [jsonio.loads(line) for line in out.read_text().splitlines()]
    assert [sorted(line) for line in lines] == [["id", "result"], ["error", "id"],
                                                ["error", "id"], ["id", "result"]]
    assert lines[1] == {"id": None, "error": {"code": "invalid_json", "line": 2,
                                              "message": lines[1]["error"]["message"]}}
    assert lines[2]["error"]["code"] == "missing_input"
    assert "errors 2" in result.stdout and "invalid_json" in result.stdout


def test_simulate_adds_the_trace_when_explain_is_set(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    result = _invoke("simulate", rules, "--cases", _cases(tmp_path, CASES[:1]), "--explain")
    assert result.exit_code == 0, result.stderr
    assert jsonio.loads(result.stdout)["result"]["trace"]


def test_simulate_exits_1_with_the_diagnostic_when_the_ruleset_is_invalid(tmp_path):
    rules = _write(tmp_path, "bad.rules", SAMPLE.replace("then\n    score += 10", "then\n   ++"))
    result = _invoke("simulate", rules, "--cases", _cases(tmp_path, CASES))
    assert result.exit_code == 1
    assert "error[" in result.stderr and result.stdout == ""


def test_simulate_exits_1_when_the_cases_file_is_missing(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    result = _invoke("simulate", rules, "--cases", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


def test_simulate_summary_of_the_appetite_example_matches_the_snapshot(tmp_path, snapshot):
    out = tmp_path / "results.jsonl"
    result = _invoke("simulate", str(APPETITE), "--cases", str(APPETITE_CASES),
                     "--out", str(out))
    # one case lacks its input on purpose and expects that error: met, so exit 0 (issue 33)
    assert result.exit_code == 0, result.stderr
    assert _redact(result.stdout.replace(str(ROOT) + "/", "")) == snapshot


# --- diff --------------------------------------------------------------------------------------


def test_diff_reports_transitions_scores_and_rule_shifts_as_json(tmp_path):
    old = _write(tmp_path, "old.rules", SAMPLE)
    new = _write(tmp_path, "new.rules", NEW_SAMPLE)
    result = _invoke("diff", old, new, "--cases", _cases(tmp_path, CASES), "--json")
    assert result.exit_code == 0, result.stderr
    report = jsonio.loads(result.stdout)
    assert report["cases"] == 4 and report["decisions_changed"] == 1
    assert report["transitions"][0] == {"from": "refer", "to": "decline", "count": 1,
                                        "examples": ["tx-big"]}
    assert report["scores"] == {"compared": 4, "changed": 3, "increased": 2, "decreased": 1,
                                "mean_delta": report["scores"]["mean_delta"],
                                "min_delta": -5, "max_delta": 10}
    rules = {r["name"]: (r["old"], r["new"], r["delta"]) for r in report["rules"]}
    assert rules == {"core": (2, 2, 0), "big": (2, 1, -1), "texas": (0, 1, 1)}


def test_diff_text_report_matches_the_snapshot(tmp_path, snapshot):
    old = _write(tmp_path, "old.rules", SAMPLE)
    new = _write(tmp_path, "new.rules", NEW_SAMPLE)
    result = _invoke("diff", old, new, "--cases", _cases(tmp_path, CASES))
    assert result.exit_code == 0, result.stderr
    assert _redact(result.stdout.replace(str(tmp_path) + "/", "")) == snapshot


def test_diff_exits_1_and_counts_errors_when_a_case_fails(tmp_path):
    old = _write(tmp_path, "old.rules", SAMPLE)
    result = _invoke("diff", old, old, "--cases", _cases(tmp_path, [CASES[0], "[1]"]), "--json")
    assert result.exit_code == 1
    report = jsonio.loads(result.stdout)
    assert report["errors"] == {"old": {"invalid_case": 1}, "new": {"invalid_case": 1}}


# --- a real process ----------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(INSUREOPS), "rules", *args], capture_output=True, text=True,
                          check=False, cwd=ROOT)


def test_process_exits_0_with_empty_stderr_when_checking_the_examples():
    done = _run("check", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("examples/*.rules")))
    assert (done.returncode, done.stderr) == (0, "")


def test_process_exits_1_with_the_caret_on_stderr_when_the_syntax_is_wrong(tmp_path):
    done = _run("check", _write(tmp_path, "bad.rules", "ruleset x\nrule r when then end\n"))
    assert done.returncode == 1
    assert ":2:" in done.stderr and "^" in done.stderr and "error[" in done.stderr


def test_process_streams_results_to_stdout_and_summary_to_stderr(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    done = _run("simulate", rules, "--cases", _cases(tmp_path, CASES), "--as-of", "2026-03-01")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 4
    assert "cases/s" in done.stderr and "cases/s" not in done.stdout


@pytest.mark.parametrize("command", [["test"], ["simulate", "--cases", "x.jsonl"]])
def test_process_exits_1_when_the_rules_file_does_not_exist(tmp_path, command):
    done = _run(*command[:1], str(tmp_path / "nope.rules"), *command[1:])
    assert done.returncode == 1
    assert "cannot read" in done.stderr


# --- memory stays flat -------------------------------------------------------------------------

TINY = """\
ruleset cli.tiny
input x: Any
rule big
when x.n > 5
then
    score += x.n
    accept "big"
end
"""


# VmHWM, not getrusage: ru_maxrss survives exec, so a child would report pytest's own peak.
PEAK_RSS = """
import re, sys
from insureops.platform.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    status = open("/proc/self/status").read()
    print(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1), file=sys.stderr)
"""


def _peak_rss_kib(rules: str, cases: Path, out: Path) -> int:
    """The peak resident memory of a fresh process simulating `cases`, in KiB."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, "rules", "simulate", rules, "--cases", str(cases),
         "--out", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.splitlines()[-1])


def test_simulate_memory_stays_flat_when_cases_grow_tenfold(tmp_path):
    rules = _write(tmp_path, "tiny.rules", TINY)
    sizes = {"small": 20_000, "large": 200_000}
    peaks = {}
    for name, count in sizes.items():
        cases = tmp_path / f"{name}.jsonl"
        with cases.open("w") as handle:
            handle.writelines(f'{{"id":{i},"inputs":{{"x":{{"n":{i % 10}}}}}}}\n'
                              for i in range(count))
        out = tmp_path / f"{name}.out.jsonl"
        peaks[name] = _peak_rss_kib(rules, cases, out)
        assert out.read_text().count("\n") == count
    # a leak of even 20 bytes per case would add 3.5 MiB between the two runs
    assert peaks["large"] - peaks["small"] < 2048, peaks


def test_process_stops_quietly_when_the_reader_of_stdout_goes_away(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = _cases(tmp_path, CASES * 20_000)
    process = subprocess.Popen([str(INSUREOPS), "rules", "simulate", rules, "--cases", cases],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b'{"id": "ca"')
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in stderr
