"""The CLI's cache of checked rulesets (`platform/cli/ruleset_cache.py`), in real processes.

Each process gets `XDG_CACHE_HOME` in the test's own folder, so its entries are in
`<tmp>/cache/insureops/rules/`, never in the user's cache."""

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


def _environment(folder: Path, write: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _entries(folder: Path) -> list[Path]:
    """The cache entries the processes run in `folder` wrote."""
    return sorted((folder / "cache" / "insureops" / "rules").glob("*.json"))


def _entry_of(folder: Path, source: str) -> Path:
    return folder / "cache" / "insureops" / "rules" / f"{ruleset_cache._key(source)}.json"


def _simulate(folder: Path, rules: Path, *, write: bool = True) -> tuple[list[dict], str]:
    cases = folder / "cases.jsonl"
    cases.write_text("\n".join(json.dumps({"id": state, "inputs": {"business": {"state": state}}})
                               for state in ("CA", "TX")) + "\n")
    out = folder / "out.jsonl"
    done = subprocess.run([sys.executable, "-c", _PROBE, "rules", "simulate", str(rules),
                           "--cases", str(cases), "--out", str(out)],
                          capture_output=True, text=True, env=_environment(folder, write), check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return lines, done.stderr.strip().splitlines()[-1]


def test_a_second_simulate_skips_the_parser_when_the_check_is_cached(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    first, first_imports = _simulate(tmp_path, rules)
    assert _entries(tmp_path) == [_entry_of(tmp_path, RULES)]
    assert not (tmp_path / "__pycache__").exists()  # nothing beside the rules file
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
                          env=_environment(tmp_path), check=False)
    assert done.returncode == 1
    assert "sample.rules:8:" in done.stderr


def _damaged(entry: bytes) -> list[bytes]:
    """A valid entry's text emptied or cut, not JSON, or with another key, a class that is
    not an IR node, or a node of the wrong arity."""
    data = json.loads(entry)
    foreign = dict(data, key="another")
    not_ir = dict(data, ruleset=["subprocess.Popen", ["tuple", "id"]])
    arity = dict(data, ruleset=["Ruleset", "cache.sample", ["tuple"]])
    return [b"", b"not json", entry[: len(entry) // 2], pickle.dumps(None),
            *(json.dumps(item).encode() for item in (foreign, not_ir, arity, [], {}))]


def test_a_damaged_cache_file_is_a_miss_when_simulated(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    [entry] = _entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:100])
    lines, imports = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert "lark" in imports  # checked again, and the file rewritten
    again, imports = _simulate(tmp_path, rules)
    assert again == lines and imports == "[]"


@pytest.mark.parametrize("damage", range(9))
def test_an_entry_is_not_read_when_damaged_or_foreign(tmp_path, monkeypatch, damage):
    from insureops.dsl.api import check_for_compile

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    where = tmp_path / "entry.json"
    ruleset_cache._store(where, "k", check_for_compile(RULES))
    assert ruleset_cache._load(where, "k") is not None
    where.write_bytes(_damaged(where.read_bytes())[damage])
    assert ruleset_cache._load(where, "k") is None


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    lines, _ = _simulate(tmp_path, rules, write=False)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert _entries(tmp_path) == []


def test_simulate_still_runs_when_the_cache_folder_cannot_be_made(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    (tmp_path / "cache").write_text("a file where the user's cache folder would go")
    lines, imports = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert "lark" in imports


def test_the_cache_folder_is_private_when_the_cli_makes_it(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    [entry] = _entries(tmp_path)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert entry.parent.stat().st_mode & 0o777 == 0o700
    assert entry.parent.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_a_cache_file_owned_by_another_user_is_not_read(tmp_path):
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    _simulate(tmp_path, rules)
    [where] = _entries(tmp_path)
    os.chown(where, 65534, 65534)  # nobody
    assert ruleset_cache._load(where, ruleset_cache._key(RULES)) is None
    _, imports = _simulate(tmp_path, rules)
    assert "lark" in imports


class _Planted:
    """A pickle whose loading makes the directory `marker`: proof that the CLI ran it."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_a_planted_pickle_is_never_run_when_a_clone_ships_one_beside_the_rules(tmp_path):
    # issue 28, part 4: `__pycache__/NAME.rules.insureops.pickle` was unpickled whenever the
    # user owned it (a clone, an unpacked archive), before its key was compared.
    rules = tmp_path / "sample.rules"
    rules.write_text(RULES)
    marker = tmp_path / "planted-code-ran"
    planted = pickle.dumps(_Planted(marker))
    old = tmp_path / "__pycache__" / "sample.rules.insureops.pickle"
    old.parent.mkdir()
    old.write_bytes(planted)
    where = _entry_of(tmp_path, RULES)  # and where the entry of this source now lives
    where.parent.mkdir(parents=True)
    where.write_bytes(planted)
    lines, imports = _simulate(tmp_path, rules)
    assert [line["result"]["decision"] for line in lines] == ["accept", "refer"]
    assert not marker.exists()
    assert not old.exists() and not old.parent.exists()  # the old format is deleted, unread
    assert "lark" in imports  # the planted entry was a miss, and was replaced by data
    assert json.loads(where.read_bytes())["key"] == ruleset_cache._key(RULES)
