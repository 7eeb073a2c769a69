"""The VS Code extension in editors/vscode: its grammar colours every keyword of the language,
and, where Node and its packages are installed, it builds offline and passes its own tests
(the TextMate grammar's unit test, the grammar on every example ruleset, the built client)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"


def grammar_words() -> list[str]:
    grammar = re.sub(r"^\s*//.*$", "", (ROOT / "dsl" / "rules.lark").read_text(),
                     flags=re.MULTILINE)
    return sorted(set(re.findall(r'"([a-z_]+)"', grammar)))


def test_textmate_grammar_colours_every_keyword_of_the_grammar():
    manifest = json.loads((EXTENSION / "package.json").read_text())
    [grammar] = manifest["contributes"]["grammars"]
    text_mate = json.loads((EXTENSION / grammar["path"]).read_text())
    assert text_mate["scopeName"] == grammar["scopeName"]
    alternatives = " ".join(pattern["match"] for pattern in
                            text_mate["repository"]["expression"]["patterns"]
                            if "match" in pattern and pattern["match"].startswith(r"\b(?:"))
    coloured = set(re.findall(r"[a-z_]+", alternatives))
    assert set(grammar_words()) <= coloured, (
        "the grammar changed: run `npm run build` in editors/vscode and commit")


def test_extension_builds_and_passes_its_tests_when_node_is_at_hand():
    """Skips without Node or without `npm ci` in editors/vscode (the build needs them)."""
    npm = shutil.which("npm")
    if npm is None or not (EXTENSION / "node_modules").is_dir():
        pytest.skip("needs Node and `npm ci` in editors/vscode")
    env = {**os.environ, "npm_config_offline": "true"}
    run = {"cwd": EXTENSION, "check": True, "timeout": 300, "capture_output": True,
           "env": env}
    subprocess.run([npm, "run", "build"], **run)
    tested = subprocess.run([npm, "test"], **run, text=True)
    assert "run successfuly" in tested.stdout  # vscode-tmgrammar-test's own words
    assert "example rulesets" in tested.stdout
    subprocess.run([npm, "run", "package"], **run)
    with zipfile.ZipFile(EXTENSION / "dist" / "insureops-rules.vsix") as package:
        names = set(package.namelist())
    assert {"extension/package.json", "extension/dist/extension.js",
            "extension/syntaxes/rules.tmLanguage.json",
            "extension/language-configuration.json"} <= names
