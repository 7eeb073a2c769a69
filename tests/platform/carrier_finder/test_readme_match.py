"""The README's "carrier match in a minute" runs as written: its curl commands against a real
`insureops serve` started with no configuration in a fresh directory (the embedded database
loads the example market on first start), with the code the service prints from its outbox."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.carrier_matching.example_market import product_count
from tests.platform.test_serve_command import free_port, insureops_command, wait_until_serving

ROOT = Path(__file__).resolve().parents[3]
HEADING = "## A carrier match in a minute"
CODE_LINE = re.compile(r"^CODE=\S+.*$", re.MULTILINE)


def readme_block() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index(HEADING):]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def last_json(text: str) -> dict:
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) != -1:
        try:
            value, at = decoder.raw_decode(text, start)
            found.append(value)
        except json.JSONDecodeError:
            at = start + 1
    return found[-1]


def test_readme_match_block_comes_before_the_configuration_when_read():
    readme = (ROOT / "README.md").read_text()
    assert readme.index(HEADING) < readme.index("## Configuration")
    block = readme_block()
    assert "match-carriers-detailed" in block and CODE_LINE.search(block)


def test_readme_match_commands_show_a_ranked_match_when_run_against_a_fresh_service(tmp_path):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
    process = subprocess.Popen([insureops_command(), "serve", "--port", str(port)],
                               cwd=tmp_path, env=environment, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(process.stdout), daemon=True)
    reader.start()
    base = f"127.0.0.1:{port}"
    block = readme_block().replace("localhost:8080", base)
    before, after = CODE_LINE.split(block)
    try:
        wait_until_serving(process, f"http://{base}", time.monotonic() + 120)
        signup = subprocess.run(["bash", "-ec", before], check=False, cwd=tmp_path,
                                capture_output=True, text=True, timeout=30)
        assert signup.returncode == 0, signup.stderr
        code = None
        deadline = time.monotonic() + 10
        while code is None and time.monotonic() < deadline:
            found = re.findall(r"\b(\d{6})\b", "".join(printed))
            code = found[-1] if found else None
            time.sleep(0.1)
        assert code, "the service printed no verification code"
        run = subprocess.run(["bash", "-ec", f"CODE={code}\n{after}"], check=False,
                             cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
        reader.join(timeout=5)
        process.stdout.close()
    answer = last_json(run.stdout)
    assert answer["considered"] == product_count() and len(answer["results"]) == 3
    top = answer["results"][0]
    assert (top["carrier"]["id"], top["product"]["id"], top["decision"]) == (
        "granite-trades", "granite-trades/trades-gl", "accept")
    assert top["reasons"][0].startswith("Target class: Electrical contractors")
