"""The README's walk runs as written (issue 33: its two walks reused ann@example.com with two
passwords, so the second sign-up silently sent no code and its login failed).

Every ```sh block of "A first walk" runs, in order, in one bash against a real `insureops serve`
started with no configuration in a fresh directory (the embedded database loads the example
market on first start). Only the line `CODE=...` changes: it reads the code the service printed
from its outbox, as a newcomer does. Each curl fails the walk on an HTTP error (`--fail-with-body`),
so every step must succeed, and the answers are checked at the end.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.carrier_matching.example_market import product_count
from tests.platform.test_serve_command import free_port, insureops_command, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
HEADING, NEXT = "## A first walk", "## Tests"
CODE_LINE = re.compile(r"^CODE=\S+.*$", re.MULTILINE)
# Reads the newest 6-digit code the service printed (its stdout is the file $SERVE_LOG).
WAIT_CODE = """wait_code() {
  for _ in $(seq 100); do
    c=$(grep -oE '\\b[0-9]{6}\\b' "$SERVE_LOG" | tail -n 1 || true)
    if [ -n "$c" ]; then echo "$c"; return 0; fi
    sleep 0.1
  done
  return 1
}
"""


def walk_section() -> str:
    readme = (ROOT / "README.md").read_text()
    return readme[readme.index(HEADING):readme.index(NEXT)]


def walk_script(port: int) -> str:
    blocks = re.findall(r"```sh\n(.*?)```", walk_section(), flags=re.DOTALL)
    script = "\n".join(blocks).replace("localhost:8080", f"127.0.0.1:{port}")
    script = script.replace("curl -s ", "curl -sS --fail-with-body ")
    return WAIT_CODE + CODE_LINE.sub("CODE=$(wait_code)", script)


def json_answers(text: str) -> list[dict]:
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) != -1:
        try:
            value, at = decoder.raw_decode(text, start)
            found.append(value)
        except json.JSONDecodeError:
            at = start + 1
    return found


def test_readme_walk_is_one_story_with_one_password_per_address():
    section = walk_section()
    passwords = set(re.findall(r'"password": "([^"]+)"', section))
    assert len(passwords) == 1, passwords
    assert len(CODE_LINE.findall(section)) == 1  # one sign-up, one code
    assert section.count("/api/auth/signup/") == 1


def test_readme_walk_runs_as_written_against_a_fresh_service(
        tmp_path, example_appetites_in_the_run_s_cache):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    port = free_port()
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # a clone's folder, as the README says
    environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        process = subprocess.Popen([insureops_command(), "serve", "--port", str(port)],
                                   cwd=tmp_path, env=environment, text=True, stdout=output,
                                   stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}", time.monotonic() + 120)
        run = subprocess.run(["bash", "-eo", "pipefail", "-c", walk_script(port)],
                             cwd=tmp_path, env={**environment, "SERVE_LOG": str(log)},
                             capture_output=True, text=True, timeout=180, check=False)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert run.returncode == 0, f"{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    answers = json_answers(run.stdout)
    match = next(a for a in answers if "considered" in a)
    assert match["considered"] == product_count() and len(match["results"]) == 3
    top = match["results"][0]
    assert (top["carrier"]["id"], top["product"]["id"], top["decision"]) == (
        "granite-trades", "granite-trades/trades-gl", "accept")
    assert top["reasons"][0].startswith("Target class: Electrical contractors")
    assert any(a.get("name") == "First client" and "uuid" in a for a in answers)
    prospect = next(a for a in answers if a.get("company_name") == "Bright Spark Electric")
    assert prospect["domain"] == "brightspark.example"
    assert "238210" in run.stdout.split('"company_name"')[-1]  # insureops classify's line
    assert (tmp_path / "results.jsonl").stat().st_size > 0  # rules simulate's results
