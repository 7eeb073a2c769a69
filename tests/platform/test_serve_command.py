"""`insureops serve` for real: a subprocess, no configuration, a fresh directory, a free port."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def insureops_command() -> str:
    beside_python = Path(sys.executable).with_name("insureops")
    found = str(beside_python) if beside_python.exists() else shutil.which("insureops")
    if found is None:
        pytest.fail("the `insureops` console script is not installed (pip install -e .)")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def wait_until_serving(process: subprocess.Popen, base: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited early: {process.communicate()}")
        try:
            get(f"{base}/api/health/")
            return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    raise AssertionError("serve did not answer within the deadline")


def test_serve_answers_profile_with_401_json_when_started_with_no_configuration(
        tmp_path, example_appetites_in_the_run_s_cache):
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
    process = subprocess.Popen([insureops_command(), "serve", "--port", str(port)],
                               cwd=tmp_path, env=environment, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(process, base, time.monotonic() + 90)  # first start loads the market
        status, headers, body = get(f"{base}/api/auth/profile/")
        assert status == 401
        assert headers["Content-Type"].startswith("application/json")
        assert json.loads(body)["error"]["code"] == "not_authenticated"
        assert headers["X-Request-ID"]
        status, _, page = get(f"{base}/api/docs")
        assert status == 200 and b"swagger-ui" in page
    finally:
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr
    assert f"{base}/api/docs" in stdout and "stopped" in stdout
    assert (tmp_path / "insureops.db").exists()
    assert (tmp_path / "insureops.db-keys.json").exists()
    assert "generated secret keys" in stderr
    assert "Traceback" not in stderr
