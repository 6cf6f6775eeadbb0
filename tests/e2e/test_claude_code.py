"""Claude Code's own CLI as the client: `code-intel init` writes files the real `claude` accepts.

The CLI is the pinned npm package that scripts/setup.sh installs ($CODE_INTEL_CLAUDE names its
binary). Without a login it can still list and health-check MCP servers and validate settings,
which is what an initialised project needs from it:

* `claude mcp list` starts the project's `.mcp.json` server and reports it connected, once the
  project is trusted and its server approved in the project's local settings file (what a user
  does at Claude Code's first-run prompt);
* `claude doctor` reports no invalid settings in what `init` wrote (hooks included).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli


def claude_bin() -> Path:
    path = os.environ.get("CODE_INTEL_CLAUDE")
    if not path:
        pytest.fail("CODE_INTEL_CLAUDE is not set: run scripts/setup.sh, which installs Claude Code's CLI")
    if not Path(path).is_file():
        pytest.fail(f"CODE_INTEL_CLAUDE={path} does not exist: run scripts/setup.sh")
    return Path(path)


def run_claude(args: list[str], cwd: Path, config_dir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(config_dir), DISABLE_AUTOUPDATER="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return subprocess.run([str(claude_bin()), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_claude_code_connects_and_accepts_the_settings(fresh_fixture, server_bin, tmp_path):
    root = fresh_fixture("python-service")
    done = run_cli(server_bin, "init", "--root", str(root), "--command", str(server_bin))
    assert done.returncode == 0, done.stderr

    # Trust the project and approve its server, as a user does at the first-run prompt.
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    real_root = str(root.resolve())
    (config_dir / ".claude.json").write_text(
        json.dumps({"projects": {real_root: {"hasTrustDialogAccepted": True}}}))
    (root / ".claude/settings.local.json").write_text(json.dumps({"enabledMcpjsonServers": ["code-intel"]}))

    listed = run_claude(["mcp", "list"], root, config_dir)
    print(listed.stdout)
    line = next((l for l in listed.stdout.splitlines() if l.startswith("code-intel:")), None)
    assert line is not None, listed.stdout + listed.stderr
    assert "Connected" in line, line

    doctor = run_claude(["doctor"], root, config_dir)
    print(doctor.stdout)
    assert "Invalid settings" not in doctor.stdout, doctor.stdout

    # The check can fail: a hook Claude Code does not know is reported.
    settings_path = root / ".claude/settings.json"
    settings = json.loads(settings_path.read_text())
    settings["hooks"]["Stopp"] = settings["hooks"]["Stop"]
    settings_path.write_text(json.dumps(settings))
    broken = run_claude(["doctor"], root, config_dir)
    assert "Invalid settings" in broken.stdout and "Stopp" in broken.stdout, broken.stdout


def test_the_plugin_passes_claude_codes_validation(server_bin, tmp_path):
    out = tmp_path / "code-intel-plugin"
    done = run_cli(server_bin, "init", "--plugin", str(out), "--command", "code-intel")
    assert done.returncode == 0, done.stderr
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    checked = run_claude(["plugin", "validate", "--strict", str(out)], tmp_path, config_dir)
    print(checked.stdout, checked.stderr)
    assert checked.returncode == 0, checked.stdout + checked.stderr
