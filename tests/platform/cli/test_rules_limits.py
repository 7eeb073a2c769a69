"""`rules check|test|simulate` never end in a traceback when a ruleset or a case reaches the
engine's limits (issue 17, fix 10: a const doubling a list 40 times, or a chain of `A*A`
consts, passed `rules check` and then killed `rules simulate`; a cases line nested 200,000
deep aborted the whole run)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from insureops.platform.cli import main

HEADER = "ruleset limits.probe\ninput x: Any\n"


def _doubled_list_consts(times: int = 40) -> str:
    lines = [HEADER, "const A0 = [1]"]
    lines += [f"const A{i} = A{i - 1} + A{i - 1}" for i in range(1, times + 1)]
    return "\n".join(lines + [f'rule r when len(A{times}) > 0 then accept "big" end', ""])


def _squared_consts(times: int = 40) -> str:
    lines = [HEADER, "const A0 = 10"]
    lines += [f"const A{i} = A{i - 1} * A{i - 1}" for i in range(1, times + 1)]
    return "\n".join(lines + [f'rule r when A{times} > 0 then accept "big" end', ""])


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _cases(folder: Path, lines: list[str]) -> str:
    return _write(folder, "cases.jsonl", "".join(line + "\n" for line in lines))


def _invoke(*args: str):
    return CliRunner().invoke(main, ["rules", *args], catch_exceptions=False)


def test_check_reports_e115_when_a_const_doubles_a_list_40_times(tmp_path):
    rules = _write(tmp_path, "double.rules", _doubled_list_consts())
    result = _invoke("check", rules)
    assert result.exit_code == 1
    assert "error[E115]: const `A17` cannot be computed: a list grew beyond the limit of " \
           "100,000 items" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_check_reports_e115_when_a_chain_of_squared_consts_outgrows_100_digits(tmp_path):
    rules = _write(tmp_path, "square.rules", _squared_consts())
    result = _invoke("check", rules)
    assert result.exit_code == 1
    assert ("error[E115]: const `A7` cannot be computed: `*` gave a number of more than 100 "
            "significant digits") in result.stderr


def test_simulate_and_test_exit_1_with_the_diagnostic_when_a_const_cannot_be_computed(
        tmp_path):
    cases = _cases(tmp_path, [json.dumps({"id": 1, "inputs": {"x": 1}})])
    for text in (_doubled_list_consts(), _squared_consts()):
        rules = _write(tmp_path, "probe.rules", text)
        simulated = _invoke("simulate", rules, "--cases", cases)
        assert simulated.exit_code == 1 and "error[E115]" in simulated.stderr
        assert simulated.stdout == ""
        tested = _invoke("test", rules)
        assert tested.exit_code == 1 and "error[E115]" in tested.stderr


def test_simulate_gives_a_limit_error_per_case_when_a_rule_outgrows_the_limits(tmp_path):
    # each rule doubles (or squares) what the one before set, from the case's data
    lines = [HEADER, "rule l0 when true then set l0 = x.xs + x.xs end",
             "rule n0 when true then set n0 = x.n * x.n end"]
    for i in range(1, 41):
        lines.append(f"rule l{i} when true then set l{i} = outputs.l{i - 1} + outputs.l{i - 1} "
                     "end")
        lines.append(f"rule n{i} when true then set n{i} = outputs.n{i - 1} * outputs.n{i - 1} "
                     "end")
    text = "\n".join(lines) + "\n"
    rules = _write(tmp_path, "runtime.rules", text)
    cases = _cases(tmp_path, [json.dumps({"id": 1, "inputs": {"x": {"xs": [1], "n": 1}}}),
                              json.dumps({"id": 2, "inputs": {"x": {"xs": None, "n": 7}}})])
    result = _invoke("simulate", rules, "--cases", cases)
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(line["id"], line["error"]["code"]) for line in lines] == [
        (1, "limit_list_size"), (2, "arithmetic_error")]
    assert "Traceback" not in result.stderr


def test_simulate_reports_invalid_json_and_goes_on_when_a_line_nests_200000_deep(tmp_path):
    rules = _write(tmp_path, "ok.rules", HEADER + 'rule r when x > 0 then accept "x" end\n')
    deep = '{"id": 2, "inputs": {"x": ' + "[" * 200_000 + "]" * 200_000 + "}}"
    cases = _cases(tmp_path, [json.dumps({"id": 1, "inputs": {"x": 1}}), deep,
                              json.dumps({"id": 3, "inputs": {"x": 2}})])
    result = _invoke("simulate", rules, "--cases", cases)
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == [1, None, 3]
    assert lines[1]["error"]["code"] == "invalid_json" and lines[1]["error"]["line"] == 2
    assert lines[0]["result"]["decision"] == lines[2]["result"]["decision"] == "accept"


# issue 28, part 6: `rules simulate --cases /dev/zero` read one line without bound (6.6 GB in
# 10 s). A line is now read in bounded pieces; a longer one ends the run with its number and
# the bound. The processes run under an address-space limit, so a regression fails here with a
# MemoryError instead of exhausting the machine.
_ADDRESS_SPACE = 512 * 1024 * 1024


def _simulate_bounded(rules: str, cases: str) -> tuple[int, str]:
    """Exit status and stderr of `rules simulate` on `cases`, in a process that may map at
    most 512 MiB."""
    def bound() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))

    insureops = str(Path(sys.executable).with_name("insureops"))
    done = subprocess.run([insureops, "rules", "simulate", rules, "--cases", cases, "--out",
                           os.devnull], capture_output=True, text=True, timeout=60,
                          preexec_fn=bound, check=False)
    return done.returncode, done.stderr


def test_simulate_stops_with_the_line_and_its_bound_when_a_case_line_is_too_long(tmp_path):
    from insureops.platform.batch.cases import MAX_LINE_BYTES

    rules = _write(tmp_path, "flat.rules", HEADER + 'rule r when true then accept "ok" end\n')
    cases = tmp_path / "cases.jsonl"
    with cases.open("wb") as handle:
        handle.write(b'{"id": 1, "inputs": {"x": 1}}\n')
        handle.write(b'{"id": 2, "inputs": {"x": "' + b"a" * MAX_LINE_BYTES + b'"}}\n')
    status, stderr = _simulate_bounded(rules, str(cases))
    assert status == 1
    assert f"{cases}:2: a case line is longer than {MAX_LINE_BYTES:,} bytes" in stderr
    assert "Traceback" not in stderr


def test_simulate_stops_within_its_memory_when_the_cases_are_dev_zero(tmp_path):
    from insureops.platform.batch.cases import MAX_LINE_BYTES

    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    rules = _write(tmp_path, "flat.rules", HEADER + 'rule r when true then accept "ok" end\n')
    status, stderr = _simulate_bounded(rules, "/dev/zero")
    assert status == 1
    assert f"/dev/zero:1: a case line is longer than {MAX_LINE_BYTES:,} bytes" in stderr
    assert "Traceback" not in stderr
