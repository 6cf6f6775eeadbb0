"""Load and faults over MCP (issue: nothing breaks for good): 100 concurrent tool calls of every
kind while a forced sync runs and 1,000 files change under it, and a client that leaves in the
middle of a call. Every call answers or fails with a code, and the store ends as a clean index
of the same files does. `bench/load.py` runs the same on a real repository and prints figures.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import run_cli
from load import disconnect_mid_call, generate_project, run_load

pytestmark = pytest.mark.anyio

# Codes a call may fail with here by its own parameters, not by the load: a line outside any
# function, a session tool with no session.
EXPECTED = {"NO_ENCLOSING_FUNCTION", "NO_SESSION"}


async def test_concurrent_calls_while_files_change_under_a_forced_sync(server_bin, tmp_path):
    root = generate_project(tmp_path / "project", modules=1200)
    # The machine's embedding cache off: the model embeds under the load, as on a first sync.
    report = await run_load(
        server_bin, root, tmp_path, calls=100, changes=1000, env={"CODE_INTEL_VECTOR_CACHE_MB": "0"}
    )
    figures = report.as_dict()
    print(f"load: {json.dumps(figures)}")
    assert report.calls == 101 and report.answered + sum(report.errors.values()) == report.calls, figures
    assert set(report.errors) <= EXPECTED, figures
    assert report.files_changed == 1000, figures
    # Nothing lost or duplicated: the same chunks as a clean index of the final files.
    assert (report.chunks, report.files) == (report.clean_chunks, report.clean_files), figures


async def test_a_client_that_leaves_mid_call_leaves_a_store_the_next_sync_completes(server_bin, tmp_path):
    root = generate_project(tmp_path / "project", modules=600)
    log = await disconnect_mid_call(server_bin, root, tmp_path)
    assert "panicked" not in log, log[-3000:]
    done = run_cli(server_bin, "index", "--root", str(root), "--json", timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    after = json.loads(done.stdout.strip().splitlines()[-1])
    clean_root = tmp_path / "clean" / "project"
    shutil.copytree(root, clean_root, ignore=shutil.ignore_patterns(".code-intel"))
    clean = run_cli(server_bin, "index", "--root", str(clean_root), "--json", timeout=900)
    assert clean.returncode == 0, clean.stderr[-2000:]
    clean = json.loads(clean.stdout.strip().splitlines()[-1])
    assert (after["chunks"], after["files"]) == (clean["chunks"], clean["files"]), (after, clean)
    assert after["embedded"] == after["chunks"], after
