"""The CLI's cache of checked rulesets (`platform/cli/ruleset_cache.py`), in real processes."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from insureops.platform.cli import ruleset_cache

INSUREOPS = Path(sys.executable).with_name("insureops")

RULES = """\
ruleset cache.sample "Cache sample"
input business: Business
default decision refer

rule core
when business.state == "CA"
then
    accept "core state"
end
"""

# What the simulate command imports when the ruleset's check comes from the cache: printed by
# the process itself after the run.
_PROBE = (
    "import sys\n"
    "from insureops.platform.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(sorted(m for m in ('lark', 'aiohttp', 'sqlalchemy', 'pydantic', 'insureops.dsl.parser',\n"
    "                         'insureops.dsl.checker') if m in sys.modules), file=sys.stderr)\n"
)


def _environment(write: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _simulate(folder: Path, rules: Path, *, write: bool = True) -> tuple[list[dict], str]:
    cases = folder / "cases.jsonl"
    cases.write_text("\n".join(json.dumps({"id": state, "inputs": {"business": {"state": state}}})
                               for state in ("CA", "TX")) + "\n")
    out = folder / "out.jsonl"
    done = subprocess.run([sys.executable, "-c", _PROBE, "rules", "simulate", str(rules),
                           "--cases", str(cases), "--out", str(out)],
                          capture_output=True, text=True, env=_environment(write), check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return lines, done.stderr.strip().splitlines()[-1]


def test_a_second_simulate_skips_the_parser_when_the_check_is_cached(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    first, first_imports = _simulate(tmp_path, rules)
    assert ruleset_cache.cache_path(str(rules)).is_file()
    assert "lark" in first_imports  # the first run parses
    second, second_imports = _simulate(tmp_path, rules)
    assert second == first
    assert [line["result"]["decision"] for line in second] == ["accept", "refer"]
    # no parser, and none of the service's libraries, on the hot start
    assert second_imports == "[]"


def test_an_edited_rules_file_is_checked_again_when_simulated(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    rules.write_text(RULES.replace('"CA"', '"TX"'))
    lines, imports = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["refer", "accept"]
    assert "lark" in imports


def test_an_invalid_edit_is_reported_not_served_from_the_cache(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    rules.write_text(RULES.replace("accept", "acept"))
    done = subprocess.run([str(INSUREOPS), "rules", "simulate", str(rules), "--cases",
                           str(tmp_path / "cases.jsonl")], capture_output=True, text=True,
                          env=_environment(), check=False)
    assert done.returncode == 1
    assert "sample.rules:8:" in done.stderr


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps(("key", "value")),
                                    pickle.dumps(None)])
def test_a_damaged_cache_file_is_a_miss_when_simulated(tmp_path, damage):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    ruleset_cache.cache_path(str(rules)).write_bytes(damage)
    lines, imports = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert "lark" in imports  # checked again, and the file rewritten
    again, imports = _simulate(tmp_path, rules)
    assert again == lines and imports == "[]"


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    lines, _ = _simulate(tmp_path, rules, write=False)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert not ruleset_cache.cache_path(str(rules)).exists()


def test_a_read_only_folder_still_simulates_when_it_cannot_keep_the_cache(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    rules = folder / "sample.rules"
    rules.write_text(RULES)
    (folder / "__pycache__").write_text("a file where the cache folder would go")
    lines, _ = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_a_cache_file_owned_by_another_user_is_not_read(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    where = ruleset_cache.cache_path(str(rules))
    os.chown(where, 65534, 65534)  # nobody
    assert ruleset_cache._load(where, ruleset_cache._key(str(rules), RULES)) is None
    _, imports = _simulate(tmp_path, rules)
    assert "lark" in imports
