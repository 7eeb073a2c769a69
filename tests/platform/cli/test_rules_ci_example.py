"""Issue 34: the example CI workflow in docs/ runs commands and options the CLI has."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import yaml

from insureops.platform.cli.rules import rules

WORKFLOW = Path(__file__).resolve().parents[3] / "docs" / "examples" / "rules-ci.yml"


def _insureops_commands(text: str) -> list[list[str]]:
    found = []
    for line in text.splitlines():
        line = line.strip().removesuffix("|| status=1").strip()
        if line.startswith("insureops rules "):
            found.append(shlex.split(re.sub(r'"\$[^"]*"|\$\w+', "X", line))[2:])
    return found


def test_the_example_workflow_runs_test_diff_pull_and_push_as_the_cli_defines_them():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["test"]["steps"]
    commands = _insureops_commands("\n".join(step.get("run", "") for step in steps))
    assert {c[0] for c in commands} == {"check", "test", "pull", "diff", "push"}
    for words in commands:
        command = rules.commands[words[0]]
        context = command.make_context(words[0], words[1:], resilient_parsing=True)
        options = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
        assert {w for w in words[1:] if w.startswith("--")} <= options, words
        assert context.command is command
