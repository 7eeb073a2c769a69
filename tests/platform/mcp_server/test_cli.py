"""`insureops mcp doctor` (the three local checks and the remote endpoint) and `insureops mcp config` (the client's entry)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from insureops.platform.cli import main
from insureops.platform.mcp_tools.registry import TOOLS

INSUREOPS = str(Path(sys.executable).parent / "insureops")
ONE_ENGINE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


async def _doctor(env: dict[str, str]) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        INSUREOPS, "mcp", "doctor", env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    return process.returncode, output.decode()


async def test_doctor_reports_all_three_ok_when_everything_works(
        make_tenant, make_tenant_database, recording_service):
    service_url, _ = recording_service
    tenant = await make_tenant(None, name="Doctor's agency")
    status, output = await _doctor({
        "SERVICE_API_KEY": tenant.key, "DATABASE_URL": make_tenant_database(),
        "SERVICE_URL": service_url, "PATH": str(Path(INSUREOPS).parent)})
    assert status == 0, output
    assert "[ok] api_key: valid for workspace \"Doctor's agency\"" in output
    assert "[ok] database: connected; data model 2.2.0" in output
    assert f"[ok] tools: {len(TOOLS)} tools" in output
    assert f"[ok] remote: {service_url}/mcp/ serves the same {len(TOOLS)} tools" in output


@ONE_ENGINE
async def test_doctor_reports_every_problem_when_all_three_fail(recording_service, tmp_path):
    service_url, _ = recording_service
    status, output = await _doctor({
        "SERVICE_API_KEY": "iops_short\n", "DATABASE_URL": "postgresql://u:p@ss@127.0.0.1/x",
        "SERVICE_URL": service_url, "PATH": str(tmp_path)})  # insureops not on this PATH
    assert status == 1
    assert "[PROBLEM] api_key: invalid API key" in output and "line breaks" in output
    assert "[PROBLEM] database: database connection failed" in output and "URL-safe" in output
    assert "[PROBLEM] tools:" in output and "NOT found on the PATH" in output
    assert "Restart the desktop client" in output and "client's MCP logs" in output
    assert "[PROBLEM] remote: not checked: the key is refused" in output


def test_config_prints_the_client_entry_with_both_values_when_they_are_set():
    env = {"SERVICE_API_KEY": "iops_" + "k" * 40, "DATABASE_URL": "postgresql://u:p@h/db"}
    result = CliRunner().invoke(main, ["mcp", "config"], env=env)
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)["mcpServers"]["insureops"]
    assert entry["args"] == ["mcp"] and entry["command"].endswith("insureops")
    assert entry["env"] == env


def test_config_prints_placeholders_when_the_values_are_not_set():
    result = CliRunner().invoke(main, ["mcp", "config", "--name", "agency"],
                                env={"SERVICE_API_KEY": None, "DATABASE_URL": None,
                                     "SERVICE_URL": "https://insureops.example.org"})
    entry = json.loads(result.output)["mcpServers"]["agency"]
    assert entry["env"] == {"SERVICE_API_KEY": "iops_your_api_key",
                            "DATABASE_URL": "postgresql://user:password@host:5432/database",
                            "SERVICE_URL": "https://insureops.example.org"}
